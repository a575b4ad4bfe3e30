//! State-update tests and rendered-frame snapshots, on synthetic traces
//! built with the real writer (no simulator needed).

use std::io::Cursor;
use std::time::Duration;

use insta::assert_snapshot;
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use traces::{Focus, TraceLevel};

use crate::synthetic::Synthetic;
use crate::{Action, App, Replay};

fn app_for(s: &Synthetic) -> App {
    let bytes = s.write(Vec::new()).unwrap();
    App::new(Replay::new(Box::new(Cursor::new(bytes))).unwrap())
}

fn app() -> App {
    app_for(&Synthetic::default())
}

fn frame(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    t.backend().to_string()
}

/// The app with the cursor on the focused warp's `label` stage.
fn at_stage(mut a: App, label: &str) -> App {
    let (cycle, _) = a.stage_starts().into_iter().find(|s| s.1 == label).unwrap();
    while a.cycle < cycle {
        a.apply(Action::NextStage);
    }
    assert_eq!(a.cycle, cycle);
    a
}

#[test]
fn a_replay_starts_at_the_first_launch_on_the_focus_warp() {
    let a = app();
    assert_eq!((a.data().launch, a.cycle, a.warp), (0, 0, 0));
    assert_eq!(a.data().block, Some(0));
    assert_eq!(a.data().warps(), 2);
    assert_eq!(a.replay.kernel().source.name, "bs");
}

#[test]
fn cycle_steps_stop_at_the_launch_bounds() {
    let mut a = app();
    a.apply(Action::BackCycle);
    assert_eq!(a.cycle, 0);
    a.apply(Action::StepCycle);
    a.apply(Action::StepCycle);
    assert_eq!(a.cycle, 2);
    a.apply(Action::SeekTenths(10));
    let end = a.data().end;
    assert_eq!(a.cycle, end);
    a.apply(Action::StepCycle);
    assert_eq!(a.cycle, end);
}

#[test]
fn instruction_steps_visit_each_issue_of_the_warp_and_come_back() {
    let mut a = app();
    let issues: Vec<u64> = a.data().warp_issues(0).iter().map(|i| i.cycle).collect();
    for want in &issues[..5] {
        a.apply(Action::StepInst);
        assert_eq!(a.cycle, *want);
    }
    for want in issues[..4].iter().rev() {
        a.apply(Action::BackInst);
        assert_eq!(a.cycle, *want);
    }
    a.apply(Action::BackInst);
    assert_eq!(a.cycle, issues[0], "nothing before the first issue");
    assert!(a.message.is_some());
}

#[test]
fn kernel_navigation_loads_the_next_launch_and_back() {
    let mut a = app();
    a.apply(Action::SeekTenths(5));
    a.apply(Action::NextKernel);
    assert_eq!(a.data().launch, 1);
    assert_eq!(a.replay.kernel().source.name, "copy");
    assert_eq!(a.cycle, a.data().start);
    a.apply(Action::NextKernel);
    assert_eq!(a.data().launch, 1);
    assert_eq!(a.message.as_deref(), Some("this is the last kernel launch"));
    a.apply(Action::PrevKernel);
    assert_eq!((a.data().launch, a.cycle), (0, 0));
}

#[test]
fn the_status_line_names_the_launch_by_its_label_or_else_its_kernel() {
    let mut a = app();
    assert_eq!(a.replay.launch_title(), "bs: 2 blocks");
    let status = |a: &App| frame(a, 80, 24).lines().last().unwrap().to_string();
    assert!(
        status(&a).starts_with("\" bs: 2 blocks  1/2 "),
        "{}",
        status(&a)
    );
    // The synthetic trace's second launch has no label.
    a.apply(Action::NextKernel);
    assert_eq!(a.replay.launch_title(), "copy");
    assert!(status(&a).starts_with("\" copy  2/2 "), "{}", status(&a));
}

