//! Where the warps' time goes, as stacked bars: for each configuration (or
//! kernel) the share of resident warp-cycles in each stall reason, issue
//! (`selected`) first. Shared by the sweep, compare and single-run plots.

use std::collections::BTreeMap;

use crate::chart::figure::{Legend, Sample};
use crate::chart::panel::{BarPanel, BarRow};
use crate::chart::style::stall_colour;

/// The reasons in the order bars stack them: issue first, then the
/// stalls that usually matter most.
const ORDER: &[&str] = &[
    "selected",
    "not_selected",
    "long_scoreboard",
    "short_scoreboard",
    "mio_throttle",
    "lg_throttle",
    "barrier",
    "wait",
    "math_pipe_throttle",
    "dispatch_stall",
    "no_instruction",
    "branch_resolving",
    "membar",
];

/// A stall reason as the legend names it.
pub fn reason_label(reason: &str) -> String {
    match reason {
        "selected" => "issue (selected)".to_string(),
        other => other.replace('_', " "),
    }
}

/// The share of warp-cycles (in percent) of each reason of `stalls`, in
/// stacking order; reasons the report lacks count zero.
pub fn shares(stalls: &BTreeMap<&'static str, u64>) -> Vec<(&'static str, f64)> {
    let total: u64 = stalls.values().sum();
    let mut names: Vec<&'static str> = ORDER.to_vec();
    for k in stalls.keys() {
        if !names.contains(k) {
            names.push(k);
        }
    }
    names
        .into_iter()
        .map(|r| {
            let v = stalls.get(r).copied().unwrap_or(0);
            let share = if total == 0 {
                0.0
            } else {
                100.0 * v as f64 / total as f64
            };
            (r, share)
        })
        .collect()
}

/// A bar panel with one row per `(label, stalls)`.
pub fn panel(title: &str, rows: &[(String, &BTreeMap<&'static str, u64>)]) -> BarPanel {
    BarPanel {
        title: title.to_string(),
        x_label: "share of resident warp-cycles (%)".to_string(),
        max: 100.0,
        label_space: None,
        context: None,
        empty: String::new(),
        rows: rows
            .iter()
            .map(|(label, stalls)| BarRow {
                label: label.clone(),
                segments: shares(stalls)
                    .into_iter()
                    .map(|(r, v)| (reason_label(r), v, stall_colour(r)))
                    .collect(),
            })
            .collect(),
    }
}

/// The legend of `rows`: every reason some row has a share of.
pub fn legend(rows: &[(String, &BTreeMap<&'static str, u64>)]) -> Legend {
    let mut seen: Vec<&'static str> = Vec::new();
    for (_, stalls) in rows {
        for (r, v) in shares(stalls) {
            if v > 0.0 && !seen.contains(&r) {
                seen.push(r);
            }
        }
    }
    let order: Vec<&str> = shares(&BTreeMap::new())
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    seen.sort_by_key(|r| order.iter().position(|o| o == r));
    Legend {
        title: "warp state:".to_string(),
        entries: seen
            .into_iter()
            .map(|r| (Sample::Swatch(stall_colour(r), 1.0), reason_label(r)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_a_hundred_with_issue_first() {
        let mut stalls = BTreeMap::new();
        stalls.insert("barrier", 30);
        stalls.insert("selected", 10);
        stalls.insert("long_scoreboard", 60);
        let s = shares(&stalls);
        assert_eq!(s[0], ("selected", 10.0));
        let total: f64 = s.iter().map(|(_, v)| v).sum();
        assert!((total - 100.0).abs() < 1e-9);
        let l = legend(&[("a".to_string(), &stalls)]);
        let names: Vec<&str> = l.entries.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(names, ["issue (selected)", "long scoreboard", "barrier"]);
    }
}
