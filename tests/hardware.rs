//! The simulator against an H200: the microbenchmarks of `hw/microbench.cu`,
//! rebuilt in our IR, must count exactly what Nsight Compute counted on the
//! real chip (`hw/data/h200_microbench.csv`).

use std::collections::BTreeMap;

use kernels_ir::{KernelBuilder, Opcode, Param, ParamType, Reg, RegList, Special, verify_kernel};
use sim::{Dim3, Gpu, GpuConfig, KernelStats, ParamValue, RunOptions};

/// The counters compared (ncu names); instruction totals are left out since
/// our IR is not SASS.
const METRICS: &[&str] = &[
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
];

/// kernel name -> metric -> value, from the committed CSV.
fn measured() -> BTreeMap<String, BTreeMap<String, f64>> {
    let text = include_str!("../hw/data/h200_microbench.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let mut out = BTreeMap::new();
    for line in lines {
        let (name, rest) = match line.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').expect("closing quote");
                (&quoted[..end], &quoted[end + 2..])
            }
            None => line.split_once(',').expect("a comma"),
        };
        let values = rest.split(',').map(|v| v.parse::<f64>().expect("a number"));
        let row = header[1..]
            .iter()
            .map(|h| h.to_string())
            .zip(values)
            .collect();
        out.insert(name.to_string(), row);
    }
    out
}

/// A one-warp kernel: `out` param, lane id in a register, and the global
/// store of one word per lane that every microbenchmark ends with.
struct Micro {
    b: KernelBuilder,
    lane: Reg,
    out_addr: Reg,
    input: Param,
}

impl Micro {
    fn new(name: &str) -> Micro {
        let mut b = KernelBuilder::new(name);
        let out = b.param("out", ParamType::U64);
        let input = b.param("in", ParamType::U64);
        let (lane, off, out_addr) = (b.reg32(), b.reg64(), b.reg64());
        b.mov(lane, Special::LaneId);
        b.cvt_u64_u32(off, lane);
        b.shl(off, off, 2);
        b.add(out_addr, out, off);
        Micro {
            b,
            lane,
            out_addr,
            input,
        }
    }

    /// Stores `value` to `out[lane]`, runs on one warp of 32, returns stats.
    fn run(mut self, value: Reg) -> KernelStats {
        self.b.st_global_b32(self.out_addr, 0, value);
        let kernel = verify_kernel(self.b.build()).expect("micro kernel verifies");
        let mut gpu = Gpu::new(GpuConfig::h200(), RunOptions::default()).unwrap();
        let out = gpu.alloc(64 * 4);
        let input = gpu.alloc(64 * 64 * 64 * 4);
        gpu.launch(
            &kernel,
            Dim3::x(1),
            Dim3::x(32),
            &[ParamValue::U64(out), ParamValue::U64(input)],
        )
        .expect("micro kernel runs")
    }
}

/// `smem_stride<T, S>`: store then load element `lane * S` of `bytes`-wide T.
fn smem_stride(bytes: u32, stride: u32) -> KernelStats {
    let mut m = Micro::new("smem_stride");
    m.b.shared(33 * 64 * 16, 16);
    let words = (bytes / 4) as usize;
    let vals = m.b.regs32(words);
    let addr = m.b.reg32();
    m.b.mul(addr, m.lane, stride * bytes);
    for &v in &vals {
        m.b.mov(v, m.lane);
    }
    let (st, ld) = match bytes {
        4 => (Opcode::StSharedB32, Opcode::LdSharedB32),
        8 => (Opcode::StSharedB64, Opcode::LdSharedB64),
        _ => (Opcode::StSharedB128, Opcode::LdSharedB128),
    };
    m.b.store(st, Some(addr), 0, RegList::new(&vals));
    m.b.warp_sync();
    m.b.load(ld, RegList::new(&vals), Some(addr), 0);
    m.run(vals[0])
}

/// `smem_broadcast<DIV>`: store word lane, load word lane / DIV.
fn smem_broadcast(div: u32) -> KernelStats {
    let mut m = Micro::new("smem_broadcast");
    m.b.shared(64 * 4, 4);
    let (addr, v) = (m.b.reg32(), m.b.reg32());
    m.b.shl(addr, m.lane, 2);
    m.b.st_shared_b32(Some(addr), 0, m.lane);
    m.b.warp_sync();
    m.b.shr(addr, m.lane, div.trailing_zeros());
    m.b.shl(addr, addr, 2);
    m.b.ld_shared_b32(v, Some(addr), 0);
    m.run(v)
}

/// `smem_transpose_read<H, PITCH>`: fill PITCH rows, then each lane reads
/// words `lane * PITCH + r` for r < H.
fn smem_transpose_read(h: u32, pitch: u32) -> KernelStats {
    let mut m = Micro::new("smem_transpose_read");
    m.b.shared(64 * 65 * 4, 4);
    let (addr, v, acc) = (m.b.reg32(), m.b.reg32(), m.b.reg32());
    m.b.shl(addr, m.lane, 2);
    for i in 0..pitch {
        m.b.st_shared_b32(Some(addr), (i * 32 * 4) as i32, m.lane);
    }
    m.b.warp_sync();
    m.b.mul(addr, m.lane, pitch * 4);
    m.b.mov(acc, 0);
    for r in 0..h {
        m.b.ld_shared_b32(v, Some(addr), (r * 4) as i32);
        m.b.add(acc, acc, v);
    }
    m.run(acc)
}

/// `gmem_stride<S>`: load `in[lane * S]`.
fn gmem_stride(stride: u32) -> KernelStats {
    let mut m = Micro::new("gmem_stride");
    let (off, addr, v) = (m.b.reg64(), m.b.reg64(), m.b.reg32());
    let input = m.input;
    m.b.mul(v, m.lane, stride * 4);
    m.b.cvt_u64_u32(off, v);
    m.b.add(addr, input, off);
    m.b.ld_global_b32(v, addr, 0);
    m.run(v)
}

fn simulated(kernel: &str) -> KernelStats {
    let (name, args) = kernel.split_once('<').expect("templated name");
    let args: Vec<&str> = args.trim_end_matches('>').split(", ").collect();
    let num = |i: usize| args[i].parse::<u32>().expect("numeric template argument");
    match name {
        "smem_stride" => {
            let bytes = match args[0] {
                "u32" => 4,
                "u64" => 8,
                "uint4" => 16,
                other => panic!("unknown type {other}"),
            };
            smem_stride(bytes, num(1))
        }
        "smem_broadcast" => smem_broadcast(num(0)),
        "smem_transpose_read" => smem_transpose_read(num(0), num(1)),
        "gmem_stride" => gmem_stride(num(0)),
        other => panic!("no IR twin for {other}"),
    }
}

#[test]
fn simulator_counts_what_nsight_compute_measured_on_an_h200() {
    let data = measured();
    assert!(
        data.len() >= 25,
        "the committed measurements cover {} kernels",
        data.len()
    );
    let mut mismatches = Vec::new();
    for (kernel, hw) in &data {
        let sim = simulated(kernel).metrics();
        for metric in METRICS {
            let (want, got) = (hw[*metric], sim[metric]);
            if want != got {
                mismatches.push(format!("{kernel}: {metric}: H200 {want}, simulated {got}"));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