#[test]
fn frame_80x24_of_a_launch_with_a_long_label_keeps_the_help_hint() {
    let a = app_for(&Synthetic {
        label: Some("level 12 bucket 117/128 (1048576 keys): find_buckets".to_string()),
        ..Synthetic::default()
    });
    let f = frame(&a, 80, 24);
    let status = f.lines().last().unwrap();
    assert!(
        status.contains("level 12 bucket 117/128") && status.contains("? help"),
        "{f}"
    );
    assert_snapshot!(f);
}

#[test]
fn stage_navigation_follows_the_kernels_stage_marks() {
    let mut a = app();
    let labels: Vec<String> = a.stage_starts().into_iter().map(|s| s.1).collect();
    assert_eq!(
        labels[..4],
        ["load", "lane sort", "flip f=2", "lane merge f=2"]
    );
    a.apply(Action::NextStage);
    a.apply(Action::NextStage);
    assert_eq!(a.current_stage().as_deref(), Some("lane sort"));
    let issue = a.data().current_issue(0, a.cycle).unwrap();
    let mark = a
        .replay
        .kernel()
        .source
        .stages
        .iter()
        .find(|m| m.label == "lane sort")
        .unwrap();
    assert_eq!(issue.pc, mark.pc);
    a.apply(Action::PrevStage);
    assert_eq!(a.current_stage().as_deref(), Some("load"));
}

#[test]
fn conflict_navigation_lands_on_a_conflicting_access_and_its_warp() {
    let mut a = app();
    a.apply(Action::NextConflict);
    let hit = a.data().smem.iter().find(|s| s.cycle == a.cycle).unwrap();
    assert!(hit.conflicts > 0);
    assert_eq!(a.warp, hit.warp);
    let first = a.cycle;
    a.apply(Action::NextConflict);
    assert!(a.cycle > first);
    a.apply(Action::PrevConflict);
    assert_eq!(a.cycle, first);
}

#[test]
fn warp_and_block_selection_wrap_around() {
    let mut a = app();
    a.apply(Action::NextWarp);
    assert_eq!(a.warp, 1);
    a.apply(Action::NextWarp);
    assert_eq!(a.warp, 0);
    a.apply(Action::PrevWarp);
    assert_eq!(a.warp, 1);
    a.apply(Action::NextBlock);
    assert_eq!(a.data().block, Some(1));
    assert_eq!(a.data().sm, Some(1));
    a.apply(Action::PrevBlock);
    assert_eq!(a.data().block, Some(0));
    let mut only = app_for(&Synthetic {
        level: TraceLevel::CountersOnly,
        ..Synthetic::default()
    });
    only.apply(Action::NextBlock);
    assert_eq!(only.data().block, Some(0));
    assert!(only.message.as_deref().unwrap().contains("only one block"));
}

#[test]
fn playback_advances_by_speed_and_runs_into_the_next_launch() {
    let mut a = app();
    // From 10 cycles/s (the default plays a launch in half a minute).
    a.speed = 3;
    a.apply(Action::Tick(Duration::from_secs(1)));
    assert_eq!(a.cycle, 0, "paused");
    a.apply(Action::TogglePlay);
    a.apply(Action::Faster);
    assert_eq!(a.speed(), 20);
    a.apply(Action::Tick(Duration::from_millis(500)));
    assert_eq!(a.cycle, 10);
    a.apply(Action::Tick(Duration::from_secs(3600)));
    assert_eq!(a.data().launch, 1);
    a.apply(Action::Tick(Duration::from_secs(3600)));
    assert_eq!(a.cycle, a.data().end);
    assert!(!a.playing, "stops at the end of the last launch");
}

#[test]
fn the_slab_at_the_end_of_the_launch_is_the_sorted_slab() {
    let mut a = app();
    a.apply(Action::SeekTenths(10));
    let file = a.data().regs[0].at(a.cycle);
    let lanes = a.data().regs[0].lanes();
    let rows: Vec<&Vec<u64>> = file.values().collect();
    let lane_major: Vec<u64> = (0..lanes)
        .flat_map(|l| rows.iter().map(move |r| r[l]))
        .collect();
    assert!(lane_major.is_sorted());
    a.apply(Action::SeekTenths(0));
    assert!(a.data().regs[0].at(a.cycle).is_empty());
}

