//! The source view and the stalls panel on synthetic traces: state tests
//! and insta frames at 80x24 and 200x50.

use std::io::Cursor;

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use traces::StallReason;

use crate::source::{Scope, SortBy};
use crate::synthetic::Synthetic;
use crate::{Action, App, Replay};

fn app() -> App {
    let bytes = Synthetic::default().write(Vec::new()).unwrap();
    App::new(Replay::new(Box::new(Cursor::new(bytes))).unwrap())
}

fn frame(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    t.backend().to_string()
}

#[test]
fn every_warp_is_charged_its_whole_resident_life() {
    let a = app();
    let d = a.data();
    for w in 0..d.warps() {
        let (t0, t1) = d.resident(w);
        let issued: u64 = d.warp_issues(w).iter().map(|i| u64::from(i.slots)).sum();
        let stalled: u64 = d.warp_stalls(w).iter().map(|s| s.cycles).sum();
        assert_eq!(issued + stalled, t1 - t0, "warp {w}");
        assert_eq!(d.stall_at(w, t0), Some(StallReason::NotSelected));
    }
}

#[test]
fn the_hot_line_key_walks_the_lines_hottest_first() {
    let mut a = app();
    let table = a.source_table().into_owned();
    let hottest = (0..table.len())
        .max_by_key(|&pc| (table[pc].stall_total(), std::cmp::Reverse(pc)))
        .unwrap() as u32;
    a.apply(Action::HotLine);
    assert_eq!(a.source.selected, Some(hottest));
    a.apply(Action::HotLine);
    let second = a.source.selected.unwrap();
    assert!(table[second as usize].stall_total() <= table[hottest as usize].stall_total());
    a.apply(Action::PrevHotLine);
    assert_eq!(a.source.selected, Some(hottest));
    a.apply(Action::PrevHotLine);
    assert_eq!(a.source.selected, None, "before the hottest: none");
    assert!(a.message.is_some());
}

#[test]
fn the_scope_key_sums_the_warp_the_block_and_the_launch() {
    let mut a = app();
    let exec = |a: &App| a.source_table().iter().map(|l| l.exec).sum::<u64>();
    assert_eq!(a.source.scope, Scope::Block);
    let block = exec(&a);
    a.apply(Action::SourceScope);
    assert_eq!(a.source.scope, Scope::Launch);
    // The synthetic launch has two blocks of equal work.
    assert_eq!(exec(&a), 2 * block);
    a.apply(Action::SourceScope);
    assert_eq!(a.source.scope, Scope::Warp);
    assert_eq!(exec(&a) * u64::from(a.data().warps()), block);
    // A new launch is summed when the scope is the launch.
    a.apply(Action::SourceScope);
    a.apply(Action::NextKernel);
    assert_eq!(exec(&a), 2, "the copy launch's two issues");
}

#[test]
fn the_sort_key_cycles_the_columns_and_back_to_program_order() {
    let mut a = app();
    let mut seen = vec![a.source.sort];
    for _ in 0..20 {
        a.apply(Action::SourceSort);
        if a.source.sort == SortBy::Line {
            break;
        }
        seen.push(a.source.sort);
    }
    assert_eq!(a.source.sort, SortBy::Line, "{seen:?}");
    assert!(seen.contains(&SortBy::Stalls) && seen.contains(&SortBy::Excess));
    assert!(
        seen.contains(&SortBy::Reason(StallReason::Barrier)),
        "{seen:?}"
    );
}

/// At a barrier of warp 0, sorted by stalls, the hottest line selected.
fn at_a_barrier() -> App {
    let mut a = app();
    let bar = a
        .data()
        .warp_stalls(0)
        .iter()
        .find(|s| s.reason == StallReason::Barrier)
        .copied()
        .unwrap();
    a.cycle = bar.cycle + bar.cycles / 2;
    crate::press_keys(&mut a, "ot").unwrap();
    a
}

#[test]
fn frame_80x24_source_view_and_stalls_at_a_barrier() {
    // At 80 columns the panels of a row take turns: Tab focuses the
    // source view (top), two more the stalls (bottom).
    let mut a = at_a_barrier();
    crate::press_keys(&mut a, "\t").unwrap();
    let source = frame(&a, 80, 24);
    assert!(
        source.contains("sort stall") && source.contains("» pc "),
        "{source}"
    );
    crate::press_keys(&mut a, "\t\t").unwrap();
    let stalls = frame(&a, 80, 24);
    assert!(stalls.contains("now barrier"), "{stalls}");
    assert_snapshot!(format!("{source}\n{stalls}"));
}

#[test]
fn frame_200x50_source_view_and_stalls_at_a_barrier() {
    let a = at_a_barrier();
    let f = frame(&a, 200, 50);
    assert!(f.contains("now barrier") && f.contains("cycles"), "{f}");
    assert!(f.contains("» pc "), "the selected line spelled out: {f}");
    assert_snapshot!(f);
}

#[test]
fn frame_200x50_source_view_of_the_launch_in_program_order() {
    let mut a = app();
    crate::press_keys(&mut a, "s.....").unwrap();
    let f = frame(&a, 200, 50);
    assert!(f.contains("launch, 2 blocks"), "{f}");
    assert_snapshot!(f);
}
