//! Reading Nsight Compute's CSV: `ncu --csv --page raw` writes one row per
//! profiled launch, a header of column names (launch facts such as `ID` and
//! `Kernel Name`, then metric names) and, after it, a row of units. The
//! application's own output and ncu's `==PROF==` lines may stand around the
//! table; they are skipped. Numbers may carry thousands separators.

use std::collections::BTreeMap;

/// One profiled launch.
#[derive(Clone, Debug, PartialEq)]
pub struct NcuLaunch {
    /// ncu's launch ID.
    pub id: u64,
    /// The kernel's name, without a C++ signature (`copy(int*)` is `copy`).
    pub kernel: String,
    /// Every numeric metric of the row, by ncu's name.
    pub metrics: BTreeMap<String, f64>,
}

/// Why a CSV cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NcuError {
    /// No header row (`"ID",...,"Kernel Name",...`) was found.
    #[error(
        "no ncu table found: expected a header row starting with \"ID\" (ncu --csv --page raw)"
    )]
    NoTable,
    /// The header lacks columns the comparison needs.
    #[error("the ncu table lacks the column(s) {}", .0.join(", "))]
    MissingColumns(Vec<String>),
    /// A row does not have the header's number of fields.
    #[error("line {line} of the ncu CSV has {got} fields, the header has {want}")]
    Ragged {
        /// The line (1-based).
        line: usize,
        /// Its fields.
        got: usize,
        /// The header's fields.
        want: usize,
    },
    /// The table has no launches.
    #[error("the ncu table holds no launches")]
    Empty,
}

/// The columns every calibration needs.
pub const REQUIRED: [&str; 3] = ["ID", "Kernel Name", "sm__cycles_elapsed.max"];

/// Parses the launches of an `ncu --csv --page raw` table, in ID order.
pub fn parse(text: &str) -> Result<Vec<NcuLaunch>, NcuError> {
    parse_with(text, &REQUIRED)
}

/// [`parse`] for a table that needs no cycle count: any `--metrics` list
/// (the probes of `hw/` that profile counters only). Requires `ID` and
/// `Kernel Name`.
pub fn parse_launches(text: &str) -> Result<Vec<NcuLaunch>, NcuError> {
    parse_with(text, &REQUIRED[..2])
}

/// [`parse`], with the columns `required` instead of [`REQUIRED`].
fn parse_with(text: &str, required: &[&str]) -> Result<Vec<NcuLaunch>, NcuError> {
    let mut lines = text.lines().enumerate();
    let header = loop {
        let Some((_, line)) = lines.next() else {
            return Err(NcuError::NoTable);
        };
        if line.starts_with("\"ID\"") {
            break fields(line);
        }
    };
    let missing: Vec<String> = required
        .iter()
        .filter(|c| !header.iter().any(|h| h == *c))
        .map(|c| c.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(NcuError::MissingColumns(missing));
    }
    let col = |name: &str| header.iter().position(|h| h == name).unwrap_or(0);
    let (id_col, name_col) = (col("ID"), col("Kernel Name"));
    let mut out = Vec::new();
    for (n, line) in lines {
        if !line.starts_with('"') {
            continue; // the application's or ncu's own output
        }
        let row = fields(line);
        if row.len() != header.len() {
            return Err(NcuError::Ragged {
                line: n + 1,
                got: row.len(),
                want: header.len(),
            });
        }
        let Some(id) = number(&row[id_col]).map(|v| v as u64) else {
            continue; // the units row
        };
        let kernel = row[name_col]
            .split('(')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let metrics = header
            .iter()
            .zip(&row)
            .filter(|(h, _)| h.contains("__"))
            .filter_map(|(h, v)| number(v).map(|v| (h.clone(), v)))
            .collect();
        out.push(NcuLaunch {
            id,
            kernel,
            metrics,
        });
    }
    if out.is_empty() {
        return Err(NcuError::Empty);
    }
    out.sort_by_key(|l| l.id);
    Ok(out)
}

/// The fields of one CSV line (double quotes, `""` inside quotes): ncu's
/// raw and source pages alike.
pub fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A number as ncu prints it (`1,234.5`), or `None` for text and `n/a`.
pub fn number(s: &str) -> Option<f64> {
    let t: String = s.chars().filter(|c| *c != ',').collect();
    t.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "==PROF== Connected\n\
\"ID\",\"Process ID\",\"Kernel Name\",\"Grid Size\",\"sm__cycles_elapsed.max\",\"smsp__inst_executed.sum\"\n\
\"\",\"\",\"\",\"\",\"cycle\",\"inst\"\n\
\"1\",\"7\",\"copy(const unsigned int *, unsigned int)\",\"(4, 1, 1)\",\"5,684\",\"32,768\"\n\
\"0\",\"7\",\"bs\",\"(1, 1, 1)\",\"4,084\",\"n/a\"\n\
bundle host: 2 launches\n";

    #[test]
    fn rows_come_in_id_order_with_separators_and_signatures_removed() {
        let launches = parse(SAMPLE).unwrap();
        assert_eq!(launches.len(), 2);
        assert_eq!(launches[0].kernel, "bs");
        assert_eq!(launches[0].metrics["sm__cycles_elapsed.max"], 4084.0);
        assert!(!launches[0].metrics.contains_key("smsp__inst_executed.sum"));
        assert_eq!(launches[1].kernel, "copy");
        assert_eq!(launches[1].metrics["smsp__inst_executed.sum"], 32768.0);
    }

    #[test]
    fn a_table_without_cycles_names_the_missing_column() {
        let text = "\"ID\",\"Kernel Name\"\n\"0\",\"bs\"\n";
        assert_eq!(
            parse(text),
            Err(NcuError::MissingColumns(vec![
                "sm__cycles_elapsed.max".into()
            ]))
        );
    }

    #[test]
    fn text_that_is_no_ncu_table_is_refused() {
        assert_eq!(parse("kernel,cycles\nbs,1\n"), Err(NcuError::NoTable));
        let ragged = "\"ID\",\"Kernel Name\",\"sm__cycles_elapsed.max\"\n\"0\",\"bs\"\n";
        assert!(matches!(
            parse(ragged),
            Err(NcuError::Ragged { line: 2, .. })
        ));
    }

    #[test]
    fn the_committed_h100_timing_table_parses() {
        let text = include_str!("../../hw/data/h100_timing_ncu.csv");
        let launches = parse(text).unwrap();
        assert_eq!(launches.len(), 34);
        assert_eq!(launches[0].kernel, "empty");
        assert_eq!(launches[0].metrics["sm__cycles_elapsed.max"], 4084.0);
    }
}
