//! The shared-memory zeroing a bundle runs before its kernel.
//!
//! The IR promises shared memory starts zeroed; the PTX `simsort emit
//! bundle-run` writes keeps that promise with a loop in which every thread
//! zeroes words `tid, tid + threads, ...` of the shared array, then a
//! barrier (`emit/src/ptx.rs`, `zero_shared`), unless the entry says
//! `--zero-shared false`. The simulator's memory starts zeroed without
//! it, so a calibration that simulated the kernel alone missed what the
//! GPU ran: `gs_off_w1` (`suite_guard.txt`) executes 32 shared stores on
//! the H200 and none in the model, and its first block spends about 2,000
//! cycles zeroing 4 KB. Calibration simulates this loop, as IR, before the
//! kernel's first instruction.

use kernels_ir::{VerifiedKernel, print_kernel};

/// `vk` with the bundle's zeroing loop before its first instruction (the
/// same accesses and barrier as the PTX's, in IR), or `vk` as it is when
/// it has no shared memory.
pub fn with_zeroing(vk: &VerifiedKernel) -> Result<VerifiedKernel, String> {
    let k = vk.kernel();
    if k.shared_bytes == 0 {
        return Ok(vk.clone());
    }
    // The words the PTX's loop zeroes: the array its launch asks for.
    let bytes = emit::shared_launch_bytes(k);
    // Three fresh 32-bit registers (offset, stride, zero) and a predicate.
    let (r, p) = (k.regs.b32, k.regs.pred);
    let (off, step, zero) = (r, r + 1, r + 2);
    let prologue = format!(
        "    mov r{zero}, 0
    mov r{off}, %tid.z
    mul r{off}, r{off}, %ntid.y
    add r{off}, r{off}, %tid.y
    mul r{off}, r{off}, %ntid.x
    add r{off}, r{off}, %tid.x
    shl r{off}, r{off}, 2
    mov r{step}, %ntid.x
    mul r{step}, r{step}, %ntid.y
    mul r{step}, r{step}, %ntid.z
    shl r{step}, r{step}, 2
  zero_shared_loop_:
    setp.ge.u p{p}, r{off}, {bytes}
    @p{p} bra zero_shared_done_
    st.shared.b32 [r{off}+0], r{zero}
    add r{off}, r{off}, r{step}
    bra zero_shared_loop_
  zero_shared_done_:
    bar.sync
"
    );
    let text = print_kernel(k);
    let mut out = String::with_capacity(text.len() + prologue.len());
    let mut placed = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("regs ") {
            out += &format!("    regs r{} d{} p{}\n", r + 3, k.regs.b64, p + 1);
            continue;
        }
        out += line;
        out.push('\n');
        if !placed && trimmed.starts_with("shared ") {
            out += &prologue;
            placed = true;
        }
    }
    if !placed {
        return Err(format!(
            "kernel `{}`: no `shared` line to zero after",
            k.name
        ));
    }
    kernels_ir::parser::parse_and_verify(&k.name, &out)
        .map(|(vk, _)| vk)
        .map_err(|e| format!("kernel `{}` with its zeroing loop: {e:?}", k.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUARD_SHARED: &str = include_str!("../../hw/calib/kernels/guard_shared.kir");

    #[test]
    fn the_loop_stores_every_word_once_then_waits_at_a_barrier() {
        let (vk, _) =
            kernels_ir::parser::parse_and_verify("guard_shared", GUARD_SHARED).expect("verifies");
        let z = with_zeroing(&vk).expect("zeroing verifies");
        let k = z.kernel();
        assert_eq!(k.regs.b32, vk.kernel().regs.b32 + 3);
        assert_eq!(k.insts.len(), vk.kernel().insts.len() + 17);
        let text = print_kernel(k);
        assert!(text.contains("st.shared.b32"), "{text}");
        assert!(text.contains("bar.sync"), "{text}");
        // The kernel's own code follows, opcode for opcode.
        let ops =
            |insts: &[kernels_ir::Inst]| insts.iter().map(|i| i.data.opcode()).collect::<Vec<_>>();
        assert_eq!(ops(&k.insts[17..]), ops(&vk.kernel().insts));
    }

    #[test]
    fn a_kernel_without_shared_memory_is_left_as_it_is() {
        let text = include_str!("../../hw/calib/kernels/write.kir");
        let (vk, _) = kernels_ir::parser::parse_and_verify("write", text).expect("verifies");
        assert_eq!(with_zeroing(&vk).expect("ok").kernel(), vk.kernel());
    }
}
