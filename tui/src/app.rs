//! The replay's state and its one mutator, [`App::apply`].
//!
//! `App` holds the cursor (launch and cycle), the selection (block and
//! warp), playback and the overlays. Keys become [`Action`]s in `keys.rs`;
//! drawing (`ui/`) only reads an `&App`. Tests drive `apply` directly.

use std::time::Duration;

use crate::replay::{LaunchData, Replay};
use crate::source::{self, LineStats, Scope, SortBy};

mod view;

/// Playback speeds, in cycles per second: steps of 1-2-5, so each is at
/// most 2.5 times the one before, up to a million (a 1M-key launch's
/// hundreds of thousands of cycles in well under a minute).
pub const SPEEDS: &[u64] = &[
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
    200_000, 500_000, 1_000_000,
];

/// Seconds the default speed takes to play the first launch.
pub const PLAY_SECONDS: u64 = 30;

/// The speed (index into [`SPEEDS`]) that plays `cycles` in about
/// [`PLAY_SECONDS`]: the one nearest `cycles / PLAY_SECONDS` on a log scale.
pub fn default_speed(cycles: u64) -> usize {
    let want = (cycles as f64 / PLAY_SECONDS as f64).max(1.0).ln();
    (0..SPEEDS.len())
        .min_by(|&a, &b| {
            let d = |i: usize| ((SPEEDS[i] as f64).ln() - want).abs();
            d(a).total_cmp(&d(b))
        })
        .unwrap_or(0)
}

/// The panels, in `Tab` order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Panel {
    /// The focused warp's key registers.
    #[default]
    Slab,
    /// The IR listing.
    Ir,
    /// The shared-memory banks.
    Banks,
    /// The stall timelines.
    Stalls,
}

impl Panel {
    const ORDER: [Panel; 4] = [Panel::Slab, Panel::Ir, Panel::Banks, Panel::Stalls];

    fn step(self, forward: bool) -> Panel {
        let i = Panel::ORDER.iter().position(|p| *p == self).unwrap_or(0);
        let n = Panel::ORDER.len();
        Panel::ORDER[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// What a prompt asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// `:` or `g`: a cycle, pc, warp, block or launch (see [`crate::jump`]).
    Jump,
    /// `/`: IR text; the focused warp's next issue of a matching line.
    Search,
}

/// A prompt being typed on the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// What it asks for.
    pub kind: PromptKind,
    /// The text so far.
    pub text: String,
}

/// The slab inspector's cell: a lane and a row of the slab.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// The lane.
    pub lane: u32,
    /// The row (index into the slab's rows).
    pub row: usize,
}

/// Everything the user can ask for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Start or stop playback.
    TogglePlay,
    /// Play faster.
    Faster,
    /// Play slower.
    Slower,
    /// One cycle forward.
    StepCycle,
    /// One cycle back.
    BackCycle,
    /// To the focused warp's next issued instruction.
    StepInst,
    /// To the focused warp's previous issued instruction.
    BackInst,
    /// To the next launch.
    NextKernel,
    /// To the previous launch.
    PrevKernel,
    /// To the next merge stage of the focused warp.
    NextStage,
    /// To the previous merge stage of the focused warp.
    PrevStage,
    /// To the next shared access with a bank conflict (focusing its warp).
    NextConflict,
    /// To the previous one.
    PrevConflict,
    /// To `n` tenths of the launch (0..=10).
    SeekTenths(u8),
    /// Focus the next warp of the block.
    NextWarp,
    /// Focus the previous warp.
    PrevWarp,
    /// Focus the next block that has detail.
    NextBlock,
    /// Focus the previous one.
    PrevBlock,
    /// Show or hide the key help.
    ToggleHelp,
    /// Leave.
    Quit,
    // The source view (`ui/ir.rs`).
    /// Sum the IR lines' numbers over the next scope (warp, block, launch).
    SourceScope,
    /// Sort the IR lines by the next column.
    SourceSort,
    /// Select the hottest IR line, then the next hot one.
    HotLine,
    /// Select the previous hot line.
    PrevHotLine,
    /// Time passed (playback advances by speed x time).
    Tick(Duration),
    /// `Tab`: focus the next panel (at 80 columns, panels take turns).
    FocusNext,
    /// `Shift-Tab`: the previous one.
    FocusPrev,
    /// `Enter`: open the focused panel's inspector (banks: the selected
    /// access lane by lane), or close it; in a prompt, run it.
    Open,
    /// `Esc`: close the prompt, the inspector or the help, else quit.
    Back,
    /// Up: the slab cursor's row (in the help: scroll).
    Up,
    /// Down.
    Down,
    /// `[`: the slab cursor one lane left.
    LaneLeft,
    /// `]`: one lane right.
    LaneRight,
    /// `z`: show fewer lanes, wider (full keys when they fit).
    ZoomIn,
    /// `Z`: show more lanes.
    ZoomOut,
    /// `x`: the worst bank conflict of the block in this launch.
    WorstConflict,
    /// `v`: the machine view by IPC, then by dominant stall, then closed.
    MachineView,
    /// Open a prompt.
    OpenPrompt(PromptKind),
    /// A character typed into the prompt.
    PromptChar(char),
    /// Backspace in the prompt.
    PromptBack,
}

