//! The launch sequence of a sort of `n` keys, computed on the host without
//! touching a device: what [`super::host`] runs and what the launch-count
//! formulas are checked against.

use super::config::BitonicConfig;

/// One launch of the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Planned {
    /// `fill` words `start..end` with the maximum key.
    Fill {
        /// First word.
        start: u64,
        /// One past the last.
        end: u64,
    },
    /// `head` over `tiles` blocks of `threads` threads.
    Head {
        /// Blocks.
        tiles: u64,
        /// Threads per block.
        threads: u32,
    },
    /// One global `step` at vector stride `2^s`.
    Step {
        /// The stage (runs of `2^stage` keys).
        stage: u32,
        /// log2 of the vector stride.
        s: u32,
        /// The stage's first step (the mirror).
        flip: bool,
        /// Sort inside the vectors first.
        pre: bool,
        /// The stage's in-vector steps after.
        post: bool,
        /// Blocks of `G` threads.
        blocks: u64,
    },
    /// `tail` over `tiles` blocks.
    Tail {
        /// The stage it ends.
        stage: u32,
        /// Blocks.
        tiles: u64,
    },
}

impl Planned {
    /// The launch's label in a trace: its stage and what it does
    /// (`stage 14: flip step, stride 2^3 vectors`).
    pub fn label(&self) -> String {
        match *self {
            Planned::Fill { start, end } => format!("fill: pad words {start}..{end}"),
            Planned::Head { tiles, .. } => format!("head: sort {tiles} tiles"),
            Planned::Step { stage, s, flip, .. } => {
                let kind = if flip { "flip" } else { "half" };
                format!("stage {stage}: {kind} step, stride 2^{s} vectors")
            }
            Planned::Tail { stage, tiles } => format!("stage {stage}: tail over {tiles} tiles"),
        }
    }
}

/// The words the sort keeps in memory for `n` keys: `n` rounded up to a
/// whole tile (or, for one tile, to its power of two; for the plain sort, to
/// a whole vector). Words past it up to the next power of two are virtual
/// maximum keys that no launch touches.
pub fn filled(cfg: &BitonicConfig, n: u64) -> u64 {
    let l = u64::from(cfg.vector);
    let p = padded(cfg, n);
    if !cfg.fused {
        n.next_multiple_of(l)
    } else if p <= cfg.tile() {
        p
    } else {
        n.next_multiple_of(cfg.tile())
    }
}

/// The length of the network: the next power of two, at least `2L`.
pub fn padded(cfg: &BitonicConfig, n: u64) -> u64 {
    n.next_power_of_two().max(2 * u64::from(cfg.vector))
}

/// Pairs at vector stride `2^s` whose lower vector lies below `nv`.
pub fn pairs(nv: u64, s: u32) -> u64 {
    ((nv >> (s + 1)) << s) + (nv & ((2 << s) - 1)).min(1 << s)
}

/// Every launch of a sort of `n` keys (none for `n <= 1`).
pub fn plan(cfg: &BitonicConfig, n: u64) -> Vec<Planned> {
    let mut out = Vec::new();
    if n <= 1 {
        return out;
    }
    let (l, g) = (u64::from(cfg.vector), u64::from(cfg.block_threads));
    let lg_l = cfg.vector.trailing_zeros();
    let lg_p = padded(cfg, n).trailing_zeros();
    let fill = filled(cfg, n);
    if fill > n {
        out.push(Planned::Fill {
            start: n,
            end: fill,
        });
    }
    let nv = fill / l;
    let step = |stage, s, flip, pre, post| Planned::Step {
        stage,
        s,
        flip,
        pre,
        post,
        blocks: pairs(nv, s).div_ceil(g),
    };
    if !cfg.fused {
        for k in lg_l + 1..=lg_p {
            for s in (0..k - lg_l).rev() {
                let flip = s == k - 1 - lg_l;
                out.push(step(k, s, flip, flip && k == lg_l + 1, s == 0));
            }
        }
        return out;
    }
    out.extend(fused(cfg, padded(cfg, n), fill));
    out
}

/// The fused launches that sort every aligned span of `span` words (a
/// power of two, at least `2L`) of the first `words` (a multiple of the
/// span, or of the tile when the span is larger): one `head` whose blocks
/// each sort one span when a span fits a tile, else `head` over the tiles
/// and, per stage past the tile, the global steps and a `tail`. Every
/// comparator of a bitonic network of `span` words stays inside one
/// aligned span, so the spans sort independently.
fn fused(cfg: &BitonicConfig, span: u64, words: u64) -> Vec<Planned> {
    let (l, t) = (u64::from(cfg.vector), cfg.tile());
    let lg_l = cfg.vector.trailing_zeros();
    if span <= t {
        let threads = (span / (2 * l)) as u32;
        let tiles = words / span;
        return vec![Planned::Head { tiles, threads }];
    }
    let tiles = words / t;
    let nv = words / l;
    let g = u64::from(cfg.block_threads);
    let mut out = vec![Planned::Head {
        tiles,
        threads: cfg.block_threads,
    }];
    let lg_t = t.trailing_zeros();
    for k in lg_t + 1..=span.trailing_zeros() {
        for s in (lg_t - lg_l..k - lg_l).rev() {
            out.push(Planned::Step {
                stage: k,
                s,
                flip: s == k - 1 - lg_l,
                pre: false,
                post: false,
                blocks: pairs(nv, s).div_ceil(g),
            });
        }
        out.push(Planned::Tail { stage: k, tiles });
    }
    out
}

/// The launches that sort `count` aligned segments of `span` words each
/// (every word present, padding included), independently, with the fused
/// kernels: the segmented sort GPUTeraSort's refinement needs. `span` is a
/// power of two of at least `2L` (see [`min_span`]).
pub fn plan_segments(cfg: &BitonicConfig, span: u64, count: u64) -> Vec<Planned> {
    assert!(cfg.fused, "segments sort with the fused kernels");
    assert!(
        span.is_power_of_two() && span >= min_span(cfg),
        "span {span}"
    );
    if count == 0 {
        return Vec::new();
    }
    fused(cfg, span, span * count)
}

/// The smallest span [`plan_segments`] sorts: one vector pair (`2L`).
pub fn min_span(cfg: &BitonicConfig) -> u64 {
    2 * u64::from(cfg.vector)
}
