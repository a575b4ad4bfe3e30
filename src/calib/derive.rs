//! A GPU's machine fields from its microbenchmarks, relative to a
//! calibrated reference GPU.
//!
//! The reference's timing fields (the `h200` preset's) were calibrated
//! against its microbenchmarks and suites; some are measured latencies,
//! others absorb costs the model does not time one by one (the launch
//! overhead is an empty kernel's cost plus about 500 cycles real kernels
//! pay). Run the same microbenchmarks on another GPU and each field
//! moves by what its measurement moved: a latency or a fixed cost by the
//! difference, a bandwidth by the ratio of the bandwidths achieved. What a
//! GPU's device attributes give (SMs, L2 size, shared memory, registers) is
//! read from them. The inputs are what `hw/measure_machine.sh` writes:
//! `timing_ncu.csv` (`hw/timing.cu`'s launches, in its fixed order),
//! `atomics/latency.txt` (`hw/atomics/atomics.cu`'s chains), `latency.csv`
//! (`hw/latency.cu`'s dependent chains), `gpu.txt` and `device.txt`.

use sim::GpuConfig;

use super::ncu::{self, NcuLaunch};

/// One field set from a measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    /// The machine field.
    pub field: &'static str,
    /// Its value.
    pub value: u64,
    /// How it was computed from which measurement.
    pub source: String,
}

/// One GPU's measurements.
pub struct Measured<'a> {
    /// `timing_ncu.csv`: `hw/timing.cu`'s launches under ncu.
    pub timing: &'a str,
    /// `atomics/latency.txt`: the shared-memory chains of `hw/atomics`.
    pub atomics_latency: &'a str,
    /// `latency.csv`: `hw/latency.cu`'s dependent chains
    /// (`chain,steps,cycles,cycles_per_step`).
    pub latency: &'a str,
}

/// `hw/timing.cu`'s launches, by position: `(index, kernel)`.
const EMPTY_1X32: (usize, &str) = (0, "empty");
const EMPTY_132X32: (usize, &str) = (1, "empty");
const EMPTY_132X1024: (usize, &str) = (2, "empty");
const EMPTY_1320X256: (usize, &str) = (3, "empty");
const EMPTY_132000X256: (usize, &str) = (5, "empty");
/// The copies, reads and writes of one word a thread over 256 and 1,024
/// blocks of 256 threads: one wave of blocks, so what they cost beyond an
/// empty kernel is their work and the fixed cost of touching memory.
const SMALL_MEMORY: [(usize, &str); 6] = [
    (6, "copy_u32"),
    (7, "copy_u32"),
    (12, "read_u32"),
    (13, "read_u32"),
    (18, "write_u32"),
    (19, "write_u32"),
];
const COPY_ROWS16_2048: (usize, &str) = (27, "copy_rows16");
const BAR_1X32: (usize, &str) = (28, "bar_loop");
const BAR_1X1024: (usize, &str) = (30, "bar_loop");
const CHASE: [(usize, &str); 2] = [(32, "chase"), (33, "chase")];

/// `hw/timing.cu`'s launches of one GPU.
struct Timing(Vec<NcuLaunch>);

impl Timing {
    fn parse(text: &str, what: &str) -> Result<Timing, String> {
        let launches = ncu::parse(text).map_err(|e| format!("{what}: {e}"))?;
        if launches.len() != 34 {
            return Err(format!(
                "{what}: {} launches, hw/timing.cu makes 34",
                launches.len()
            ));
        }
        Ok(Timing(launches))
    }

    /// Metric `metric` of launch `at`, checking it is the kernel expected.
    fn metric(&self, at: (usize, &str), metric: &str) -> Result<f64, String> {
        let l = &self.0[at.0];
        if l.kernel != at.1 {
            return Err(format!(
                "launch {} is `{}`, hw/timing.cu's is `{}`",
                at.0, l.kernel, at.1
            ));
        }
        l.metrics
            .get(metric)
            .copied()
            .ok_or_else(|| format!("launch {} has no {metric}", at.0))
    }

    fn cycles(&self, at: (usize, &str)) -> Result<f64, String> {
        self.metric(at, "sm__cycles_elapsed.max")
    }

    /// Mean cycles of `launches`.
    fn mean_cycles(&self, launches: &[(usize, &str)]) -> Result<f64, String> {
        let sum = (launches.iter())
            .map(|&at| self.cycles(at))
            .sum::<Result<f64, String>>()?;
        Ok(sum / launches.len() as f64)
    }