/// The replay's state.
#[derive(Debug)]
pub struct App {
    /// The trace and the loaded launch.
    pub replay: Replay,
    /// The cursor: a cycle inside the loaded launch.
    pub cycle: u64,
    /// The focused warp within the block.
    pub warp: u32,
    /// Whether playback runs.
    pub playing: bool,
    /// Index into [`SPEEDS`].
    pub speed: usize,
    /// Whether the help overlay shows.
    pub help: bool,
    /// Whether the user asked to leave.
    pub quit: bool,
    /// A one-line note for the status bar (an error, "no more conflicts").
    pub message: Option<String>,
    /// Playback's fractional cycles not yet applied.
    carry: f64,
    /// The panel with the focus.
    pub focus: Panel,
    /// Whether the bank inspector (the selected access, lane by lane) is open.
    pub bank_inspector: bool,
    /// The help's first line shown.
    pub help_scroll: u16,
    /// The prompt being typed, if any.
    pub prompt: Option<Prompt>,
    /// The slab inspector's cell.
    pub cell: Cell,
    /// Zoom of the slab: it shows `lanes >> zoom` lanes.
    pub zoom: u8,
    /// The last `/` search, repeated by an empty one.
    last_search: String,
    /// The machine view: 0 closed, 1 by IPC, 2 by dominant stall.
    pub machine_view: u8,
    /// The machine view's selected SM.
    pub machine_sm: u32,
    /// The source view's scope, sort and selected line.
    pub source: SourceView,
}

/// The source view's state.
#[derive(Clone, Debug, Default)]
pub struct SourceView {
    /// Which warps the numbers sum over.
    pub scope: Scope,
    /// The column the lines are sorted by.
    pub sort: SortBy,
    /// The selected line's pc (from the hot-line keys).
    pub selected: Option<u32>,
    /// The launch the selected line was chosen in.
    selected_in: usize,
    /// The launch-wide table of the loaded launch: (launch, table).
    launch_table: Option<(usize, Vec<LineStats>)>,
}

impl App {
    /// A replay at the start of the first launch, focused on the header's
    /// focus warp (or warp 0).
    pub fn new(replay: Replay) -> Self {
        let warp = replay.header().options.focus.warp.unwrap_or(0);
        let cycle = replay.data.start;
        let mut app = App {
            replay,
            cycle,
            warp,
            playing: false,
            speed: 3,
            help: false,
            quit: false,
            message: None,
            carry: 0.0,
            focus: Panel::Slab,
            bank_inspector: false,
            help_scroll: 0,
            prompt: None,
            cell: Cell::default(),
            zoom: 0,
            last_search: String::new(),
            machine_view: 0,
            machine_sm: 0,
            source: SourceView::default(),
        };
        let d = app.data();
        app.speed = default_speed(d.end - d.start);
        app.clamp_warp();
        app
    }

    /// The loaded launch.
    pub fn data(&self) -> &LaunchData {
        &self.replay.data
    }

    /// Playback speed in cycles per second.
    pub fn speed(&self) -> u64 {
        SPEEDS[self.speed]
    }

