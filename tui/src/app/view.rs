//! The actions that move between and inside views rather than through
//! time: panel focus, the inspectors, the slab cursor and zoom, the help's
//! scroll, and the `:` and `/` prompts.

use super::{Action, App, Panel, Prompt, PromptKind};
use crate::jump::{self, Target};

impl App {
    /// Applies the view actions (called by [`App::apply`]).
    pub(super) fn apply_view(&mut self, action: Action) {
        match action {
            Action::FocusNext => self.focus = self.focus.step(true),
            Action::FocusPrev => self.focus = self.focus.step(false),
            Action::Open => self.open(),
            Action::Back => self.back(),
            Action::MachineView => {
                self.machine_view = (self.machine_view + 1) % 3;
                if self.machine_view == 1
                    && let Err(e) = self.replay.read_run_machine()
                {
                    self.machine_view = 0;
                    self.note(&format!("cannot read the machine view: {e}"));
                }
            }
            Action::Up | Action::Down if self.machine_view > 0 && !self.help => {
                let sms = self.replay.run_machine().map_or(1, |r| r.sms.max(1));
                self.machine_sm = if action == Action::Down {
                    (self.machine_sm + 1).min(sms - 1)
                } else {
                    self.machine_sm.saturating_sub(1)
                };
            }
            Action::LaneLeft | Action::LaneRight if self.machine_view > 0 => {
                self.machine_step(action == Action::LaneRight);
            }
            Action::Up | Action::Down => {
                let down = action == Action::Down;
                if self.help {
                    self.help_scroll = if down {
                        self.help_scroll.saturating_add(1)
                    } else {
                        self.help_scroll.saturating_sub(1)
                    };
                } else if down {
                    self.cell.row += 1;
                } else {
                    self.cell.row = self.cell.row.saturating_sub(1);
                }
                self.clamp_cell();
            }
            Action::LaneLeft => self.cell.lane = self.cell.lane.saturating_sub(1),
            Action::LaneRight => {
                self.cell.lane += 1;
                self.clamp_cell();
            }
            Action::ZoomIn => {
                let lanes = self.slab_lanes().max(1);
                if (lanes >> (self.zoom + 1)) >= 1 {
                    self.zoom += 1;
                }
            }
            Action::ZoomOut => self.zoom = self.zoom.saturating_sub(1),
            Action::WorstConflict => self.worst_conflict(),
            Action::OpenPrompt(kind) => {
                self.prompt = Some(Prompt {
                    kind,
                    text: String::new(),
                });
            }
            Action::PromptChar(c) => {
                if let Some(p) = &mut self.prompt {
                    p.text.push(c);
                }
            }
            Action::PromptBack => {
                if let Some(p) = &mut self.prompt {
                    p.text.pop();
                }
            }
            _ => {}
        }
    }

    /// The focused warp's slab rows (see [`crate::rank::slab_rows`]).
    pub fn slab_rows(&self) -> Vec<traces::RegRef> {
        match self.data().regs.get(self.warp as usize) {
            Some(r) => crate::rank::slab_rows(&self.replay.kernel().key_regs, r),
            None => Vec::new(),
        }
    }

    /// The bank geometry the header records (banks as the accesses list
    /// them, 4-byte words when the header does not say).
    pub fn geometry(&self) -> crate::smem::Geometry {
        let h = self.replay.header();
        let listed = self
            .data()
            .smem
            .first()
            .map_or(32, |a| a.words_per_bank.len() as u64);
        let banks = h.config_u64("smem_banks").unwrap_or(listed);
        let bank_bytes = h.config_u64("smem_bank_width_bytes").unwrap_or(4);
        crate::smem::Geometry {
            banks: u32::try_from(banks).unwrap_or(32),
            bank_bytes: u32::try_from(bank_bytes).unwrap_or(4),
        }
    }

    /// The selected shared access: the focused warp's latest at or before
    /// the cursor, else the block's latest (an index into `data().smem`).
    pub fn selected_access(&self) -> Option<usize> {
        let smem = &self.data().smem;
        let n = smem.partition_point(|a| a.cycle <= self.cycle);
        (0..n)
            .rev()
            .find(|&i| smem[i].warp == self.warp)
            .or(n.checked_sub(1))
    }

