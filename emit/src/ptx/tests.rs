use kernels_ir::{
    Address, Format, Inst, InstData, Kernel, Opcode, Operand, ParamType, Reg, RegList,
    parse_kernel, verify_kernel,
};

use crate::{EmitError, PtxOptions, emit_ptx};

/// Emits IR text (a kernel body after `kernel k {`) with the default options.
fn emit_text(body: &str) -> Result<String, EmitError> {
    emit_with(body, &PtxOptions::default())
}

fn emit_with(body: &str, opts: &PtxOptions) -> Result<String, EmitError> {
    let text = format!("kernel k {{\n{body}\n}}\n");
    let (kernel, _) = parse_kernel(&text).expect("test kernel parses");
    let kernel = verify_kernel(kernel).expect("test kernel verifies");
    emit_ptx(&kernel, opts)
}

/// The emitted body lines (after the prologue's register zeroing), trimmed.
fn body(body: &str) -> Vec<String> {
    let ptx = emit_text(body).expect("emits");
    let start = ptx.find("// body").map_or(0, |i| i + "// body".len());
    ptx[start..]
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && l != "}")
        .collect()
}

#[test]
fn alu_operations_pick_the_ptx_type_of_their_width() {
    let lines = body(
        "    param n: u32\n    regs r3 d2 p2\n    add r0, r1, $n\n    sub d0, d1, -1\n    \
         mul r0, r0, 3\n    min.s r0, r0, r1\n    max.u d0, d0, d1\n    shl d0, d0, r1\n    \
         shr r0, r0, 31\n    sra d0, d0, r1\n    xor p0, p0, p1\n    not r2, r0",
    );
    assert_eq!(
        lines,
        [
            "add.u32 %r0, %r1, %pw0;",
            "sub.u64 %rd0, %rd1, 0xffffffffffffffff;",
            "mul.lo.u32 %r0, %r0, 3;",
            "min.s32 %r0, %r0, %r1;",
            "max.u64 %rd0, %rd0, %rd1;",
            "shl.b64 %rd0, %rd0, %r1;",
            "shr.u32 %r0, %r0, 31;",
            "shr.s64 %rd0, %rd0, %r1;",
            "xor.pred %p0, %p0, %p1;",
            "not.b32 %r2, %r0;",
            "ret;",
        ]
    );
}

#[test]
fn immediates_print_as_patterns_of_the_operation_width() {
    let lines = body(
        "    regs r1 d1 p1\n    mov r0, -1\n    mov r0, 2147483647\n    mov d0, -9223372036854775808\n    \
         mov p0, 1\n    cvt.s64.s32 d0, -2\n    cvt.u64.u32 d0, -2",
    );
    assert_eq!(
        lines[..6],
        [
            "mov.b32 %r0, 0xffffffff;",
            "mov.b32 %r0, 2147483647;",
            "mov.b64 %rd0, 0x8000000000000000;",
            "mov.pred %p0, 1;",
            "mov.u64 %rd0, 0xfffffffffffffffe;",
            "mov.u64 %rd0, 4294967294;",
        ]
    );
}

#[test]
fn comparisons_take_the_class_of_their_register_operands() {
    let lines = body(
        "    regs r1 d1 p2\n    setp.lt.s p0, d0, 5\n    setp.ge.u p1, 3, r0\n    \
         setp.eq p0, 1, 2\n    selp d0, d0, 7, p1",
    );
    assert_eq!(
        lines[..4],
        [
            "setp.lt.s64 %p0, %rd0, 5;",
            "setp.ge.u32 %p1, 3, %r0;",
            "setp.eq.u32 %p0, 1, 2;",
            "selp.b64 %rd0, %rd0, 7, %p1;",
        ]
    );
}

#[test]
fn compare_exchange_is_a_guarded_min_max_pair() {
    let lines = body("    regs r2 d0 p1\n    @!p0 cmpx.s r0, r1");
    assert_eq!(
        lines[..3],
        [
            "@!%p0 min.s32 %t0, %r0, %r1;",
            "@!%p0 max.s32 %r1, %r0, %r1;",
            "@!%p0 mov.b32 %r0, %t0;",
        ]
    );
}

#[test]
fn loads_and_stores_use_vectors_for_register_lists() {
    let lines = body(
        "    regs r4 d2 p0\n    shared 64\n    ld.global.b64 {r0, r1}, [d0-8]\n    \
         st.global.b128 [d0+16], {d0, d1}\n    ld.global.b128 {r0, r1, r2, r3}, [d0+0]\n    \
         ld.shared.b64 d1, [r0+8]\n    st.shared.b32 [60], r3",
    );
    assert_eq!(
        lines[..6],
        [
            "ld.global.v2.u32 {%r0, %r1}, [%rd0+-8];",
            "st.global.v2.u64 [%rd0+16], {%rd0, %rd1};",
            "ld.global.v4.u32 {%r0, %r1, %r2, %r3}, [%rd0];",
            "add.u32 %sa, %sbase, %r0;",
            "ld.volatile.shared.u64 %rd1, [%sa+8];",
            "st.volatile.shared.u32 [smem+60], %r3;",
        ]
    );
}