#[test]
fn help_and_quit() {
    let mut a = app();
    a.apply(Action::ToggleHelp);
    assert!(a.help);
    a.apply(Action::ToggleHelp);
    assert!(!a.help);
    a.apply(Action::Quit);
    assert!(a.quit);
}

#[test]
fn frame_80x24_at_a_flip() {
    let a = at_stage(app(), "flip f=4");
    let mut a = a;
    a.apply(Action::StepInst);
    assert_snapshot!(frame(&a, 80, 24));
}

#[test]
fn frame_160x48_at_a_bank_conflict() {
    let mut a = app();
    a.apply(Action::NextConflict);
    a.apply(Action::NextConflict);
    assert_snapshot!(frame(&a, 160, 48));
}

#[test]
fn frame_80x24_with_a_full_hotsort_slab_in_half_rows() {
    let s = Synthetic {
        lanes: 32,
        regs: 16,
        warps: 1,
        banks: 32,
        ..Synthetic::default()
    };
    let a = at_stage(app_for(&s), "lane merge f=8");
    assert_snapshot!(frame(&a, 80, 24));
}

#[test]
fn frame_160x48_with_a_full_hotsort_slab_at_a_compare_exchange() {
    let s = Synthetic {
        lanes: 32,
        regs: 16,
        warps: 1,
        banks: 32,
        ..Synthetic::default()
    };
    let mut a = at_stage(app_for(&s), "lane merge f=32");
    a.apply(Action::StepInst);
    assert_snapshot!(frame(&a, 160, 48));
}

#[test]
fn frame_80x24_shows_all_64_banks_two_per_column() {
    let s = Synthetic {
        lanes: 64,
        regs: 16,
        warps: 1,
        banks: 64,
        ..Synthetic::default()
    };
    let mut a = app_for(&s);
    a.apply(Action::NextConflict);
    let f = frame(&a, 80, 24);
    assert!(
        f.contains("│2/col           0       16      32      48      "),
        "{f}"
    );
    assert_snapshot!(f);
}

#[test]
fn frame_80x24_shows_all_32_banks_and_the_whole_note() {
    let s = Synthetic {
        lanes: 32,
        regs: 16,
        warps: 1,
        banks: 32,
        ..Synthetic::default()
    };
    let mut a = app_for(&s);
    // Past the last conflict: the note must show whole, and the bank panel
    // every bank.
    for _ in 0..100 {
        a.apply(Action::NextConflict);
    }
    assert_eq!(
        a.message.as_deref(),
        Some("no more bank conflicts in this block and launch")
    );
    let f = frame(&a, 80, 24);
    assert!(
        f.contains("no more bank conflicts in this block and launch"),
        "{f}"
    );
    assert!(
        f.contains("│bank            0       8       16      24      "),
        "{f}"
    );
    assert_snapshot!(f);
}

#[test]
fn frame_80x24_longest_note_fits() {
    let mut a = app_for(&Synthetic {
        level: TraceLevel::CountersOnly,
        ..Synthetic::default()
    });
    a.apply(Action::NextBlock);
    let note = a.message.clone().expect("a note");
    assert!(note.starts_with("only one block has detail"), "{note}");
    let f = frame(&a, 80, 24);
    assert!(f.contains(&note), "{f}");
    assert_snapshot!(f);
}

#[test]
fn frame_80x24_help_overlay() {
    let mut a = app();
    a.apply(Action::ToggleHelp);
    assert_snapshot!(frame(&a, 80, 24));
}

#[test]
fn frame_of_a_warp_without_register_writes_says_how_to_record_it() {
    let s = Synthetic {
        level: TraceLevel::CountersOnly,
        focus: Focus {
            block: 1,
            warp: Some(1),
        },
        ..Synthetic::default()
    };
    let mut a = app_for(&s);
    assert_eq!((a.data().block, a.warp), (Some(1), 1));
    a.apply(Action::NextWarp);
    assert_snapshot!(frame(&a, 80, 24));
}

