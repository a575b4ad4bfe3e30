//! Tests of issue 29's views: the bank inspector, key ranks and the slab
//! cursor, the legend, panel focus, prompts and playback speed. Frames are
//! pinned at 80x24 and 200x50.

use std::io::Cursor;

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

use crate::app::{Panel, default_speed};
use crate::synthetic::Synthetic;
use crate::{Action, App, Replay, press_keys};

fn app_for(s: &Synthetic) -> App {
    let bytes = s.write(Vec::new()).unwrap();
    App::new(Replay::new(Box::new(Cursor::new(bytes))).unwrap())
}

/// A warp of 32 lanes with 16 keys each on 32 banks: its store of row `r`
/// writes word `lane * 16 + r`, a 16-way conflict (16 wavefronts, 15
/// conflicts).
fn hotsort32() -> Synthetic {
    Synthetic {
        lanes: 32,
        regs: 16,
        warps: 1,
        banks: 32,
        ..Synthetic::default()
    }
}

fn frame(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    t.backend().to_string()
}

fn buffer(app: &App, w: u16, h: u16) -> ratatui::buffer::Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    t.backend().buffer().clone()
}

#[test]
fn bank_rows_name_their_instruction_and_keep_their_counts_whole_at_80_columns() {
    let mut a = app_for(&hotsort32());
    a.apply(Action::NextConflict);
    let pc = a
        .data()
        .smem
        .iter()
        .find(|s| s.cycle == a.cycle)
        .unwrap()
        .pc;
    let f = frame(&a, 80, 24);
    // Before: `w0s✗1` (the 15 cut to 1, no instruction).
    assert!(f.contains(&format!("▶w0 pc{pc} st✗15")), "{f}");
    let f = frame(&a, 200, 50);
    assert!(f.contains(&format!("w0  pc{pc:<4} st✗15")), "{f}");
}

#[test]
fn the_bank_inspector_explains_a_sixteen_way_conflict() {
    let mut a = app_for(&hotsort32());
    a.apply(Action::NextConflict);
    a.apply(Action::FocusNext);
    a.apply(Action::FocusNext);
    assert_eq!(a.focus, Panel::Banks);
    a.apply(Action::Open);
    assert!(a.bank_inspector);
    let f = frame(&a, 80, 24);
    assert!(
        f.contains("16 wavefronts, minimum 1 (1 per phase of 32 lanes): 15 excess = 15 conflicts"),
        "{f}"
    );
    assert!(f.contains("st.shared"), "{f}");
    assert!(
        f.contains("bank  0 phase 0: 16 words ← lanes 0 2 4 6"),
        "{f}"
    );
    assert!(f.contains("✗ 1"), "lane 1 collides: {f}");
    assert_snapshot!("bank_inspector_80x24", f);
    assert_snapshot!("bank_inspector_200x50", frame(&a, 200, 50));
    a.apply(Action::Back);
    assert!(!a.bank_inspector && !a.quit);
}

#[test]
fn the_worst_conflict_key_finds_the_most_conflicting_access() {
    let mut a = app_for(&Synthetic {
        warps: 2,
        ..hotsort32()
    });
    a.apply(Action::WorstConflict);
    let most = a.data().smem.iter().map(|s| s.conflicts).max().unwrap();
    let sel = a.selected_access().unwrap();
    assert_eq!(a.data().smem[sel].conflicts, most);
    assert_eq!(a.data().smem[sel].cycle, a.cycle);
    assert_eq!(a.data().smem[sel].warp, a.warp);
}

#[test]
fn a_keys_colour_stays_while_other_keys_load() {
    // Lane 0 of r0 loads first; while r1..r3 load, nothing moves it. With
    // the old colour scale (min to max of what was loaded so far) its
    // colour changed with every load.
    let mut a = app_for(&Synthetic::default());
    let loads: Vec<u64> = a.data().regs[0]
        .writes()
        .iter()
        .take(4)
        .map(|w| w.cycle)
        .collect();
    let colour_at = |a: &mut App, cycle| {
        a.cycle = cycle;
        // Row r0 is the first line under the lane header; lane 0 starts
        // after the 5-column gutter.
        buffer(a, 200, 50)[(1 + 5, 2)].bg
    };
    let first = colour_at(&mut a, loads[0]);
    assert_ne!(first, Color::Reset);
    for &c in &loads[1..] {
        assert_eq!(colour_at(&mut a, c), first, "cycle {c}");
    }
}

