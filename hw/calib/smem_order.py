"""A small cycle model of one SM running hw/calib/kernels/smem_step.kir
(suite_smem.txt: one pass of bitonic's `tail` in a loop) with 1, 2, 4 and 8
blocks of 8 warps, to ask one question: does the ORDER in which the SM's
shared pipe serves the queued accesses of different warps change what a
shared load waits (`short_scoreboard`), where the pipe's throughput does not
change? docs/calibration.md ("Bitonic's `tail`: why the H200 waits on shared
loads") quotes its output.

The h200 preset's figures: an ALU instruction holds its sub-partition's ALU
2 cycles (a `cmpx` 4) and its result is ready after 4; a shared access
occupies the SM's one pipe 4 cycles (a 16-byte-a-lane access is 4
wavefronts), a load's result is ready 29 cycles after its last wavefront; a
warp's shared accesses are at least 4 cycles apart; each sub-partition's MIO
queue holds 8 accesses not yet started; a barrier releases its block's warps
4 cycles after the last arrival, one every 2 cycles, one unit for the SM;
a branch holds its warp 2 cycles; each sub-partition issues one instruction
a cycle, oldest warp first. Warp w runs on sub-partition w % 4. Simplified:
a store does not wait for its selects' results (ready by then or nearly).

Orders of the pipe:
  fifo     the SM's accesses in the order they issued (the simulator's)
  rr_inst  round robin over the sub-partitions, an access at a time
  rr_wf    round robin over the sub-partitions, a wavefront at a time
  ps       round robin over every queued access, a wavefront at a time
           (each access finishes later, as under processor sharing)
Environment: XS=1 (XL=1) charges each 16-byte store (load) one more pipe
cycle.

Usage: python3 hw/calib/smem_order.py fifo rr_inst rr_wf ps
Prints, per blocks an SM and order, the cycles a pass, `short_scoreboard`
cycles a load and `barrier` cycles a warp a pass (60 passes less 20, over
40). With `fifo` it gives the simulator's own figures within 4% (198, 256,
536 and 1,045 cycles a pass and 44.8, 72.9, 74.0 and 76.1 a load; `simsort
run hw/calib/kernels/smem_step.kir --grid 132 ...` with 132, 264, 528 and
1,056 blocks: 203, 257, 522 and 1,045, and 43.8, 70.4, 75.0 and 76.8).
Runs in about 6 seconds."""
import os
import sys

LAT, ALU_LAT, ALU_OCC, BAR_LAT, BAR_REL, SPACE, DEPTH, BRANCH = 29, 4, 2, 4, 2, 4, 8, 2
EXTRA_ST = int(os.environ.get("XS", "0"))
EXTRA_LD = int(os.environ.get("XL", "0"))
# The loop of smem_step.kir: (kind, issue slots).
PROG = (
    [("alu", 1), ("bra", 1), ("bar", 1)]
    + [("sel", 1)] * 8
    + [("sts", 1)] * 2
    + [("bar", 1)]
    + [("lds", 1)] * 2
    + [("cmpx", 2)] * 4
    + [("alu", 1), ("bra", 1)]
)
NEVER = 10**12


class Access:
    """A queued shared access: sub-partition, warp, load or store, which of
    the warp's two loads, pipe cycles left."""

    def __init__(self, sp, warp, kind, idx):
        self.sp, self.warp, self.kind, self.idx = sp, warp, kind, idx
        self.left = 4 + (EXTRA_ST if kind == "sts" else EXTRA_LD)