    /// Applies one action: the only code that changes the state.
    pub fn apply(&mut self, action: Action) {
        if !matches!(action, Action::Tick(_)) {
            self.message = None;
        }
        let d = &self.replay.data;
        let (start, end) = (d.start, d.end);
        match action {
            Action::TogglePlay => {
                self.playing = !self.playing;
                self.carry = 0.0;
            }
            Action::Faster => self.speed = (self.speed + 1).min(SPEEDS.len() - 1),
            Action::Slower => self.speed = self.speed.saturating_sub(1),
            Action::StepCycle => self.cycle = (self.cycle + 1).min(end),
            Action::BackCycle => self.cycle = self.cycle.saturating_sub(1).max(start),
            Action::StepInst => self.step_inst(true),
            Action::BackInst => self.step_inst(false),
            Action::NextKernel => self.goto_launch(d.launch + 1),
            Action::PrevKernel => match d.launch.checked_sub(1) {
                Some(l) => self.goto_launch(l),
                None => self.cycle = start,
            },
            Action::NextStage => self.stage(true),
            Action::PrevStage => self.stage(false),
            Action::NextConflict => self.conflict(true),
            Action::PrevConflict => self.conflict(false),
            Action::SeekTenths(n) => {
                self.cycle = start + (end - start) * u64::from(n.min(10)) / 10;
            }
            Action::NextWarp => {
                self.warp = (self.warp + 1) % d.warps().max(1);
            }
            Action::PrevWarp => {
                let n = d.warps().max(1);
                self.warp = (self.warp + n - 1) % n;
            }
            Action::NextBlock => self.change_block(true),
            Action::PrevBlock => self.change_block(false),
            Action::ToggleHelp => {
                self.help = !self.help;
                self.help_scroll = 0;
            }
            Action::Quit => self.quit = true,
            Action::Tick(dt) => self.tick(dt),
            Action::SourceScope => self.source_scope(),
            Action::SourceSort => self.source_sort(),
            Action::HotLine => self.hot_line(true),
            Action::PrevHotLine => self.hot_line(false),
            other => self.apply_view(other),
        }
        // A launch change drops the selected line and, when the scope is
        // the launch, sums the new one.
        if self.source.selected_in != self.replay.data.launch {
            self.source.selected = None;
        }
        self.refresh_launch_table();
    }

    // The source view.

