//! Sweeps split over machines. `sweep --shard I/N` runs the I-th of N
//! contiguous slices of the grid (in grid order) and writes its results
//! with a `shard` object naming the slice, the grid's size and the simsort
//! version; `sweep merge` checks that the parts are the N slices of one grid
//! and rebuilds exactly the CSV and JSON that one run of the whole grid
//! writes. Every configuration is checked against the whole grid in every
//! shard, so a shard skips (and rejects) exactly what the whole run does.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::sweep_out::Results;

/// The version written into every shard: parts of different versions are
/// not merged (their reports may differ).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One slice of a sweep's grid: `index` of `count`, counted from 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which slice, 0..count.
    pub index: u32,
    /// How many slices.
    pub count: u32,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Parses `I/N` (`--shard`): I in 0..N, N at least 1.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let allowed =
            "use I/N with 0 <= I < N, e.g. 0/4 .. 3/4 (a job array's task index and size)";
        let Some((i, n)) = s.split_once('/') else {
            return Err(format!("`{s}` is not a shard; {allowed}"));
        };
        let (Ok(index), Ok(count)) = (i.trim().parse::<u32>(), n.trim().parse::<u32>()) else {
            return Err(format!("`{s}` is not a shard; {allowed}"));
        };
        if count == 0 || index >= count {
            return Err(format!(
                "`{s}`: the index must be below the count; {allowed}"
            ));
        }
        Ok(Shard { index, count })
    }

    /// The configurations of a grid of `len` this shard runs: the shards'
    /// ranges are contiguous, in order, and together cover the grid once.
    pub fn range(&self, len: usize) -> Range<usize> {
        let at = |i: u32| (len as u128 * u128::from(i) / u128::from(self.count)) as usize;
        at(self.index)..at(self.index + 1)
    }

    /// The `shard` object of a part's JSON file.
    pub fn json(&self, configurations: usize) -> Value {
        json!({
            "index": self.index,
            "count": self.count,
            "configurations": configurations,
            "version": VERSION,
        })
    }
}

/// One shard's JSON file, read back.
#[derive(Debug)]
pub struct Part {
    /// The file.
    pub path: PathBuf,
    /// Which slice.
    pub shard: Shard,
    /// The whole grid's size.
    pub configurations: u64,
    /// The simsort version that wrote it.
    pub version: String,
    /// The whole grid's axes.
    pub axes: Map<String, Value>,
    /// The slice's results.
    pub results: Results,
}

/// The JSON file a part argument names: `X.json`, or `X.csv` / `X` (the
/// `--out` stem the shard was written with).
pub fn part_json(path: &Path) -> PathBuf {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => path.to_path_buf(),
        Some("csv") => path.with_extension("json"),
        _ => path.with_extension("json"),
    }
}

/// Reads one shard's JSON file (`text` read from `path`).
pub fn parse_part(path: &Path, text: &str) -> Result<Part, String> {
    let name = path.display();
    let not_a_part = |why: &str| {
        format!(
            "{name}: not the JSON file of a sweep shard ({why}); write parts with `simsort sweep \
             ... --shard I/N --out FILE`"
        )
    };
    let value: Value =
        serde_json::from_str(text).map_err(|e| not_a_part(&format!("invalid JSON: {e}")))?;
    let shard = &value["shard"];
    if !shard.is_object() {
        return Err(not_a_part("it has no `shard` object"));
    }
    let number = |key: &str| {
        shard[key]
            .as_u64()
            .ok_or_else(|| not_a_part(&format!("`shard.{key}` is not a whole number")))
    };
    let (index, count, configurations) = (
        number("index")?,
        number("count")?,
        number("configurations")?,
    );
    let (Ok(index), Ok(count)) = (u32::try_from(index), u32::try_from(count)) else {
        return Err(not_a_part("`shard.index` or `shard.count` is too large"));
    };
    if index >= count {
        return Err(not_a_part("`shard.index` is not below `shard.count`"));
    }
    let version = shard["version"]
        .as_str()
        .ok_or_else(|| not_a_part("`shard.version` is missing"))?
        .to_string();
    let axes = value["axes"]
        .as_object()
        .ok_or_else(|| not_a_part("`axes` is missing"))?
        .clone();
    let list = |key: &str| {
        value[key]
            .as_array()
            .cloned()
            .ok_or_else(|| not_a_part(&format!("`{key}` is not a list")))
    };
    let results = Results {
        runs: list("runs")?,
        skipped: list("skipped")?,
        failed: list("failed")?,
    };
    // A part holds one row for each configuration of its slice: one with
    // rows missing would merge into a sweep that silently lacks them.
    let slice = Shard { index, count }
        .range(usize::try_from(configurations).unwrap_or(usize::MAX))
        .len();
    let rows = results.runs.len() + results.skipped.len() + results.failed.len();
    if rows != slice {
        return Err(not_a_part(&format!(
            "its slice has {slice} configuration(s) but `runs`, `skipped` and `failed` hold \
             {rows}; the file was cut or edited"
        )));
    }
    Ok(Part {
        path: path.to_path_buf(),
        shard: Shard { index, count },
        configurations,
        version,
        axes,
        results,
    })
}

