//! What the short names in simsort's tables stand for: kernel names, stall
//! headers and memory columns. The report prints the meaning of every name
//! it shows right below its tables, so a reader never has to guess what
//! `bs` or `shrtsb` means; `docs/report.md` says the same at length.

/// What the kernel called `name` does, in a few words (at most about 55
/// characters, so `name` plus its meaning fit one 80-column line), for the
/// kernels of every algorithm. `None` for names no sort launches (for
/// example a kernel given to `simsort run`).
pub fn kernel_meaning(name: &str) -> Option<String> {
    if let Some(n) = name.strip_prefix("bc_")
        && let Ok(warps) = n.parse::<u32>()
    {
        return Some(format!("block clean by {warps} warps (the sized schedule)"));
    }
    if name.starts_with("small_sort") {
        return Some("bitonic sort of small buckets in one block".to_string());
    }
    let meaning = match name {
        // HotSort (docs/hotsort.md).
        "fill_in" => "pads the input to whole slabs with the largest key",
        "fill_out" => "pads the output to a power-of-two span",
        "bs" => "block sort: each warp sorts a slab, the block merges them",
        "fm" => "flip merge: merges pairs of sorted runs in global memory",
        "hm" => "half merge: cleans spans too large for a block clean",
        "bc" => "block clean: finishes a merge inside one block",
        "transpose" => "turns slab order into linear order",
        // Merge-path mergesort (docs/mergesort.md); GPUTeraSort's GPU merge
        // runs the same two merge kernels.
        "blocksort" => "sorts one tile per block (merge path in shared memory)",
        "partition" => "merge-path search for each tile's splitters",
        "merge" => "merges two sorted ranges per tile along the merge path",
        // Vectorised bitonic sort (docs/bitonic.md), also GPUTeraSort's
        // key-pointer network.
        "fill" => "pads the input to whole tiles with the largest key",
        "head" => "sorts each tile in registers and shared memory",
        "step" => "one global compare-exchange step of the bitonic network",
        "tail" => "finishes a stage inside each tile",
        // GPU sample sort (docs/samplesort.md).
        "create_bst" => "draws a sample and builds the splitter tree",
        "find_buckets" => "counts each block's keys per bucket",
        "scan_sums" => "prefix sum, first pass: sums of each tile of counts",
        "scan" => "prefix sum of the bucket counts (each key's offset)",
        "scatter" => "writes each key to its bucket",
        "minmax" => "min and max of buckets whose splitters are all equal",
        "find_3way" => "counts keys <, = and > the splitter (equal splitters)",
        "scatter_3way" => "writes keys to their <, = or > bucket",
        "copy_buckets" => "copies buckets that need no sort back into place",
        // GPUTeraSort (docs/terasort.md).
        "keygen" => "makes a (key prefix, record index) word per record",
        "refine_keys" => "replaces tied prefixes with the next key bytes",
        "reorder" => "gathers the records in sorted order by pointer",
        "rebase" => "moves a run's sorted words into the merge buffer",
        "step_pair" => "one compare-exchange step, in place",
        "step_output" => "one compare-exchange step into the other buffer",
        _ => return None,
    };
    Some(meaning.to_string())
}

/// The legend for the kernels named in `names` (in that order, each once):
/// one line each, `name  meaning`. Empty when no name is known.
pub fn kernel_legend<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = String::new();
    for name in names {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        if let Some(meaning) = kernel_meaning(name) {
            out.push_str(&format!("  {name:<12} {meaning}\n"));
        }
    }
    if out.is_empty() {
        return out;
    }
    format!("kernels:\n{out}")
}

/// What the memory table's and the stall table's short headers stand for,
/// with the Nsight Compute name of each stall reason, within 80 columns.
pub const COLUMN_LEGEND: &str = "\
memory: wavef = shared-memory wavefronts; confl = bank conflicts (wavefronts
  beyond the minimum for the access width); gld s/r, gst s/r = global load /
  store sectors (32 bytes) per request (4.00 = one warp's 32 coalesced words)
stalls (percent of resident warp-cycles; Nsight Compute's reason names):
  select = selected: issued             notsel = not_selected: ready, not picked
  longsb = long_scoreboard: waits for global memory
  shrtsb = short_scoreboard: waits for shared memory or a shuffle
  wait   = wait: a fixed latency (an ALU result)
  mio    = mio_throttle: shared-memory / shuffle queue full
  lg     = lg_throttle: global load/store queue full
  bar    = barrier: waits at bar.sync     math = math_pipe_throttle: ALU busy
  other  = every other reason, mostly no_instruction: waits for its first or
           next instructions (the JSON report has each reason)
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_of_every_sort_has_a_meaning() {
        for name in [
            "fill_in",
            "fill_out",
            "bs",
            "fm",
            "hm",
            "bc",
            "bc_16",
            "transpose",
            "blocksort",
            "partition",
            "merge",
            "fill",
            "head",
            "step",
            "tail",
            "create_bst",
            "find_buckets",
            "scan_sums",
            "scan",
            "scatter",
            "minmax",
            "find_3way",
            "scatter_3way",
            "copy_buckets",
            "small_sort",
            "small_sort_512",
            "keygen",
            "refine_keys",
            "reorder",
            "rebase",
            "step_pair",
            "step_output",
        ] {
            let meaning = kernel_meaning(name).unwrap_or_else(|| panic!("{name} has none"));
            assert!(
                2 + 12 + 1 + meaning.len() <= 80,
                "{name}: {meaning} is too long for one line"
            );
        }
        assert_eq!(kernel_meaning("bc_x"), None);
        assert_eq!(kernel_meaning("vcopy"), None);
    }

    #[test]
    fn the_legend_lists_each_known_kernel_once_in_order() {
        let legend = kernel_legend(["bs", "fm", "vcopy", "bs", "transpose"]);
        let names: Vec<&str> = legend
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(names, ["bs", "fm", "transpose"]);
        assert_eq!(kernel_legend(["vcopy"]), "");
    }

    #[test]
    fn the_column_legend_fits_80_columns_and_names_every_stall_column() {
        for line in COLUMN_LEGEND.lines() {
            assert!(line.chars().count() <= 80, "{line}");
        }
        for short in [
            "select", "notsel", "longsb", "shrtsb", "wait", "mio", "lg", "bar", "math", "other",
        ] {
            assert!(
                COLUMN_LEGEND.contains(&format!("{short} ")),
                "{short} is not explained"
            );
        }
    }
}