def run(blocks, iters, order):
    n = blocks * 8
    sp_of = [w % 4 for w in range(n)]
    blk = [w // 8 for w in range(n)]
    pc, it, ready = [0] * n, [0] * n, [0] * n
    done, at_bar = [False] * n, [False] * n
    lds_ready = [[0, 0] for _ in range(n)]
    lds_issued, nlds, smem_next = [0] * n, [0] * n, [0] * n
    arrived = [0] * blocks
    alu_free, issue_free = [0] * 4, [0] * 4
    queues = [[] for _ in range(4)]
    pending = []  # every queued access, in issue order
    current, rr, ps_next, bar_free = None, 0, 0, 0
    sb = barrier = loads = 0
    t = 0

    def finish(a):
        queues[a.sp].remove(a)
        pending.remove(a)
        if a.kind == "lds":
            lds_ready[a.warp][a.idx] = t + LAT

    while not all(done):
        # The pipe serves one wavefront (pipe cycle) this cycle.
        if order in ("fifo", "rr_inst"):
            if current is None:
                if order == "fifo" and pending:
                    current = pending[0]
                elif order == "rr_inst":
                    for k in range(4):
                        s = (rr + k) % 4
                        if queues[s]:
                            current, rr = queues[s][0], (s + 1) % 4
                            break
            if current is not None:
                current.left -= 1
                if current.left == 0:
                    finish(current)
                    current = None
        elif order == "rr_wf":
            for k in range(4):
                s = (rr + k) % 4
                if queues[s]:
                    a, rr = queues[s][0], (s + 1) % 4
                    a.left -= 1
                    if a.left == 0:
                        finish(a)
                    break
        elif order == "ps" and pending:
            a = pending[ps_next % len(pending)]
            ps_next += 1
            a.left -= 1
            if a.left == 0:
                finish(a)
        # Each sub-partition issues one instruction.
        for s in range(4):
            if issue_free[s] > t:
                continue
            for w in range(n):
                if sp_of[w] != s or done[w] or at_bar[w] or ready[w] > t:
                    continue
                kind, slots = PROG[pc[w]]
                if kind in ("sel", "alu", "cmpx") and alu_free[s] > t:
                    continue
                if kind in ("sts", "lds") and (smem_next[w] > t or len(queues[s]) >= DEPTH):
                    continue
                if kind == "cmpx" and max(lds_ready[w]) > t:
                    continue
                if kind == "cmpx" and PROG[pc[w] - 1][0] == "lds":
                    sb += max(0, min(t, max(lds_ready[w])) - lds_issued[w])
                issue_free[s] = t + slots
                ready[w] = t + slots
                if kind in ("sel", "alu", "cmpx"):
                    alu_free[s] = t + ALU_OCC * slots
                elif kind == "bra":
                    ready[w] = t + BRANCH
                elif kind in ("sts", "lds"):
                    smem_next[w] = t + SPACE
                    idx = nlds[w] % 2
                    if kind == "lds":
                        lds_ready[w][idx] = NEVER
                        nlds[w] += 1
                        loads += 1
                        lds_issued[w] = t + 1
                    a = Access(s, w, kind, idx)
                    queues[s].append(a)
                    pending.append(a)
                elif kind == "bar":
                    at_bar[w] = True
                    arrived[blk[w]] += 1
                    if arrived[blk[w]] == 8:
                        arrived[blk[w]] = 0
                        start = max(t + BAR_LAT, bar_free)
                        for j, x in enumerate(x for x in range(n) if blk[x] == blk[w]):
                            at_bar[x] = False
                            ready[x] = start + BAR_REL * j
                            # Waiting for its release is `barrier` too.
                            barrier += ready[x] - t
                        bar_free = start + BAR_REL * 8
                pc[w] += 1
                if pc[w] == len(PROG):
                    pc[w] = 0
                    it[w] += 1
                    done[w] = it[w] >= iters
                break
        t += 1
        barrier += sum(at_bar)
    return t, sb, barrier, loads


def main(orders):
    for blocks in (1, 2, 4, 8):
        cells = []
        for order in orders:
            t1, sb1, b1, l1 = run(blocks, 20, order)
            t2, sb2, b2, l2 = run(blocks, 60, order)
            cells.append(
                f"{order}: {(t2 - t1) / 40:.0f} a pass, {(sb2 - sb1) / (l2 - l1):.1f} a load, "
                f"barrier {(b2 - b1) / 40 / (blocks * 8):.0f}"
            )
        print(f"{blocks} blocks | " + " | ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1:] or ["fifo", "rr_inst", "rr_wf", "ps"])
