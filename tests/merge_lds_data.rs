//! Why the H200 executes more shared loads than the IR in mergesort's
//! 32-bit `merge` at 128 x 11 (docs/calibration.md, "Shared wavefronts
//! where the hardware counts more"), from the committed per-instruction
//! counts of its first launch at 1M keys (`hw/data/h200/ncu/ms1m_merge/`,
//! ncu's source page, its README has the commands). ptxas puts the serial
//! merge's first `LDS` before the `WARPSYNC.ALL` that reconverges the warp
//! after the merge-path search, so the warp issues it once for each group
//! of lanes that left the search together; with 64-bit keys it comes after.

use simsort::calib::ncu;

/// (SASS text, instructions executed, thread instructions executed) of
/// `kernel`'s instructions in a gzipped `ncu --page source --csv` export.
fn source(gz: &[u8], kernel: &str) -> Vec<(String, u64, u64)> {
    let text = crate::util::gunzip(gz);
    let (mut inside, mut cols) = (false, None);
    let mut out = Vec::new();
    for line in text.lines() {
        let f = ncu::fields(line);
        if f[0] == "Kernel Name" {
            inside = f.get(1).map(String::as_str) == Some(kernel);
            cols = None;
        } else if f[0] == "Address" {
            let at = |n: &str| f.iter().position(|c| *c == n).expect(n);
            cols = Some((
                at("Instructions Executed"),
                at("Thread Instructions Executed"),
            ));
        } else if let (true, Some((i, t))) = (inside, cols) {
            let num = |k: usize| ncu::number(&f[k]).expect("a count") as u64;
            out.push((f[1].trim().to_string(), num(i), num(t)));
        }
    }
    out
}

#[test]
fn the_32_bit_merge_issues_one_shared_load_before_its_warp_reconverges() {
    let b32 = source(
        include_bytes!("../hw/data/h200/ncu/ms1m_merge/ms1m_src.csv.gz"),
        "merge",
    );
    let b64 = source(
        include_bytes!("../hw/data/h200/ncu/ms1m_merge/ms1m_k64_src.csv.gz"),
        "merge",
    );
    let lds = |k: &[(String, u64, u64)]| -> u64 {
        k.iter()
            .filter(|(s, ..)| s.starts_with("LDS"))
            .map(|(_, n, _)| n)
            .sum()
    };
    // 2,980 warps (745 blocks of 4). The IR executes 124,894 shared loads
    // in this launch at either width; the 64-bit SASS as many, the 32-bit
    // one 11,096 more (hw/data/calib/ms1m.csv, ms1m_k64.csv).
    assert_eq!(lds(&b64), 124_894);
    assert_eq!(lds(&b32), 135_990);
    let sync = |k: &[(String, u64, u64)]| {
        k.iter()
            .position(|(s, ..)| s.starts_with("WARPSYNC.ALL"))
            .expect("a WARPSYNC.ALL")
    };
    // The region from the search loop's BSYNC to the WARPSYNC.ALL runs
    // 14,076 times (4.72 a warp, every thread once): the 32-bit SASS has
    // an LDS in it, the 64-bit none.
    let region = |k: &[(String, u64, u64)]| -> Vec<(String, u64, u64)> {
        let s = sync(k);
        let start = k[..s]
            .iter()
            .rposition(|(t, ..)| t.starts_with("BSYNC"))
            .expect("a BSYNC before it");
        k[start..=s].to_vec()
    };
    for (name, k) in [("32", &b32), ("64", &b64)] {
        assert!(
            region(k)
                .iter()
                .all(|&(_, n, t)| (n, t) == (14_076, 95_360)),
            "{name}-bit"
        );
    }
    let in_region = |k: &[(String, u64, u64)]| {
        region(k)
            .iter()
            .filter(|(s, ..)| s.starts_with("LDS"))
            .count()
    };
    assert_eq!((in_region(&b32), in_region(&b64)), (1, 0));
    // That load's extra issues are the whole difference: once a warp after
    // the WARPSYNC.ALL (2,980), 14,076 times before it.
    let warps = b32[sync(&b32) + 1].1;
    assert_eq!(warps, 2_980);
    assert_eq!(lds(&b32) - lds(&b64), 14_076 - warps);
}