#[test]
fn the_inspector_line_names_the_whole_key_its_rank_and_where_it_ends() {
    let mut a = app_for(&Synthetic::default());
    a.apply(Action::SeekTenths(5));
    a.apply(Action::LaneRight);
    a.apply(Action::Down);
    let file = a.data().regs[0].at(a.cycle);
    let key = file.values().nth(1).unwrap()[1];
    let f = frame(&a, 200, 50);
    let want = format!("▼ r1 lane 1 = {key:08x} · rank ");
    assert!(f.contains(&want), "{want} in {f}");
    assert!(f.contains("· ends lane "), "{f}");
}

#[test]
fn writes_in_flight_and_just_landed_are_marked() {
    let mut a = app_for(&Synthetic::default());
    // The synthetic writes land 4 cycles after their issue.
    let w = a.data().regs[0].writes()[0].clone();
    a.cycle = w.cycle - 2;
    assert!(frame(&a, 200, 50).contains("▼ r0 lane 0: not written yet"));
    let b = buffer(&a, 200, 50);
    assert_eq!(
        b[(1 + 5 + 8, 2)].symbol(),
        "~",
        "pending in r0's first cell"
    );
    a.cycle = w.cycle;
    let b = buffer(&a, 200, 50);
    assert_eq!(b[(1 + 5 + 8, 2)].symbol(), "*", "just written");
}

#[test]
fn at_80_columns_a_64_lane_slab_shows_every_lane() {
    let mut a = app_for(&Synthetic {
        lanes: 64,
        regs: 16,
        warps: 1,
        banks: 64,
        ..Synthetic::default()
    });
    a.apply(Action::SeekTenths(10));
    let f = frame(&a, 80, 24);
    let header = f.lines().nth(1).unwrap();
    // Before: 33 lanes, and the label "32" over the right border.
    assert!(header.contains("56"), "{f}");
    assert!(header.ends_with("│\""), "{header}");
    assert!(!f.contains("lanes 0-"), "nothing hidden: {f}");
    assert_snapshot!("slab_64_lanes_80x24", f);
    // Zoomed in, the panel says which lanes it shows.
    a.apply(Action::ZoomIn);
    let f = frame(&a, 80, 24);
    assert!(f.contains("lanes 0-31 of 64"), "{f}");
}

#[test]
fn zooming_in_shows_whole_keys() {
    let mut a = app_for(&hotsort32());
    a.apply(Action::SeekTenths(5));
    let key = a.data().regs[0].at(a.cycle).values().next().unwrap()[0];
    let whole = format!("{key:08x}");
    let row_r0 = |f: &str| {
        f.lines()
            .find(|l| l.starts_with("\"│ r0"))
            .unwrap()
            .to_string()
    };
    assert!(!row_r0(&frame(&a, 200, 50)).contains(&whole));
    a.apply(Action::ZoomIn);
    a.apply(Action::ZoomIn);
    let f = frame(&a, 200, 50);
    assert!(row_r0(&f).contains(&whole), "{f}");
    assert!(f.contains("lanes 0-7 of 32"), "{f}");
    assert_snapshot!("slab_zoomed_200x50", f);
}

#[test]
fn the_help_is_a_legend_at_both_sizes() {
    let mut a = app_for(&Synthetic::default());
    a.apply(Action::ToggleHelp);
    let f = frame(&a, 200, 50);
    let all: String = crate::ui::help_text(196);
    assert!(
        all.contains("long_sb    = long_scoreboard: waiting on a global"),
        "{all}"
    );
    assert_snapshot!("help_200x50", f);
    assert_snapshot!("help_80x24", frame(&a, 80, 24));
    for _ in 0..30 {
        a.apply(Action::Down);
    }
    let f = frame(&a, 80, 24);
    assert!(f.contains("lines 31-"), "{f}");
    a.apply(Action::Back);
    assert!(!a.help && !a.quit);
}

#[test]
fn at_80_columns_panels_take_turns_with_tab() {
    let mut a = app_for(&Synthetic::default());
    let top = |a: &App| frame(a, 80, 24).lines().next().unwrap().to_string();
    assert!(top(&a).starts_with("\"┌▸slab"), "{}", top(&a));
    a.apply(Action::FocusNext);
    assert!(top(&a).contains("▸bs"), "{}", top(&a));
    a.apply(Action::FocusNext);
    a.apply(Action::FocusNext);
    let f = frame(&a, 80, 24);
    assert!(f.contains("▸stalls"), "{f}");
    a.apply(Action::FocusNext);
    assert_eq!(a.focus, Panel::Slab);
    // Side by side at 200 columns: all four at once.
    let f = frame(&a, 200, 50);
    assert!(
        f.contains("slab") && f.contains("smem banks") && f.contains("stalls"),
        "{f}"
    );
}