    /// An empty kernel's cycles: the launch and drain alone (mean of the
    /// grids too small to wait on block dispatch).
    fn empty(&self) -> Result<f64, String> {
        self.mean_cycles(&[EMPTY_1X32, EMPTY_132X32, EMPTY_132X1024])
    }

    /// Mean cycles of the one-wave launches that read or write global
    /// memory ([`SMALL_MEMORY`]).
    fn small_memory(&self) -> Result<f64, String> {
        self.mean_cycles(&SMALL_MEMORY)
    }

    /// Cycles per block an SM takes to start blocks: the slope of empty
    /// grids from 1,320 to 132,000 blocks of 256 threads.
    fn dispatch(&self, sms: f64) -> Result<f64, String> {
        let blocks_per_sm = (132_000.0 - 1_320.0) / sms;
        Ok((self.cycles(EMPTY_132000X256)? - self.cycles(EMPTY_1320X256)?) / blocks_per_sm)
    }

    /// DRAM bytes per cycle achieved by the row copy of 64 MiB each way.
    fn dram_bandwidth(&self) -> Result<f64, String> {
        let bytes = self.metric(COPY_ROWS16_2048, "dram__bytes_read.sum")?
            + self.metric(COPY_ROWS16_2048, "dram__bytes_write.sum")?;
        Ok(bytes / self.cycles(COPY_ROWS16_2048)?)
    }

    /// Cycles a step of the dependent global-load chains (2,000 steps each,
    /// both missing L2).
    fn dram_step(&self) -> Result<f64, String> {
        let sum = CHASE
            .iter()
            .map(|&at| self.cycles(at))
            .sum::<Result<f64, String>>()?;
        Ok(sum / (2_000.0 * CHASE.len() as f64))
    }

    /// Cycles of one `bar.sync` loop iteration with one warp (the launch's
    /// empty-kernel cost taken off), and what each further warp adds.
    fn barrier(&self, empty: f64) -> Result<(f64, f64), String> {
        let one = (self.cycles(BAR_1X32)? - empty) / 1_000.0;
        let per_warp = (self.cycles(BAR_1X1024)? - self.cycles(BAR_1X32)?) / (31.0 * 1_000.0);
        Ok((one, per_warp))
    }
}

/// Cycles a step of chain `name` in `atomics/latency.txt`.
fn chain(text: &str, name: &str) -> Result<f64, String> {
    text.lines()
        .find_map(|l| {
            let mut f = l.split(',');
            (f.next()? == name).then(|| f.nth(1)?.trim().parse().ok())?
        })
        .ok_or_else(|| format!("atomics latency: no chain {name}"))
}

/// Cycles a step of `hw/latency.cu`'s chain `name` (its `latency.csv`
/// row's last column).
fn latency_chain(text: &str, name: &str) -> Result<f64, String> {
    text.lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.len() == 4 && f[0] == name).then(|| f[3].trim().parse().ok())?
        })
        .ok_or_else(|| format!("latency.csv: no chain {name}"))
}

/// Device attribute `name` of `device.txt` (`name value` lines).
fn attribute(device: &str, name: &str) -> Result<u64, String> {
    let key = format!("device__attribute_{name} ");
    device
        .lines()
        .find_map(|l| l.strip_prefix(&key))
        .and_then(|v| v.trim().replace(',', "").parse().ok())
        .ok_or_else(|| format!("device.txt: no attribute {name}"))
}

/// The SM clock of `gpu.txt` (`name, driver, SM MHz, memory MHz, ...`).
fn max_sm_clock(gpu: &str) -> Result<u64, String> {
    gpu.lines()
        .next()
        .and_then(|l| l.split(',').nth(2))
        .and_then(|f| f.trim().strip_suffix(" MHz"))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| "gpu.txt: no SM clock (`..., 1980 MHz, ...`)".to_string())
}

/// `reference` plus a measured difference, never below `min`.
fn moved(reference: u32, delta: f64, min: u64) -> u64 {
    ((f64::from(reference) + delta).round() as u64).max(min)
}

