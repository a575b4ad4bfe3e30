//! When an SM's global stores have left it, as far as the L2 has taken
//! them: what a load issued behind them waits for where
//! `loads_wait_for_stores` says so (1: a shared load's data; 2: a global
//! load's request too; 0, the presets: none).
//!
//! **Why.** On the H200 a shared load issued while the SM's warps store
//! waits until those stores have left the SM, and they leave at the pace
//! the L2 takes them, not at the port's (`hw/lds_under_load.cu`: 370
//! cycles a load beside 28 warps storing whole lines, 38 alone). The
//! SM's port ([`crate::l2_port`]) says when a store is sent; when the
//! L2's slices took its sectors is known only once the quantum's requests
//! are timed ([`crate::engine`]). So the SM keeps the latest cycle the L2
//! took a store of its, timed at the last boundary, and, for the stores
//! sent since, their port cycle plus how far the L2 lagged behind the
//! port on the last store timed.
//!
//! **Why it is off.** The model's stores never wait for the L2, so where
//! the L2 bounds a kernel the lag grows through the launch, where the
//! H200's storing warps wait instead: at 1 HotSort's `transpose` and
//! sample sort's `scatter` wait several times the H200's cycles a shared
//! load, at 2 the global `step` kernels at 4M keys run 14% long
//! (docs/calibration.md, "A shared load behind the SM's global stores").
//! Bounding the lag itself held the wrong kernels; an H200 SM holds 32
//! store requests and its port waits for the L2 ("The bound, tried" and
//! "How many stores an SM holds"). And the lag is the slices', which
//! loads and fills share: beside warps that copy (each storing what it
//! just loaded) the H200's shared loads wait no more than beside loads,
//! the model's at 1 78 cycles more; a lag timed on the stores' own path
//! fixes that but moves no sort toward the H200 ("Stores paced by their
//! own loads").

/// One SM's view of its stores' way out.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Drain {
    /// The latest cycle the L2 took a sector of a timed store.
    taken: u64,
    /// How many cycles after the port sent it the L2 took the last timed
    /// store's last sector (0 where the port was the later).
    lag: u64,
    /// The cycle the port sent the SM's latest store.
    sent: u64,
    /// Whether any load waits for the stores (`loads_wait_for_stores`):
    /// if not, the boundaries need not tell the SM about its stores.
    on: bool,
}

impl Drain {
    /// An SM's of a machine of `cfg`, nothing in flight.
    pub fn new(cfg: &crate::GpuConfig) -> Drain {
        Drain {
            on: cfg.loads_wait_for_stores != 0,
            ..Drain::default()
        }
    }

    /// Whether any load waits for the stores.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// The port sends a store at `sent`.
    #[inline]
    pub fn sent(&mut self, sent: u64) {
        self.sent = self.sent.max(sent);
    }

    /// A store the port sent at `sent` was taken by the L2 at `taken`
    /// (its last sector), as timed at a boundary; the SM's stores are
    /// timed in issue order.
    #[inline]
    pub fn taken(&mut self, sent: u64, taken: u64) {
        self.taken = self.taken.max(taken);
        self.lag = taken.saturating_sub(sent);
    }

    /// The cycle the SM's stores sent so far have left it.
    #[inline]
    pub fn left(&self) -> u64 {
        self.taken.max(self.sent + self.lag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_stored_never_waits() {
        assert_eq!(Drain::default().left(), 0);
    }

    #[test]
    fn it_is_on_where_loads_wait() {
        let mut cfg = crate::GpuConfig::h200();
        assert!(!Drain::new(&cfg).is_on());
        cfg.loads_wait_for_stores = 1;
        assert!(Drain::new(&cfg).is_on());
    }

    #[test]
    fn a_store_not_yet_timed_leaves_when_the_port_sends_it_plus_the_last_lag() {
        let mut d = Drain::default();
        d.sent(100);
        assert_eq!(d.left(), 100);
        d.taken(100, 160);
        assert_eq!(d.left(), 160);
        d.sent(200);
        assert_eq!(d.left(), 260);
    }

    #[test]
    fn a_port_later_than_the_l2_lags_nothing() {
        let mut d = Drain::default();
        d.sent(300);
        d.taken(300, 250);
        assert_eq!(d.left(), 300);
    }
}
