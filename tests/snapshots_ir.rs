//! Snapshots of generated code and of the example kernels' counters: the
//! printed IR of a few HotSort kernels (a generator change shows as a text
//! diff), and every catalogue kernel's counters on the `h200` preset.

use kernels_ir::printer::print_kernel;
use kernels_ir::{Dim3, Kernel, ParamType, ParamValue, verify_kernel};
use sim::{Gpu, GpuConfig, RunOptions};
use simsort::experiment::SortOptions;
use simsort::experiment::sort::{hotsort_config, machine_config};
use sorts::hotsort::{self, HotSortConfig, Layout, MergeExchange};

use crate::snapshot_files::leftovers;
use crate::snapshots_hotsort::{check_snapshot, counter_lines};

/// The HotSort configuration `simsort kernels` builds for these options on
/// the `h200` preset (machine-sized blocks).
fn h200_config(warp: u32, height: u32, layout: Layout, merge: MergeExchange) -> HotSortConfig {
    let opts = SortOptions {
        warp,
        slab_height: Some(height),
        smem_layout: layout,
        merge,
        ..SortOptions::default()
    };
    let gpu = machine_config(&opts).expect("h200 with this warp width is valid");
    hotsort_config(&opts, &gpu).expect("the configuration is valid")
}

/// The HotSort kernel `name` of `cfg`.
fn hotsort_kernel(cfg: &HotSortConfig, name: &str) -> Kernel {
    hotsort::generate(cfg)
        .into_iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| panic!("HotSort has no kernel `{name}`"))
}

/// Whether snapshot `name` is `hotsort_ir_text`'s (the module's other
/// snapshots are `example_kernel_counters`').
fn is_ir_text(name: &str) -> bool {
    name.starts_with("ir_")
}

#[test]
fn hotsort_ir_text() {
    // The default layout and exchange at a small and the reference shape;
    // then the XOR layout with the shared-memory exchange, which changes
    // the block sort, the block clean and the transpose (the streaming
    // merges keep keys in registers and are the same in every layout).
    let shapes: [(u32, u32, Layout, MergeExchange, &[&str]); 3] = [
        (
            8,
            4,
            Layout::Pad,
            MergeExchange::Shuffle,
            &["bs", "fm", "transpose"],
        ),
        (
            32,
            16,
            Layout::Pad,
            MergeExchange::Shuffle,
            &["bs", "fm", "transpose"],
        ),
        (
            8,
            4,
            Layout::Xor,
            MergeExchange::Shared,
            &["bs", "bc", "transpose"],
        ),
    ];
    let mut failed = Vec::new();
    let mut produced = Vec::new();
    for (warp, height, layout, merge, names) in shapes {
        let cfg = h200_config(warp, height, layout, merge);
        for name in names {
            let text = print_kernel(&hotsort_kernel(&cfg, name));
            let snapshot = format!("ir_{name}_w{warp}_h{height}_{layout}_{merge}");
            failed.extend(check_snapshot!(&snapshot, &text));
            produced.push(snapshot);
        }
    }
    failed.extend(leftovers("snapshots_ir", is_ir_text, &produced));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Threads per block and blocks of the example launches.
const BLOCK: u32 = 256;
const GRID: u32 = 8;
/// The `n` parameter: short of the grid's threads, so the guards that
/// skip the tail are exercised.
const N: u32 = GRID * BLOCK - 48;
/// Bytes of every pointer parameter's buffer: room for `gmem_stride_S`'s
/// largest stride (128 words per thread) and for `vcopy4`'s 16-byte elements.
const BUFFER_BYTES: u64 = GRID as u64 * BLOCK as u64 * 128 * 4;

/// A deterministic word pattern for the input buffers.
fn pattern(len: usize) -> Vec<u32> {
    (0..len as u32)
        .map(|i| i.wrapping_mul(0x9E37_79B9).rotate_left(7))
        .collect()
}

#[test]
fn example_kernel_counters() {
    let cfg = GpuConfig::h200();
    let warp = cfg.warp_size;
    let mut failed = Vec::new();
    let mut produced = Vec::new();
    for named in kernels_ir::kernels::catalog(warp) {
        let name = named.name().to_string();
        let kernel = verify_kernel(named.kernel)
            .unwrap_or_else(|e| panic!("example kernel {name} does not verify: {e}"));
        let mut gpu = Gpu::new(cfg.clone(), RunOptions::default()).expect("h200 is valid");
        let params: Vec<ParamValue> = kernel
            .kernel()
            .params
            .iter()
            .map(|p| match p.ty {
                ParamType::U64 => {
                    let buf = gpu.alloc(BUFFER_BYTES);
                    gpu.write_u32s(buf, &pattern((BUFFER_BYTES / 4) as usize))
                        .expect("the buffer was just allocated");
                    ParamValue::U64(buf)
                }
                ParamType::U32 => ParamValue::U32(N),
            })
            .collect();
        let stats = gpu
            .launch(&kernel, Dim3::x(GRID), Dim3::x(BLOCK), &params)
            .unwrap_or_else(|e| panic!("example kernel {name} failed: {e}"));
        let mut text = format!("# h200, grid {GRID}, block {BLOCK}, n = {N}\n");
        for line in counter_lines(&stats) {
            text.push_str(&line);
            text.push('\n');
        }
        let snapshot = format!("example_{name}");
        failed.extend(check_snapshot!(&snapshot, &text));
        produced.push(snapshot);
    }
    failed.extend(leftovers("snapshots_ir", |n| !is_ir_text(n), &produced));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
