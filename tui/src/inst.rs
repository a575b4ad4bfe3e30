//! What the replay needs to know about an instruction, read from its
//! printed text (the trace holds IR as text so the UI needs no `kernels-ir`).
//!
//! Only the shapes that draw compare-exchange pairs matter: `cmpx.u lo, hi`
//! (two rows of one lane) and `shfl.xor dst, src, mask, width` (lane pairs
//! `lane ^ mask`). Everything else is [`InstKind::Other`].

use traces::{RegClass, RegRef};

/// The parts of an instruction the slab panel draws.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InstKind {
    /// `cmpx.u`/`cmpx.s lo, hi`: in-lane compare-exchange of two registers.
    Cmpx {
        /// Gets the minimum.
        lo: RegRef,
        /// Gets the maximum.
        hi: RegRef,
    },
    /// `shfl.xor dst, src, mask, ...` with an immediate mask: lanes pair
    /// with `lane ^ mask`.
    ShflXor {
        /// The register written.
        dst: RegRef,
        /// The lane mask.
        mask: u32,
    },
    /// `bar.sync`.
    Barrier,
    /// Anything else.
    Other,
}

impl InstKind {
    /// Reads one printed instruction (indentation and a guard allowed).
    pub fn parse(text: &str) -> InstKind {
        let mut t = text.trim();
        if t.starts_with('@') {
            t = t.split_once(' ').map_or("", |(_, rest)| rest.trim_start());
        }
        let (op, rest) = t.split_once(' ').unwrap_or((t, ""));
        let args: Vec<&str> = rest.split(',').map(str::trim).collect();
        match op {
            "cmpx.u" | "cmpx.s" => match (
                args.first().and_then(|a| reg(a)),
                args.get(1).and_then(|a| reg(a)),
            ) {
                (Some(lo), Some(hi)) => InstKind::Cmpx { lo, hi },
                _ => InstKind::Other,
            },
            "shfl.xor" => match (
                args.first().and_then(|a| reg(a)),
                args.get(2).and_then(|a| a.parse().ok()),
            ) {
                (Some(dst), Some(mask)) => InstKind::ShflXor { dst, mask },
                _ => InstKind::Other,
            },
            "bar.sync" => InstKind::Barrier,
            _ => InstKind::Other,
        }
    }
}

/// Reads a register name: `r3`, `d0`, `p1`.
pub fn reg(text: &str) -> Option<RegRef> {
    let mut chars = text.chars();
    let class = match chars.next()? {
        'r' => RegClass::B32,
        'd' => RegClass::B64,
        'p' => RegClass::Pred,
        _ => return None,
    };
    let index = chars.as_str().parse().ok()?;
    Some(RegRef { class, index })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(index: u32) -> RegRef {
        RegRef {
            class: RegClass::B32,
            index,
        }
    }

    #[test]
    fn reads_compare_exchanges_and_xor_shuffles() {
        assert_eq!(
            InstKind::parse("    cmpx.u r2, r5"),
            InstKind::Cmpx { lo: r(2), hi: r(5) }
        );
        assert_eq!(
            InstKind::parse("@!p0 shfl.xor r16, r3, 7, 32"),
            InstKind::ShflXor {
                dst: r(16),
                mask: 7
            }
        );
        assert_eq!(InstKind::parse("bar.sync"), InstKind::Barrier);
        assert_eq!(InstKind::parse("shfl.xor r1, r2, r3, 32"), InstKind::Other);
        assert_eq!(InstKind::parse("add r1, r2, r3"), InstKind::Other);
        assert_eq!(InstKind::parse(""), InstKind::Other);
        assert_eq!(
            reg("d12"),
            Some(RegRef {
                class: RegClass::B64,
                index: 12
            })
        );
        assert_eq!(reg("x1"), None);
    }
}