/// Every field of a GPU that its measurements (`gpu`, with its `gpu.txt`
/// and `device.txt`) give, relative to the `reference` machine and its
/// measurements `base`.
pub fn derive(
    reference: &GpuConfig,
    base: &Measured,
    gpu: &Measured,
    gpu_txt: &str,
    device_txt: &str,
) -> Result<Vec<Derived>, String> {
    let (rt, t) = (
        Timing::parse(base.timing, "reference timing")?,
        Timing::parse(gpu.timing, "timing")?,
    );
    let mut out = Vec::new();
    let mut push = |field: &'static str, value: u64, source: String| {
        out.push(Derived {
            field,
            value,
            source,
        })
    };
    for (field, attr) in [
        ("num_sms", "multiprocessor_count"),
        ("warp_size", "warp_size"),
        ("num_subpartitions", "num_schedulers_per_multiprocessor"),
        ("max_warps_per_sm", "max_warps_per_multiprocessor"),
        ("max_blocks_per_sm", "max_blocks_per_multiprocessor"),
        ("max_threads_per_block", "max_threads_per_block"),
        ("regs_per_sm", "max_registers_per_multiprocessor"),
        ("max_regs_per_thread", "max_registers_per_thread"),
        ("smem_bytes_per_sm", "max_shared_memory_per_multiprocessor"),
        ("smem_bytes_per_block", "max_shared_memory_per_block_optin"),
        ("l2_bytes", "l2_cache_size"),
    ] {
        push(
            field,
            attribute(device_txt, attr)?,
            format!("device attribute {attr}"),
        );
    }
    push(
        "clock_mhz",
        max_sm_clock(gpu_txt)?,
        "nvidia-smi clocks.max.sm".into(),
    );
    let (re, e) = (rt.empty()?, t.empty()?);
    push(
        "launch_overhead_cycles",
        moved(reference.launch_overhead_cycles, e - re, 0),
        format!("empty kernels {e:.0} cycles against {re:.0}"),
    );
    // What touching memory adds to a launch moves by what the small
    // memory launches moved beyond the empty kernel's move: on the H100
    // they cost about 250 cycles less over an empty kernel than on the
    // H200, so charging them the H200's 540 made every short launch of a
    // sort slow there.
    let (rm, m) = (rt.small_memory()? - re, t.small_memory()? - e);
    push(
        "memory_launch_cycles",
        moved(reference.memory_launch_cycles, m - rm, 0),
        format!(
            "one-wave copies, reads and writes {m:.0} cycles beyond an empty kernel against {rm:.0}"
        ),
    );
    let sms = f64::from(reference.num_sms);
    let (rd, d) = (rt.dispatch(sms)?, t.dispatch(sms)?);
    push(
        "block_dispatch_cycles",
        moved(reference.block_dispatch_cycles, d - rd, 0),
        format!("{d:.2} cycles a block against {rd:.2}"),
    );
    let (rb, b) = (rt.dram_bandwidth()?, t.dram_bandwidth()?);
    push(
        "dram_bytes_per_cycle",
        (f64::from(reference.dram_bytes_per_cycle) * b / rb)
            .round()
            .max(1.0) as u64,
        format!("row copy {b:.0} DRAM bytes a cycle against {rb:.0}"),
    );
    let (rs, s) = (rt.dram_step()?, t.dram_step()?);
    push(
        "dram_latency_cycles",
        moved(reference.dram_latency_cycles, s - rs, 1),
        format!("dependent loads {s:.1} cycles a step against {rs:.1}"),
    );
    let ((r1, rw), (b1, bw)) = (rt.barrier(re)?, t.barrier(e)?);
    push(
        "bar_latency_cycles",
        moved(reference.bar_latency_cycles, b1 - r1, 1),
        format!("bar.sync loop, one warp, {b1:.2} cycles against {r1:.2}"),
    );
    push(
        "bar_release_cycles_per_warp",
        moved(reference.bar_release_cycles_per_warp, bw - rw, 0),
        format!("bar.sync loop, {bw:.3} cycles a warp against {rw:.3}"),
    );
    let (ra, a) = (base.atomics_latency, gpu.atomics_latency);
    let (rl, l) = (chain(ra, "chain_ld")?, chain(a, "chain_ld")?);
    push(
        "smem_latency_cycles",
        moved(reference.smem_latency_cycles, l - rl, 1),
        format!("shared load chain {l:.2} cycles a step against {rl:.2}"),
    );
    let (rc, c) = (chain(ra, "chain_atom_c32")?, chain(a, "chain_atom_c32")?);
    push(
        "smem_atom_latency_cycles",
        moved(reference.smem_atom_latency_cycles, c - rc, 1),
        format!("shared atomic chain {c:.2} cycles a step against {rc:.2}"),
    );
    // The same SM's pipes and the L2 behind it: each latency moves by what
    // its dependent chain moved (a chain step also pays the instructions
    // that keep it dependent, the same on both GPUs).
    let (rl, l) = (base.latency, gpu.latency);
    for (field, name, what, reference) in [
        (
            "alu_latency_cycles",
            "alu_op",
            "ALU chain",
            reference.alu_latency_cycles,
        ),
        (
            "shfl_latency_cycles",
            "shfl",
            "shuffle chain",
            reference.shfl_latency_cycles,
        ),
        (
            "l2_latency_cycles",
            "l2_hit",
            "L2-hit chain",
            reference.l2_latency_cycles,
        ),
    ] {
        let (r, g) = (latency_chain(rl, name)?, latency_chain(l, name)?);
        push(
            field,
            moved(reference, g - r, 1),
            format!("{what} {g:.2} cycles a step against {r:.2}"),
        );
    }
    let replay = |text: &str| -> Result<f64, String> {
        Ok((chain(text, "chain_atom_c1")? - chain(text, "chain_atom_c32")?) / 31.0)
    };
    let (rr, r) = (replay(ra)?, replay(a)?);
    push(
        "smem_atom_replay_cycles",
        moved(reference.smem_atom_replay_cycles, r - rr, 0),
        format!("each further atomic wavefront {r:.2} cycles against {rr:.2}"),
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields of the `h100` preset that no H100 microbenchmark
    /// measures and that were fitted to its committed suite recordings
    /// instead (`simsort calibrate --fit --fit-fields`), with the value
    /// the fit gave (docs/calibration.md, "The H100's L2 bandwidth,
    /// fitted").
    const FITTED_ON_H100: [(&str, &str); 1] = [("l2_bytes_per_cycle", "2557")];

    /// The `h100` preset's measured fields are what its committed data
    /// (hw/data/h100/) give against the H200's (hw/data/); the fitted ones
    /// are what the fit gave; the rest are the H200's.
    #[test]
    fn the_h100_preset_is_what_its_committed_measurements_give() {
        let h200 = GpuConfig::h200();
        let base = Measured {
            timing: include_str!("../../hw/data/h200_timing_ncu.csv"),
            atomics_latency: include_str!("../../hw/atomics/data/latency.txt"),
            latency: include_str!("../../hw/data/h200/latency.csv"),
        };
        let gpu = Measured {
            timing: include_str!("../../hw/data/h100/timing_ncu.csv"),
            atomics_latency: include_str!("../../hw/data/h100/atomics/latency.txt"),
            latency: include_str!("../../hw/data/h100/latency.csv"),
        };
        let derived = derive(
            &h200,
            &base,
            &gpu,
            include_str!("../../hw/data/h100/gpu.txt"),
            include_str!("../../hw/data/h100/device.txt"),
        )
        .unwrap();
        let h100 = crate::experiment::machine_file::preset("h100")
            .unwrap()
            .config;
        for d in &derived {
            assert_eq!(
                h100.get(d.field).unwrap(),
                d.value.to_string(),
                "{}: {}",
                d.field,
                d.source
            );
        }
        // What no H100 measurement gives is fitted to its suites or stays
        // the H200's.
        for f in GpuConfig::field_names() {
            if derived.iter().any(|d| d.field == *f) {
                continue;
            }
            match FITTED_ON_H100.iter().find(|(name, _)| name == f) {
                Some((_, value)) => {
                    assert_eq!(h100.get(f).unwrap(), *value, "{f}");
                    assert_ne!(h100.get(f), h200.get(f), "{f} is fitted, not the H200's");
                }
                None => assert_eq!(h100.get(f), h200.get(f), "{f}"),
            }
        }
        // The H200's own measurements give the H200's fields back.
        let own = derive(
            &h200,
            &base,
            &base,
            include_str!("../../hw/data/calib/gpu.txt"),
            include_str!("../../hw/data/h100/device.txt"),
        )
        .unwrap();
        for d in &own {
            assert_eq!(
                h200.get(d.field).unwrap(),
                d.value.to_string(),
                "{}",
                d.field
            );
        }
        assert_eq!(own.len(), derived.len());
    }

    #[test]
    fn a_table_of_other_launches_is_refused_naming_the_launch() {
        let timing = include_str!("../../hw/data/h100/timing_ncu.csv");
        let atomics = include_str!("../../hw/data/h100/atomics/latency.txt");
        let latency = include_str!("../../hw/data/h100/latency.csv");
        let m = Measured {
            timing,
            atomics_latency: atomics,
            latency,
        };
        let swapped = timing.replacen("\"empty()\"", "\"copy()\"", 1);
        let bad = Measured {
            timing: &swapped,
            atomics_latency: atomics,
            latency,
        };
        let e = derive(
            &GpuConfig::h200(),
            &m,
            &bad,
            include_str!("../../hw/data/h100/gpu.txt"),
            include_str!("../../hw/data/h100/device.txt"),
        )
        .unwrap_err();
        assert_eq!(e, "launch 0 is `copy`, hw/timing.cu's is `empty`");
    }
}