#[test]
fn frame_too_small_says_so() {
    assert_snapshot!(frame(&app(), 30, 8));
}

fn any_action() -> impl Strategy<Value = Action> {
    use Action::*;
    prop_oneof![
        Just(TogglePlay),
        Just(Faster),
        Just(Slower),
        Just(StepCycle),
        Just(BackCycle),
        Just(StepInst),
        Just(BackInst),
        Just(NextKernel),
        Just(PrevKernel),
        Just(NextStage),
        Just(PrevStage),
        Just(NextConflict),
        Just(PrevConflict),
        (0u8..=12).prop_map(SeekTenths),
        Just(NextWarp),
        Just(PrevWarp),
        Just(NextBlock),
        Just(PrevBlock),
        Just(ToggleHelp),
        Just(SourceScope),
        Just(SourceSort),
        Just(HotLine),
        Just(PrevHotLine),
        (0u64..5000).prop_map(|ms| Tick(Duration::from_millis(ms))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any sequence of actions keeps the cursor inside the loaded launch
    /// and the warp inside the block, and every size draws without panic.
    #[test]
    fn any_actions_keep_the_state_valid_and_drawable(
        actions in prop::collection::vec(any_action(), 1..60),
        w in 1u16..200,
        h in 1u16..60,
    ) {
        let mut a = app();
        for act in actions {
            a.apply(act);
            let d = a.data();
            prop_assert!(a.cycle >= d.start && a.cycle <= d.end);
            prop_assert!(a.warp < d.warps().max(1));
        }
        frame(&a, w, h);
    }
}

#[test]
fn keys_typed_as_text_drive_the_app_and_the_screen_is_plain_text() {
    let mut a = app();
    crate::press_keys(&mut a, "mm.").unwrap();
    assert_eq!(a.current_stage().as_deref(), Some("lane sort"));
    assert_eq!(crate::press_keys(&mut a, "my"), Err('y'));
    let text = crate::screen(&a, 80, 24);
    assert_eq!(text.lines().count(), 24);
    assert!(text.lines().all(|l| l.chars().count() <= 80));
    assert!(text.contains("slab · block 0 warp 0"), "{text}");
}

#[test]
fn every_frame_snapshot_belongs_to_a_test_that_asserts_it() {
    // insta reads a snapshot only when its test asserts it, so the file of
    // a renamed or deleted test would go stale silently. A snapshot is
    // named after its test (`tui__<module>__<test>.snap`) or by the name
    // its assertion gives (`assert_snapshot!("<name>", ..)`).
    let sources = [
        ("tests", include_str!("tests.rs")),
        ("source_tests", include_str!("source_tests.rs")),
        ("tests_views", include_str!("tests_views.rs")),
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/snapshots");
    let mut leftovers = Vec::new();
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        if file.ends_with(".snap.new") || file.ends_with(".pending-snap") {
            continue;
        }
        files += 1;
        let asserted = sources.iter().any(|(module, source)| {
            let Some(name) = file
                .strip_prefix(&format!("tui__{module}__"))
                .and_then(|rest| rest.strip_suffix(".snap"))
            else {
                return false;
            };
            if source.contains(&format!("assert_snapshot!(\"{name}\"")) {
                return true;
            }
            let Some(at) = source.find(&format!("\nfn {name}() {{\n")) else {
                return false;
            };
            let body = &source[at + 1..];
            let end = body.find("\n}\n").unwrap_or(body.len());
            body[..end].contains("assert_snapshot!(")
        });
        if !asserted {
            leftovers.push(file);
        }
    }
    assert!(files >= 10, "only {files} snapshots in {}", dir.display());
    assert!(
        leftovers.is_empty(),
        "snapshots no test here asserts (delete them): {leftovers:?}"
    );
}