    /// Per pc, the numbers of the source view's scope.
    pub fn source_table(&self) -> std::borrow::Cow<'_, [LineStats]> {
        let d = &self.replay.data;
        match self.source.scope {
            Scope::Warp => source::block_table(d, Some(self.warp)).into(),
            Scope::Block => source::block_table(d, None).into(),
            Scope::Launch => match &self.source.launch_table {
                Some((l, t)) if *l == d.launch => t.as_slice().into(),
                _ => Vec::new().into(),
            },
        }
    }

    /// Makes sure the launch-wide table of the loaded launch is there
    /// when the scope is the launch (read from the trace once per launch).
    fn refresh_launch_table(&mut self) {
        let launch = self.replay.data.launch;
        if self.source.scope != Scope::Launch
            || self
                .source
                .launch_table
                .as_ref()
                .is_some_and(|t| t.0 == launch)
        {
            return;
        }
        match self.replay.launch_table(launch) {
            Ok(t) => self.source.launch_table = Some((launch, t)),
            Err(e) => {
                self.source.scope = Scope::Block;
                self.note(&format!("cannot sum the launch: {e}"));
            }
        }
    }

    fn source_scope(&mut self) {
        self.source.scope = self.source.scope.next();
        self.refresh_launch_table();
        self.source.selected = None;
    }

    fn source_sort(&mut self) {
        let cols = source::sort_columns(&self.source_table());
        let i = cols.iter().position(|c| *c == self.source.sort);
        self.source.sort = cols[i.map_or(0, |i| (i + 1) % cols.len())];
    }

    fn hot_line(&mut self, forward: bool) {
        let hot = source::hot_pcs(&self.source_table(), self.source.sort);
        if hot.is_empty() {
            self.note("no line has numbers in this scope");
            return;
        }
        let i = self
            .source
            .selected
            .and_then(|pc| hot.iter().position(|&h| h == pc));
        let j = match (i, forward) {
            (None, _) => 0,
            (Some(i), true) if i + 1 < hot.len() => i + 1,
            (Some(i), false) if i > 0 => i - 1,
            _ => {
                self.note("no more hot lines (the next press starts again at the hottest)");
                self.source.selected = None;
                return;
            }
        };
        self.source.selected = Some(hot[j]);
        self.source.selected_in = self.replay.data.launch;
    }

    fn tick(&mut self, dt: Duration) {
        if !self.playing {
            return;
        }
        self.carry += dt.as_secs_f64() * self.speed() as f64;
        let whole = self.carry.floor();
        self.carry -= whole;
        let end = self.replay.data.end;
        self.cycle = self.cycle.saturating_add(whole as u64).min(end);
        if self.cycle == end {
            // Play on into the next launch, or stop at the last one's end.
            if self.replay.data.launch + 1 < self.replay.launch_count() {
                self.goto_launch(self.replay.data.launch + 1);
            } else {
                self.playing = false;
            }
        }
    }

    fn step_inst(&mut self, forward: bool) {
        let issues = self.replay.data.warp_issues(self.warp);
        let c = self.cycle;
        let target = if forward {
            issues.iter().find(|i| i.cycle > c)
        } else {
            issues.iter().rev().find(|i| i.cycle < c)
        };
        match target {
            Some(i) => self.cycle = i.cycle,
            None => self.note("no more instructions of this warp in this launch"),
        }
    }

    /// Issue cycles of the focused warp that begin a merge stage, named by
    /// the kernel's stage marks (the generator's; a kernel without marks
    /// has no stages).
    pub fn stage_starts(&self) -> Vec<(u64, String)> {
        let marks = &self.replay.kernel().source.stages;
        let mut out = Vec::new();
        for i in self.replay.data.warp_issues(self.warp) {
            if let Some(m) = marks.iter().find(|m| m.pc == i.pc) {
                out.push((i.cycle, m.label.clone()));
            }
        }
        out
    }

    /// The merge stage the cursor is in, if any.
    pub fn current_stage(&self) -> Option<String> {
        let c = self.cycle;
        self.stage_starts()
            .into_iter()
            .rev()
            .find(|s| s.0 <= c)
            .map(|s| s.1)
    }

    fn stage(&mut self, forward: bool) {
        let starts = self.stage_starts();
        let c = self.cycle;
        let target = if forward {
            starts.iter().find(|s| s.0 > c)
        } else {
            starts.iter().rev().find(|s| s.0 < c)
        };
        match target {
            Some(s) => self.cycle = s.0,
            None => self.note("no more merge stages of this warp in this launch"),
        }
    }

    fn conflict(&mut self, forward: bool) {
        let smem = &self.replay.data.smem;
        let c = self.cycle;
        let hit = if forward {
            smem.iter().find(|a| a.conflicts > 0 && a.cycle > c)
        } else {
            smem.iter().rev().find(|a| a.conflicts > 0 && a.cycle < c)
        };
        match hit.map(|a| (a.cycle, a.warp)) {
            Some((cycle, warp)) => {
                self.cycle = cycle;
                self.warp = warp;
            }
            None => self.note("no more bank conflicts in this block and launch"),
        }
    }

    fn change_block(&mut self, forward: bool) {
        let d = &self.replay.data;
        let blocks = &d.detail_blocks;
        if blocks.len() < 2 {
            self.note("only one block has detail in this launch (record with --trace-level full)");
            return;
        }
        let i = d
            .block
            .and_then(|b| blocks.iter().position(|&x| x == b))
            .unwrap_or(0);
        let j = if forward {
            (i + 1) % blocks.len()
        } else {
            (i + blocks.len() - 1) % blocks.len()
        };
        let (launch, block) = (d.launch, blocks[j]);
        if let Err(e) = self.replay.load(launch, block) {
            self.note(&e.to_string());
        }
        self.cycle = self
            .cycle
            .clamp(self.replay.data.start, self.replay.data.end);
        self.clamp_warp();
    }

    fn goto_launch(&mut self, launch: usize) {
        if launch >= self.replay.launch_count() {
            self.note("this is the last kernel launch");
            return;
        }
        let block = self
            .replay
            .data
            .block
            .unwrap_or(self.replay.header().options.focus.block);
        match self.replay.load(launch, block) {
            Ok(()) => {
                self.cycle = self.replay.data.start;
                self.clamp_warp();
            }
            Err(e) => {
                self.playing = false;
                self.note(&e.to_string());
            }
        }
    }

    fn clamp_warp(&mut self) {
        let n = self.replay.data.warps();
        if n > 0 && self.warp >= n {
            self.warp = 0;
        }
    }

    fn note(&mut self, msg: &str) {
        self.message = Some(msg.to_string());
    }

    /// The cursor's position in the launch, in percent.
    pub fn percent(&self) -> u64 {
        let d = &self.replay.data;
        let len = (d.end - d.start).max(1);
        (self.cycle - d.start) * 100 / len
    }
}