#[test]
fn shuffles_pack_the_segment_into_the_clamp_operand() {
    let lines = body(
        "    regs r3 d0 p1\n    shfl.idx r0, r1, r2, 32\n    shfl.up r0, r1, 1, 8\n    \
         shfl.down r0, r1, %laneid, 16\n    shfl.xor r0, r1, 4, 8\n    shfl.xor r0, r1, 8, 8",
    );
    assert_eq!(
        lines[..7],
        [
            "shfl.sync.idx.b32 %r0, %r1, %r2, 0x1f, 0xffffffff;",
            "shfl.sync.up.b32 %r0, %r1, 1, 0x1800, 0xffffffff;",
            // A run-time delta of the width or more reads the own value.
            "setp.ge.u32 %tp0, %sr0, 16;",
            "shfl.sync.down.b32 %t0, %r1, %sr0, 0x101f, 0xffffffff;",
            "selp.b32 %r0, %r1, %t0, %tp0;",
            "shfl.sync.bfly.b32 %r0, %r1, 4, 0x181f, 0xffffffff;",
            // A mask that leaves the 8-lane segment reads the lane's own value.
            "mov.b32 %r0, %r1;",
        ]
    );
}

#[test]
fn a_guarded_shuffle_runs_unguarded_into_a_temporary() {
    let lines = body("    regs r2 d0 p1\n    @p0 shfl.xor r0, r1, 1, 32");
    assert_eq!(
        lines[..2],
        [
            "shfl.sync.bfly.b32 %t0, %r1, 1, 0x1f, 0xffffffff;",
            "@%p0 mov.b32 %r0, %t0;",
        ]
    );
}

#[test]
fn control_flow_keeps_labels_and_ends_in_ret() {
    let lines = body(
        "    regs r1 d0 p1\n  top:\n    @p0 bra end\n    bar.sync\n    warp.sync\n    \
         @!p0 exit\n    bra top\n  end:",
    );
    assert_eq!(
        lines,
        [
            "$L_top:",
            "@%p0 bra $L_end;",
            "bar.sync 0;",
            "bar.warp.sync 0xffffffff;",
            "@!%p0 exit;",
            "bra.uni $L_top;",
            "$L_end:",
            "ret;",
        ]
    );
}

#[test]
fn the_prologue_loads_params_specials_and_zeroes_registers() {
    let ptx = emit_text(
        "    param buf: u64\n    param n: u32\n    regs r2 d1 p1\n    mov r0, %warpid\n    \
         mov r1, %nwarps\n    mov d0, $buf",
    )
    .expect("emits");
    for line in [
        ".visible .entry k(\n    .param .u64 param_0,\n    .param .u32 param_1\n)",
        "ld.param.u64 %pd0, [param_0]; // $buf",
        "ld.param.u32 %pw1, [param_1]; // $n",
        "shr.u32 %sr1, %t1, 5; // %warpid of the IR",
        "shr.u32 %sr2, %t2, 5; // %nwarps",
        "mov.u32 %r1, 0;",
        "mov.u64 %rd0, 0;",
        "mov.pred %p0, 0;",
        "mov.b32 %r0, %sr1;",
        "mov.b64 %rd0, %pd0;",
    ] {
        assert!(ptx.contains(line), "missing `{line}` in\n{ptx}");
    }
    assert!(
        !ptx.contains(".shared"),
        "no shared array without shared memory"
    );
}

#[test]
fn shared_memory_is_zeroed_only_when_asked() {
    let src = "    regs r1 d0 p0\n    shared 10\n    ld.shared.b32 r0, [4]";
    let zeroed = emit_text(src).expect("emits");
    assert!(zeroed.contains(".extern .shared .align 16 .b8 smem[];"));
    assert!(zeroed.contains("st.shared.u32 [%sa], 0;"));
    assert!(zeroed.contains("bar.sync 0;"));
    let opts = PtxOptions {
        zero_shared: false,
        ..PtxOptions::default()
    };
    let plain = emit_with(src, &opts).expect("emits");
    assert!(plain.contains(".extern .shared .align 16 .b8 smem[];"));
    assert!(!plain.contains("st.shared.u32 [%sa], 0;"));
    assert!(!plain.contains("bar.sync"));
}

#[test]
fn ir_labels_cannot_collide_with_the_kernel_name() {
    let text = "kernel L_end {\n    regs r0 d0 p0\n    bra end\n  end:\n}\n";
    let (kernel, _) = parse_kernel(text).expect("parses");
    let kernel = verify_kernel(kernel).expect("verifies");
    let ptx = emit_ptx(&kernel, &PtxOptions::default()).expect("emits");
    assert!(ptx.contains(".visible .entry L_end("));
    assert!(ptx.contains("bra.uni $L_end;\n$L_end:\n"), "{ptx}");
}