    /// The focused warp's issue of the access `i` (its latest issue of that
    /// pc at or before the access), if recorded.
    pub fn issue_of_access(&self, i: usize) -> Option<u64> {
        let a = self.data().smem.get(i)?;
        let issues = self.data().warp_issues(a.warp);
        let n = issues.partition_point(|x| x.cycle <= a.cycle);
        issues[..n]
            .iter()
            .rev()
            .find(|x| x.pc == a.pc)
            .map(|x| x.cycle)
    }

    /// Lanes of the focused warp's slab (0 without register writes).
    pub fn slab_lanes(&self) -> usize {
        self.data()
            .regs
            .get(self.warp as usize)
            .map_or(0, |r| r.lanes())
    }

    fn clamp_cell(&mut self) {
        let lanes = self.slab_lanes().max(1) as u32;
        self.cell.lane = self.cell.lane.min(lanes - 1);
        let rows = self.slab_rows().len().max(1);
        self.cell.row = self.cell.row.min(rows - 1);
    }

    fn open(&mut self) {
        if let Some(p) = self.prompt.take() {
            return self.run_prompt(p);
        }
        if self.machine_view > 0 {
            return self.open_sm();
        }
        match self.focus {
            Panel::Banks => self.bank_inspector = !self.bank_inspector,
            _ => self.note("Enter opens the bank inspector: Tab to the banks panel first"),
        }
    }

    fn back(&mut self) {
        if self.prompt.is_some() {
            self.prompt = None;
        } else if self.help {
            self.help = false;
        } else if self.machine_view > 0 {
            self.machine_view = 0;
        } else if self.bank_inspector {
            self.bank_inspector = false;
        } else {
            self.quit = true;
        }
    }

    /// The machine view's `[ ]`: a hundredth of the whole run, stopping at
    /// each launch's start so that no launch is stepped over.
    fn machine_step(&mut self, forward: bool) {
        let Some(run) = self.replay.run_machine() else {
            return;
        };
        let launch = self.data().launch.min(run.launches.len().saturating_sub(1));
        let step = (run.total() / 100).max(1);
        let pos = run.position(launch, self.cycle);
        let here = run.offset(launch);
        let target = if forward {
            let next = here + run.launches.get(launch).map_or(1, |l| l.cycles());
            if pos + step < next {
                pos + step
            } else if launch + 1 < run.launches.len() {
                next
            } else {
                next - 1
            }
        } else if pos > here {
            pos.saturating_sub(step).max(here)
        } else {
            pos.saturating_sub(step)
        };
        let (l, cycle) = run.at(target);
        if l != launch {
            self.goto_launch(l);
        }
        let d = self.data();
        self.cycle = cycle.clamp(d.start, d.end);
    }

    /// The machine view's `Enter`: the block the selected SM ran at the
    /// cursor, focused on its warp that issued last before it, at the
    /// cursor's cycle.
    fn open_sm(&mut self) {
        let (sm, cycle, launch) = (self.machine_sm, self.cycle, self.data().launch);
        let block = match self.replay.read_run_machine() {
            Ok(run) => run
                .launches
                .get(launch)
                .and_then(|l| l.machine.block_at(sm, cycle)),
            Err(e) => return self.note(&format!("cannot read the machine view: {e}")),
        };
        let Some(block) = block else {
            return self.note(&format!("sm{sm} runs no block at cycle {cycle}"));
        };
        if !self.data().detail_blocks.contains(&block) {
            return self.note(&format!(
                "block {block} has no detail (record with --trace-level full)"
            ));
        }
        if let Err(e) = self.replay.load(launch, block) {
            return self.note(&e.to_string());
        }
        self.machine_view = 0;
        self.cycle = cycle.clamp(self.data().start, self.data().end);
        let d = self.data();
        self.warp = (0..d.warps())
            .max_by_key(|&w| d.current_issue(w, cycle).map(|i| i.cycle))
            .unwrap_or(0);
    }