#[test]
fn the_jump_prompt_reaches_cycles_pcs_warps_blocks_and_launches() {
    let mut a = app_for(&Synthetic::default());
    press_keys(&mut a, ":100\n").unwrap();
    assert_eq!(a.cycle, 100);
    let pc = a.data().warp_issues(0)[10].pc;
    press_keys(&mut a, &format!(":pc {pc}\n")).unwrap();
    assert_eq!(a.data().current_issue(0, a.cycle).unwrap().pc, pc);
    press_keys(&mut a, "gw 1\n").unwrap();
    assert_eq!(a.warp, 1);
    press_keys(&mut a, ":b 1\n").unwrap();
    assert_eq!(a.data().block, Some(1));
    press_keys(&mut a, ":sm 0\n").unwrap();
    assert_eq!(a.data().sm, Some(0));
    press_keys(&mut a, ":copy\n").unwrap();
    assert_eq!(a.data().launch, 1);
    press_keys(&mut a, ":l 1\n").unwrap();
    assert_eq!(a.data().launch, 0);
    press_keys(&mut a, ":b 9\n").unwrap();
    assert_eq!(
        a.message.as_deref(),
        Some("block 9 has no detail in this launch")
    );
    // The prompt shows on the status line while typed; q is text there.
    press_keys(&mut a, ":pq").unwrap();
    assert!(!a.quit);
    let status = frame(&a, 80, 24).lines().last().unwrap().to_string();
    assert!(status.starts_with("\":pq▏"), "{status}");
    press_keys(&mut a, "\x1b").unwrap();
    assert!(a.prompt.is_none() && !a.quit);
}

#[test]
fn search_finds_the_warps_next_issue_of_matching_ir_text() {
    let mut a = app_for(&Synthetic::default());
    press_keys(&mut a, "/ST.SHARED\n").unwrap();
    let pc = a.data().current_issue(0, a.cycle).unwrap().pc;
    let k = a.replay.kernel();
    let line = &k.source.lines[k.line_of_pc[pc as usize].unwrap()].text;
    assert!(line.contains("st.shared"), "{line}");
    let first = a.cycle;
    press_keys(&mut a, "/\n").unwrap();
    assert!(a.cycle > first, "an empty search repeats the last one");
    press_keys(&mut a, "/no such text\n").unwrap();
    assert!(a.message.as_deref().unwrap().contains("never issues"));
}

#[test]
fn the_default_speed_plays_a_launch_in_about_half_a_minute() {
    use crate::app::SPEEDS;
    // The 32K-cycle bs kernel of a 64K-key sort: 1,000 cycles/s, 33 s
    // (before: 10 cycles/s, 54 minutes).
    assert_eq!(SPEEDS[default_speed(32_768)], 1_000);
    assert_eq!(SPEEDS[default_speed(600_000)], 20_000);
    assert_eq!(SPEEDS[default_speed(10)], 1);
    // No step is more than 2.5 times the one before.
    assert!(SPEEDS.windows(2).all(|w| w[1] * 2 <= w[0] * 5));
    let a = app_for(&Synthetic::default());
    let span = a.data().end - a.data().start;
    let seconds = span as f64 / a.speed() as f64;
    assert!(
        (12.0..=75.0).contains(&seconds),
        "{seconds} s for {span} cycles"
    );
}