#[test]
fn names_ptx_reserves_are_refused() {
    for name in ["_", "WARP_SZ"] {
        let text = format!("kernel {name} {{\n    regs r0 d0 p0\n}}\n");
        let (kernel, _) = parse_kernel(&text).expect("parses");
        let kernel = verify_kernel(kernel).expect("verifies");
        let err = emit_ptx(&kernel, &PtxOptions::default()).unwrap_err();
        assert_eq!(
            err,
            EmitError::Name {
                name: name.to_string()
            }
        );
    }
}

#[test]
fn a_warp_other_than_32_lanes_is_refused() {
    let opts = PtxOptions {
        warp_size: 16,
        ..PtxOptions::default()
    };
    let err = emit_with("    regs r0 d0 p0\n    exit", &opts).unwrap_err();
    assert_eq!(err, EmitError::WarpSize { warp_size: 16 });
    assert!(err.to_string().contains("16-lane"), "{err}");
}

#[test]
fn a_shuffle_wider_than_the_ptx_warp_names_the_instruction() {
    let err =
        emit_text("    regs r2 d0 p0\n    mov r0, 1\n    shfl.idx r0, r1, 0, 64").unwrap_err();
    assert_eq!(
        err.to_string(),
        "pc 1: `shfl.idx r0, r1, 0, 64`: a shuffle segment wider than PTX's 32-lane warp"
    );
}

/// One verified-shape instruction of `opcode`, over registers r0..r3, d0..d1,
/// p0..p1 and a shared array of 64 bytes.
fn one_inst(opcode: Opcode) -> InstData {
    let (r, d, p) = (Reg::r, Reg::d, Reg::p);
    let op = |reg: Reg| Operand::Reg(reg);
    match opcode.format() {
        Format::Unary => {
            let (dst, src) = match opcode {
                Opcode::CvtU64U32 | Opcode::CvtS64S32 => (d(0), op(r(1))),
                Opcode::CvtU32U64 => (r(0), op(d(1))),
                _ => (r(0), op(r(1))),
            };
            InstData::Unary { opcode, dst, src }
        }
        Format::Binary => {
            let dst = if opcode.comparison().is_some() {
                p(0)
            } else {
                d(0)
            };
            let args = if matches!(opcode, Opcode::Shl | Opcode::Shr | Opcode::Sra) {
                [op(d(1)), op(r(1))]
            } else if opcode.comparison().is_some() {
                [op(r(0)), Operand::Imm(-3)]
            } else {
                [op(d(1)), Operand::Imm(7)]
            };
            InstData::Binary { opcode, dst, args }
        }
        Format::Select => InstData::Select {
            opcode,
            dst: r(0),
            args: [op(r(1)), Operand::Imm(1)],
            pred: p(1),
        },
        Format::Cmpx => InstData::Cmpx {
            opcode,
            regs: [d(0), d(1)],
        },
        Format::Load | Format::Store => {
            let (space, bytes) = opcode.memory().expect("a memory opcode");
            let regs = match bytes {
                4 => RegList::new(&[r(0)]),
                8 => RegList::new(&[r(0), r(1)]),
                _ => RegList::new(&[r(0), r(1), r(2), r(3)]),
            };
            let addr = match space {
                kernels_ir::Space::Global => Address {
                    base: Some(d(0)),
                    offset: 16,
                },
                kernels_ir::Space::Shared => Address {
                    base: None,
                    offset: 32,
                },
            };
            if opcode.format() == Format::Load {
                InstData::Load {
                    opcode,
                    dsts: regs,
                    addr,
                }
            } else {
                InstData::Store {
                    opcode,
                    addr,
                    srcs: regs,
                }
            }
        }
        Format::Atomic => InstData::Atomic {
            opcode,
            dst: r(0),
            addr: Address {
                base: Some(r(1)),
                offset: 8,
            },
            src: Operand::Imm(1),
        },
        Format::Shfl => InstData::Shfl {
            opcode,
            dst: r(0),
            src: r(1),
            lane: op(r(2)),
            width: 16,
        },
        Format::Branch => InstData::Branch {
            opcode,
            target: kernels_ir::Label::with_number(0),
        },
        Format::Nullary => InstData::Nullary { opcode },
    }
}

#[test]
fn every_opcode_of_the_table_emits() {
    for &opcode in Opcode::ALL {
        let kernel = Kernel {
            name: "every".to_string(),
            params: vec![kernels_ir::ParamData {
                name: "n".to_string(),
                ty: ParamType::U32,
            }],
            regs: kernels_ir::RegCounts {
                b32: 4,
                b64: 2,
                pred: 2,
            },
            shared_bytes: 64,
            insts: vec![Inst {
                guard: None,
                data: one_inst(opcode),
            }],
            labels: vec![kernels_ir::LabelData {
                name: "end".to_string(),
                pos: 1,
            }],
        };
        let kernel = verify_kernel(kernel).unwrap_or_else(|e| panic!("{opcode}: {e}"));
        let ptx = emit_ptx(&kernel, &PtxOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let body = &ptx[ptx.find("// body").expect("a body marker")..];
        assert!(body.lines().count() > 2, "{opcode} emitted nothing:\n{ptx}");
    }
}
