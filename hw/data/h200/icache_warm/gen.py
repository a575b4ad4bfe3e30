"""Writes the kernels of suite.txt: straight-line kernels of S KB of SASS
(a ring of independent 32-bit adds and xors, one 16-byte SASS instruction
each, as hw/calib/icache_gen.py's body), run once from the top, so that
the time past a size says whether a launch brings the kernel's code into
the SM's instruction caches before its warps ask for it.

Usage (from the repository's root): python3 hw/data/h200/icache_warm/gen.py
(rewrites hw/data/h200/icache_warm/kernels/ and suite.txt, as committed).
"""
import os

RING = 16
SIZES_KB = (48, 64, 80, 88, 96, 104, 112, 120, 127)
HERE = os.path.dirname(os.path.abspath(__file__))
REL = "hw/data/h200/icache_warm"


def kernel(kb):
    n = kb * 64 - 40  # the prologue and epilogue take about 40 instructions
    out = [f"kernel ic_once_{kb}k {{", "    param out: u64", "    regs r22 d1 p1",
           "    shared 0", "    mov r21, %tid.x"]
    for i in range(RING):
        out.append(f"    add r{i}, r21, {(0x9E3779B9 * (i + 1)) & 0xFFFFFFFF:#x}")
    for k in range(n):
        i = k % RING
        out.append(f"    {'add' if i % 2 == 0 else 'xor'} r{i}, r{i}, r{(i + 1) % RING}")
    for i in range(1, RING):
        out.append(f"    xor r0, r0, r{i}")
    out += ["    setp.ne p0, r0, 0x2545f491", "    @p0 exit", "    mov d0, $out",
            "    st.global.b32 [d0+0], r0", "    exit", "}"]
    return "\n".join(out) + "\n"


os.makedirs(os.path.join(HERE, "kernels"), exist_ok=True)
lines = []
for kb in SIZES_KB:
    with open(os.path.join(HERE, "kernels", f"ic_once_{kb}k.kir"), "w") as f:
        f.write(kernel(kb))
    for grid, block in ((1, 256), (8, 256), (132, 32)):
        lines.append(f"io_{kb}k_g{grid}_b{block} bundle-run {REL}/kernels/ic_once_{kb}k.kir "
                     f"--grid {grid} --block {block} --buffer out=4")
with open(os.path.join(HERE, "suite.txt"), "w") as f:
    f.write("# One trip over straight-line kernels of 48-127 KB (README.md).\n")
    f.write("\n".join(lines) + "\n")