/// Checks that `parts` are every shard of one grid, each once, written by
/// this version, and combines them: the axes and the results in grid order.
pub fn merge(mut parts: Vec<Part>) -> Result<(Map<String, Value>, Results), Vec<String>> {
    let Some(first) = parts.first() else {
        return Err(vec!["no parts to merge".to_string()]);
    };
    let mut problems = Vec::new();
    let (count, first_path) = (first.shard.count, first.path.display().to_string());
    for p in &parts {
        let name = p.path.display();
        if p.version != VERSION {
            problems.push(format!(
                "{name}: written by simsort {}, this is {VERSION}; rerun the shard with this version",
                p.version
            ));
        }
        if p.shard.count != count {
            problems.push(format!(
                "{name}: shard {} but {first_path} is one of {count}: parts of different splits",
                p.shard
            ));
        } else if p.axes != first.axes || p.configurations != first.configurations {
            problems.push(format!(
                "{name}: another grid than {first_path} (the sweeps' lists differ)"
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    for index in 0..count {
        let with: Vec<String> = parts
            .iter()
            .filter(|p| p.shard.index == index)
            .map(|p| p.path.display().to_string())
            .collect();
        match with.len() {
            0 => problems.push(format!("shard {index}/{count} is missing")),
            1 => {}
            _ => problems.push(format!(
                "shard {index}/{count} is given {} times ({})",
                with.len(),
                with.join(", ")
            )),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    parts.sort_by_key(|p| p.shard.index);
    let axes = parts[0].axes.clone();
    let mut all = Results::default();
    for p in parts {
        all.runs.extend(p.results.runs);
        all.skipped.extend(p.results.skipped);
        all.failed.extend(p.results.failed);
    }
    Ok((axes, all))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_bad_ones_are_named() {
        assert_eq!(Shard::parse("2/5"), Ok(Shard { index: 2, count: 5 }));
        for bad in ["5/5", "0/0", "1", "a/2", "-1/2", "1/2/3", ""] {
            let e = Shard::parse(bad).unwrap_err();
            assert!(e.contains("0 <= I < N"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_ranges_cover_the_grid_once_in_order() {
        for len in [0usize, 1, 2, 7, 10, 100] {
            for count in 1..=12u32 {
                let mut next = 0;
                for index in 0..count {
                    let r = Shard { index, count }.range(len);
                    assert_eq!(r.start, next, "len {len} {index}/{count}");
                    next = r.end;
                }
                assert_eq!(next, len);
            }
        }
    }

    /// Shard `index` of `count` of a grid of 4: `runs`, the rest of its
    /// slice skipped (a part holds a row for every configuration).
    fn part(index: u32, count: u32, runs: &[i64]) -> Part {
        let slice = Shard { index, count }.range(4).len();
        let skipped = vec![json!({"problems": ["does not fit"]}); slice.saturating_sub(runs.len())];
        let json = json!({
            "axes": {"warp": ["8", "16"]},
            "runs": runs,
            "skipped": skipped,
            "failed": [],
            "shard": Shard { index, count }.json(4),
        });
        let path = PathBuf::from(format!("p{index}.json"));
        parse_part(&path, &json.to_string()).unwrap()
    }

    #[test]
    fn parts_merge_in_shard_order_whatever_the_argument_order() {
        let (axes, results) = merge(vec![part(1, 2, &[3, 4]), part(0, 2, &[1, 2])]).unwrap();
        assert_eq!(axes["warp"], json!(["8", "16"]));
        assert_eq!(results.runs, [json!(1), json!(2), json!(3), json!(4)]);
    }

    #[test]
    fn missing_repeated_and_foreign_parts_are_refused() {
        let e = merge(vec![part(0, 3, &[]), part(2, 3, &[])]).unwrap_err();
        assert_eq!(e, ["shard 1/3 is missing"]);
        let e = merge(vec![part(0, 2, &[]), part(0, 2, &[]), part(1, 2, &[])]).unwrap_err();
        assert!(e[0].contains("given 2 times"), "{e:?}");
        let e = merge(vec![part(0, 2, &[]), part(1, 3, &[])]).unwrap_err();
        assert!(e[0].contains("different splits"), "{e:?}");
        let mut other = part(1, 2, &[]);
        other.axes.insert("keys".into(), json!(["1"]));
        let e = merge(vec![part(0, 2, &[]), other]).unwrap_err();
        assert!(e[0].contains("another grid"), "{e:?}");
        let mut old = part(1, 2, &[]);
        old.version = "0.0.0-old".into();
        let e = merge(vec![part(0, 2, &[]), old]).unwrap_err();
        assert!(e[0].contains("written by simsort 0.0.0-old"), "{e:?}");
        let e = parse_part(Path::new("r.json"), r#"{"axes": {}, "runs": []}"#).unwrap_err();
        assert!(e.contains("no `shard` object"), "{e}");
        let shard = Shard { index: 0, count: 2 }.json(4);
        let emptied = json!({"axes": {}, "runs": [], "skipped": [], "failed": [], "shard": shard});
        let e = parse_part(Path::new("p0.json"), &emptied.to_string()).unwrap_err();
        assert!(e.contains("slice has 2 configuration(s)"), "{e}");
    }
}
