//! One shared access lane by lane: each active lane's address, bank and
//! phase, and which lanes collide (meet other words in their bank).
//!
//! The rule is the simulator's (`docs/hardware.md`): a wavefront delivers
//! one word of `bank_bytes` from each bank; an access of `bytes` per lane
//! is served in phases of `max(1, banks * bank_bytes / bytes)` consecutive
//! lanes; in a phase, a bank delivering `n` distinct words needs `n`
//! wavefronts. Lanes reading the same word share it (a broadcast).

use std::collections::BTreeMap;

use crate::replay::SmemRec;

/// The bank geometry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Number of banks.
    pub banks: u32,
    /// Bytes per bank word.
    pub bank_bytes: u32,
}

/// One active lane of an access.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LaneAccess {
    /// The lane.
    pub lane: u32,
    /// Its byte address.
    pub addr: u64,
    /// The bank of its first word.
    pub bank: u32,
    /// The phase it is served in.
    pub phase: u32,
    /// Whether a bank it uses delivers another word in its phase.
    pub collides: bool,
}

/// A bank of one phase that delivers more than one word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hot {
    /// The phase.
    pub phase: u32,
    /// The bank.
    pub bank: u32,
    /// Distinct words it delivers (its wavefronts in the phase).
    pub words: u32,
    /// The lanes that use it.
    pub lanes: Vec<u32>,
}

/// An access lane by lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lanes {
    /// Lanes per phase.
    pub per_phase: u32,
    /// The active lanes, in order.
    pub lanes: Vec<LaneAccess>,
    /// The banks that deliver several words in a phase, busiest first.
    pub hot: Vec<Hot>,
}

/// The access `a` lane by lane; `None` when its trace has no addresses
/// (written before format version 3).
pub fn lanes(a: &SmemRec, g: Geometry) -> Option<Lanes> {
    if a.addrs.is_empty() || a.bytes == 0 || g.banks == 0 || g.bank_bytes == 0 {
        return None;
    }
    let bw = u64::from(g.bank_bytes);
    let per_phase = (g.banks * g.bank_bytes / a.bytes).max(1);
    // (phase, bank) -> distinct words and the lanes using it.
    let mut use_of: BTreeMap<(u32, u32), (Vec<u64>, Vec<u32>)> = BTreeMap::new();
    let mut out = Vec::new();
    for (lane, &addr) in a.addrs.iter().enumerate() {
        if a.active >> lane & 1 == 0 {
            continue;
        }
        let lane = lane as u32;
        let phase = lane / per_phase;
        for word in addr / bw..=(addr + u64::from(a.bytes) - 1) / bw {
            let bank = (word % u64::from(g.banks)) as u32;
            let e = use_of.entry((phase, bank)).or_default();
            if !e.0.contains(&word) {
                e.0.push(word);
            }
            if !e.1.contains(&lane) {
                e.1.push(lane);
            }
        }
        out.push(LaneAccess {
            lane,
            addr,
            bank: ((addr / bw) % u64::from(g.banks)) as u32,
            phase,
            collides: false,
        });
    }
    let mut hot: Vec<Hot> = use_of
        .into_iter()
        .filter(|(_, (words, _))| words.len() > 1)
        .map(|((phase, bank), (words, lanes))| Hot {
            phase,
            bank,
            words: words.len() as u32,
            lanes,
        })
        .collect();
    hot.sort_by_key(|h| (std::cmp::Reverse(h.words), h.phase, h.bank));
    for l in &mut out {
        l.collides = hot.iter().any(|h| h.lanes.contains(&l.lane));
    }
    Some(Lanes {
        per_phase,
        lanes: out,
        hot,
    })
}

#[cfg(test)]
mod tests {
    use traces::AccessKind;

    use super::*;

    fn access(bytes: u32, addrs: Vec<u64>) -> SmemRec {
        SmemRec {
            cycle: 0,
            warp: 0,
            pc: 0,
            kind: AccessKind::Store,
            wavefronts: 0,
            conflicts: 0,
            words_per_bank: Vec::new(),
            bytes,
            active: (1u64 << addrs.len()) - 1,
            addrs,
        }
    }

    const G: Geometry = Geometry {
        banks: 32,
        bank_bytes: 4,
    };

    #[test]
    fn a_transposing_store_collides_sixteen_ways_in_every_bank_it_uses() {
        // Lane l writes word l * 16: lanes l and l + 2 share bank (16 l) % 32.
        let a = access(4, (0..32).map(|l| l * 16 * 4).collect());
        let l = lanes(&a, G).unwrap();
        assert_eq!(l.per_phase, 32);
        assert!(l.lanes.iter().all(|x| x.collides));
        assert_eq!(l.hot.len(), 2);
        assert_eq!((l.hot[0].bank, l.hot[0].words), (0, 16));
        assert_eq!(l.hot[0].lanes, (0..32).step_by(2).collect::<Vec<u32>>());
    }

    #[test]
    fn broadcasts_and_other_phases_do_not_collide() {
        // Every lane reads word 0: one word, no collision.
        let same = access(4, vec![0; 32]);
        assert!(lanes(&same, G).unwrap().hot.is_empty());
        // 8-byte lanes: phases of 16 lanes; lane 0 and lane 16 use the
        // same banks but in different phases.
        let mut addrs: Vec<u64> = (0..32).map(|l| l * 8).collect();
        addrs[16] = 0;
        let wide = lanes(&access(8, addrs), G).unwrap();
        assert_eq!(wide.per_phase, 16);
        assert!(wide.hot.is_empty(), "{:?}", wide.hot);
        // An old trace has no addresses.
        assert_eq!(lanes(&access(0, Vec::new()), G), None);
    }
}