#[test]
fn the_machine_view_spans_every_launch_and_opens_the_block_and_warp_at_the_cursor() {
    let mut a = app_for(&Synthetic {
        blocks: 4,
        ..Synthetic::default()
    });
    a.apply(Action::SeekTenths(5));
    a.apply(Action::MachineView);
    let f = frame(&a, 80, 24);
    assert!(f.contains("▶sm0") && f.contains(" sm1"), "{f}");
    // Both launches, numbered where each begins; the cursor's is named.
    let top = f.lines().nth(1).unwrap();
    assert!(top.contains("launch 1─") && top.contains("2─"), "{top}");
    assert!(f.contains("of launch 1/2 bs: 4 blocks"), "{f}");
    assert_snapshot!("machine_ipc_80x24", f);
    a.apply(Action::MachineView);
    let f = frame(&a, 200, 50);
    assert!(f.contains("dominant stall"), "{f}");
    assert_snapshot!("machine_stall_200x50", f);
    // `]` walks into the next launch, stopping at its start; `[` back.
    let mut presses = 0;
    while a.data().launch == 0 && presses < 200 {
        a.apply(Action::LaneRight);
        presses += 1;
    }
    assert_eq!((a.data().launch, a.cycle), (1, a.data().start), "{presses}");
    assert!(frame(&a, 80, 24).contains("of launch 2/2"));
    a.apply(Action::LaneLeft);
    assert_eq!(a.data().launch, 0);
    // Enter opens the block SM 1 ran at the cursor, at the cursor's cycle,
    // on the warp that issued last before it.
    a.apply(Action::SeekTenths(5));
    let cycle = a.cycle;
    a.apply(Action::Down);
    let run = a.replay.run_machine().unwrap();
    let block = run.launches[0].machine.block_at(1, cycle).unwrap();
    a.apply(Action::Open);
    assert_eq!(a.machine_view, 0);
    assert_eq!((a.data().block, a.data().sm), (Some(block), Some(1)));
    assert_eq!(a.cycle, cycle);
    let d = a.data();
    let last = (0..d.warps())
        .filter_map(|w| d.current_issue(w, cycle).map(|i| i.cycle))
        .max();
    assert_eq!(d.current_issue(a.warp, cycle).map(|i| i.cycle), last);
}

/// Two blocks of one warp on two SMs; block 0 (the focus) has shared
/// stores with 3 conflicts, block 1 one with 7: the launch's worst.
fn worst_in_block_1() -> App {
    use traces::{
        AccessKind, Event, Focus, KernelSource, TraceHeader, TraceLevel, TraceOptions, TraceWriter,
    };
    let mut h = TraceHeader::new(TraceOptions {
        level: TraceLevel::Full,
        focus: Focus {
            block: 0,
            warp: None,
        },
        counter_interval_cycles: 100,
    });
    h.config = vec![("smem_banks".into(), 8.into())];
    h.kernels.push(KernelSource::from_text(
        "k",
        "block0:\n    st.shared.b32 [r1], r2\n    exit\n",
    ));
    let mut w = TraceWriter::new(Vec::new(), &h).unwrap();
    let mut ev = vec![Event::KernelLaunch {
        cycle: 0,
        launch: 0,
        kernel: 0,
        grid: [2, 1, 1],
        block: [8, 1, 1],
        label: "two blocks".into(),
    }];
    for block in 0..2 {
        ev.push(Event::BlockStart {
            cycle: 0,
            sm: block,
            block,
        });
    }
    for (block, cycle, conflicts) in [(0, 5, 3), (1, 8, 7), (0, 12, 3)] {
        ev.push(Event::Issue {
            cycle: cycle - 1,
            sm: block,
            sched: 0,
            block,
            warp: 0,
            pc: 0,
            active: 0xff,
            slots: 1,
        });
        ev.push(Event::SharedAccess {
            cycle,
            sm: block,
            block,
            warp: 0,
            pc: 0,
            kind: AccessKind::Store,
            wavefronts: conflicts + 1,
            conflicts,
            words_per_bank: vec![1; 8],
            bytes: 4,
            active: 0b11,
            addrs: vec![0, 32],
        });
    }
    for block in 0..2 {
        ev.push(Event::Issue {
            cycle: 15,
            sm: block,
            sched: 0,
            block,
            warp: 0,
            pc: 1,
            active: 0xff,
            slots: 1,
        });
        ev.push(Event::BlockEnd {
            cycle: 20,
            sm: block,
            block,
        });
    }
    ev.push(Event::KernelEnd {
        cycle: 21,
        launch: 0,
    });
    for e in &ev {
        w.record(e).unwrap();
    }
    let bytes = w.finish().unwrap();
    App::new(Replay::new(Box::new(Cursor::new(bytes))).unwrap())
}

#[test]
fn the_worst_conflict_key_goes_to_the_launchs_worst_in_another_block() {
    let mut a = worst_in_block_1();
    assert_eq!(a.data().block, Some(0));
    a.apply(Action::WorstConflict);
    // Before, `x` looked only at the loaded block: 3 conflicts at cycle 5.
    assert_eq!((a.data().block, a.cycle, a.warp), (Some(1), 8, 0));
    let sel = a.selected_access().unwrap();
    assert_eq!(a.data().smem[sel].conflicts, 7);
    assert!(a.message.is_none(), "{:?}", a.message);
}
