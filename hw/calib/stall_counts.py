"""The stall counts ptxas writes into sm_90 SASS, read back from a
`cuobjdump -sass` listing (each 128-bit instruction's control bits: bits
105-108 of the second word are the cycles the warp waits before its next
instruction), and what they say about memory instructions.

Usage:
  stall_counts.py pairs SASS...
      For every memory instruction (shared or global load, store, atomic,
      or shuffle), the cycles until the warp's next one in straight-line
      code: the sum of the stall counts between them (a branch, barrier or
      exit ends the run). Prints the histogram and every pair closer than 4.
  stall_counts.py wait SASS SRC.csv
      ncu's `wait` stall per issued instruction that the stall counts
      predict: the sum over instructions of (stall count - 1) times the
      times it executed, over all executed instructions. SRC.csv is ncu's
      source view of the same kernel (`ncu --import R.ncu-rep --page source
      --csv --print-source sass`), or its columns `Source` and
      `Instructions Executed` (hw/data/h200/ncu/*_src.csv.gz).
  stall_counts.py guards SASS...
      For every compare that writes a predicate (`ISETP`, `FSETP`, ...),
      its stall count by what the next instruction does with that
      predicate: guard it (`@P0 BRA`), read it otherwise (`SEL ... P0`), or
      not read it. docs/calibration.md ("Branches and `wait`") quotes it.

A .gz SASS or CSV is read as is. docs/calibration.md ("Memory
instructions four cycles apart") quotes both for the committed SASS."""
import collections
import csv
import gzip
import re
import sys

MEMORY = {"LDS", "STS", "ATOMS", "LDSM", "SHFL", "LDG", "STG", "ATOMG", "RED", "ATOM",
          "LD", "ST", "LDL", "STL"}
ENDS = {"BRA", "BRX", "JMP", "JMX", "EXIT", "RET", "CALL", "BSYNC", "BSSY", "BAR", "WARPSYNC"}
LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* 0x[0-9a-f]{16} \*/")
WORD = re.compile(r"/\* (0x[0-9a-f]{16}) \*/")


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return f.read()


def parse(path):
    """(address, text, stall count) of every instruction of a listing."""
    lines = read(path).split("\n")
    out = []
    for i, line in enumerate(lines):
        m = LINE.search(line)
        if m:
            high = int(WORD.search(lines[i + 1]).group(1), 16)
            out.append((int(m.group(1), 16), m.group(2), (high >> 41) & 15))
    return out


def opcode(text):
    words = text.split()
    if words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0]


def pairs(paths):
    hist = collections.Counter()
    kinds = collections.Counter()
    for path in paths:
        insts = parse(path)
        for i, (addr, text, stall) in enumerate(insts):
            if opcode(text) not in MEMORY:
                continue
            cycles = stall
            for _, nxt, s in insts[i + 1:]:
                op = opcode(nxt)
                if op in MEMORY:
                    hist[cycles] += 1
                    kinds[(opcode(text), op)] += 1
                    if cycles < 4:
                        print(f"closer than 4: {path} {addr:#x} {text} -> {nxt}: {cycles}")
                    break
                if op in ENDS:
                    break
                cycles += s
    print(f"{sum(hist.values())} pairs of memory instructions; cycles between them: count")
    for cycles, n in sorted(hist.items()):
        print(f"  {cycles:3} {n}")
    print("pairs:", ", ".join(f"{a}->{b} {n}" for (a, b), n in kinds.most_common()))


def wait(sass, src):
    insts = parse(sass)
    rows = list(csv.reader(l for l in read(src).split("\n") if l.startswith('"')))
    header = next(r for r in rows if "Source" in r and "Instructions Executed" in r)
    rows = rows[rows.index(header) + 1:]
    col_src, col_n = header.index("Source"), header.index("Instructions Executed")
    if len(rows) != len(insts):
        sys.exit(f"{src} has {len(rows)} instructions, {sass} {len(insts)}")
    total = waited = 0
    for (_, text, stall), row in zip(insts, rows):
        if opcode(text) not in row[col_src]:
            sys.exit(f"{src} and {sass} differ at `{text}`")
        n = int(row[col_n].replace(",", ""))
        total += n
        waited += n * (stall - 1)
    print(f"{sass}: {total} instructions executed, stall counts predict "
          f"wait {waited / total:.2f} an instruction")


def guards(paths):
    hist = collections.defaultdict(collections.Counter)
    for path in paths:
        insts = parse(path)
        for (_, text, stall), (_, nxt, _) in zip(insts, insts[1:]):
            words = text.split()
            if words[0].startswith("@"):
                words = words[1:]
            if "SETP" not in words[0] or len(words) < 2:
                continue
            pred = words[1].rstrip(",")
            if not re.fullmatch(r"P\d", pred):
                continue
            guard = nxt.split()[0]
            if guard.startswith("@") and guard.lstrip("@!") == pred:
                how = "guards"
            elif re.search(rf"\b{pred}\b", nxt):
                how = "reads"
            else:
                how = "not read by"
            hist[(how, opcode(nxt))][stall] += 1
    print("compare's predicate and the next instruction: stall count x how many")
    for (how, op), counts in sorted(hist.items()):
        cells = ", ".join(f"{s} x{n}" for s, n in sorted(counts.items()))
        print(f"  {how} {op}: {cells}")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "pairs":
        pairs(sys.argv[2:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "guards":
        guards(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "wait":
        wait(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