    /// `x`: the access with the most bank conflicts in the whole launch
    /// (the earliest of equals), loading its block if another.
    fn worst_conflict(&mut self) {
        let launch = self.data().launch;
        let mark = match self.replay.worst_conflict(launch) {
            Ok(Some(m)) => m,
            Ok(None) => return self.note("no bank conflicts in this launch"),
            Err(e) => return self.note(&e.to_string()),
        };
        if self.data().block != Some(mark.block)
            && let Err(e) = self.replay.load(launch, mark.block)
        {
            return self.note(&e.to_string());
        }
        let d = self.data();
        self.cycle = mark.cycle.clamp(d.start, d.end);
        self.warp = mark.warp;
    }

    fn run_prompt(&mut self, p: Prompt) {
        match p.kind {
            PromptKind::Search => {
                let text = if p.text.trim().is_empty() {
                    self.last_search.clone()
                } else {
                    p.text.trim().to_string()
                };
                if !text.is_empty() {
                    self.search(&text);
                    self.last_search = text;
                }
            }
            PromptKind::Jump => {
                if let Some(t) = jump::parse(&p.text) {
                    self.jump(t);
                }
            }
        }
    }

    /// The focused warp's next issue (after the cursor, else from the
    /// launch's start) whose IR line contains `text`, ignoring case.
    fn search(&mut self, text: &str) {
        let needle = text.to_lowercase();
        let k = self.replay.kernel();
        let matches = |pc: u32| {
            k.line_of_pc
                .get(pc as usize)
                .copied()
                .flatten()
                .is_some_and(|l| k.source.lines[l].text.to_lowercase().contains(&needle))
        };
        let issues = self.replay.data.warp_issues(self.warp);
        let c = self.cycle;
        let hit = issues
            .iter()
            .find(|i| i.cycle > c && matches(i.pc))
            .or_else(|| issues.iter().find(|i| matches(i.pc)))
            .map(|i| i.cycle);
        match hit {
            Some(cycle) => self.cycle = cycle,
            None => self.note(&format!(
                "warp {} never issues a line with \"{text}\"",
                self.warp
            )),
        }
    }

    fn jump(&mut self, t: Target) {
        match t {
            Target::Cycle(n) => {
                let spans = self.replay.launch_spans();
                let d = self.data();
                if !(d.start..=d.end).contains(&n) {
                    match spans.iter().position(|&(s, e)| (s..=e).contains(&n)) {
                        Some(l) => self.goto_launch(l),
                        None => return self.note(&format!("no launch runs at cycle {n}")),
                    }
                }
                let d = self.data();
                self.cycle = n.clamp(d.start, d.end);
            }
            Target::Pc(pc) => {
                let issues = self.replay.data.warp_issues(self.warp);
                let c = self.cycle;
                let hit = issues
                    .iter()
                    .find(|i| i.cycle > c && i.pc == pc)
                    .or_else(|| issues.iter().find(|i| i.pc == pc));
                match hit.map(|i| i.cycle) {
                    Some(cycle) => self.cycle = cycle,
                    None => self.note(&format!("warp {} never issues pc {pc} here", self.warp)),
                }
            }
            Target::Warp(w) => {
                if w < self.data().warps() {
                    self.warp = w;
                } else {
                    self.note(&format!(
                        "the block has warps 0-{}",
                        self.data().warps().saturating_sub(1)
                    ));
                }
            }
            Target::Block(b) => {
                if !self.data().detail_blocks.contains(&b) {
                    return self.note(&format!("block {b} has no detail in this launch"));
                }
                let launch = self.data().launch;
                if let Err(e) = self.replay.load(launch, b) {
                    return self.note(&e.to_string());
                }
                let d = self.data();
                self.cycle = self.cycle.clamp(d.start, d.end);
                self.clamp_warp();
            }
            Target::Sm(sm) => {
                self.machine_sm = sm;
                self.open_sm();
            }
            Target::Launch(n) => {
                if n == 0 || n > self.replay.launch_count() {
                    return self.note(&format!("launches are 1-{}", self.replay.launch_count()));
                }
                self.goto_launch(n - 1);
            }
            Target::Label(text) => {
                let needle = text.to_lowercase();
                let count = self.replay.launch_count();
                let now = self.data().launch;
                let hit = (1..=count)
                    .map(|i| (now + i) % count)
                    .find(|&l| self.replay.title_of(l).to_lowercase().contains(&needle));
                match hit {
                    Some(l) => self.goto_launch(l),
                    None => self.note(&format!("no launch is called \"{text}\"")),
                }
            }
        }
    }
}
