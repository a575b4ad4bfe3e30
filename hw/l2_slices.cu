// Which L2 slice serves an address, and how evenly a stride spreads over
// the slices. The model deals 256-byte chunks to its 32 partitions in turn
// and XORs `partition_hash` bits of the chunk index above them into the
// partition (sim/src/slice_hash.rs). The presets folded three bits, a guess
// the committed suites allowed; what this probe found (every power-of-two
// stride spread) made them fold every bit. NVIDIA does not publish the
// hash. Here one block (one SM) loads chosen addresses past the L1
// (`ld.global.cg`), and Nsight Compute's `lts__t_sectors_srcunit_tex_op_read`,
// summed and at the busiest slice (`.max`), says how many sectors the
// slices served and how many the busiest one did. ncu gives no per-slice
// values of it (`--print-metric-instances values` prints none), so two
// addresses share a slice when their busiest slice served both.
//
// Launches, one a pattern (printed as `pattern,offset,stride,count`):
// - `base`: no load (what the launch itself reads from L2);
// - `sector_S`, `chunk_C`, `bit_B`: one address each (sector S of the first
//   4 KB, 256-byte chunk C of the first 256 KB, 2^B for B = 8..29): one
//   sector at one slice each;
// - `stride_S_N`: N addresses S bytes apart (one a thread, N <= 1024), for
//   S = 256 B to 64 MB: how many fall on the busiest slice;
// - `pair_C`: chunk 0 and chunk C (C = 1..2047, the first 512 KB): the
//   busiest slice serves 2 sectors when they share chunk 0's slice, else 1;
// - `pairbit_B`: address 0 and 2^B (B = 5..29).
//
// ptxas keeps one of the REPS loads of an address (the loads are not
// volatile), so each address is one sector at its slice; the `base` launch
// shows no other read of the launch reaching the slices.
//
// The buffer is 1 GB from one cudaMalloc (2 MB pages), so offsets below
// 2 MB are the physical address's low bits; above, the pages' physical
// placement enters.
//
// Usage (with an NVIDIA GPU, nvcc and ncu): hw/l2_slices.sh OUTDIR.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "cuda_check.h"

constexpr int REPS = 8;
constexpr size_t BYTES = size_t(1) << 30;

__global__ void slice_touch(const uint8_t *buf, uint64_t offset, uint64_t stride, int count,
                            uint32_t *sink) {
  int t = threadIdx.x;
  if (t >= count) return;
  const uint32_t *p = (const uint32_t *)(buf + offset + stride * t);
  uint32_t acc = 0;
  for (int r = 0; r < REPS; r++) {
    uint32_t v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    acc += v;
  }
  // Never true (the buffer is zeroed); keeps the loads live.
  if (acc == 0xdeadbeef) sink[t] = acc;
}

static int launch(const uint8_t *buf, uint32_t *sink, const char *name, uint64_t offset,
                  uint64_t stride, int count) {
  printf("%s,%llu,%llu,%d\n", name, (unsigned long long)offset, (unsigned long long)stride,
         count);
  slice_touch<<<1, 1024>>>(buf, offset, stride, count, sink);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  return 0;
}

int main() {
  uint8_t *buf;
  uint32_t *sink;
  CHECK(cudaMalloc(&buf, BYTES));
  CHECK(cudaMemset(buf, 0, BYTES));
  CHECK(cudaMalloc(&sink, 4096));
  CHECK(cudaDeviceSynchronize());
  printf("pattern,offset,stride,count\n");
  char name[64];
  if (launch(buf, sink, "base", 0, 0, 0)) return 1;
  for (int s = 0; s < 128; s++) {
    snprintf(name, sizeof name, "sector_%d", s);
    if (launch(buf, sink, name, 32ull * s, 0, 1)) return 1;
  }
  for (int c = 0; c < 1024; c++) {
    snprintf(name, sizeof name, "chunk_%d", c);
    if (launch(buf, sink, name, 256ull * c, 0, 1)) return 1;
  }
  for (int b = 8; b < 30; b++) {
    snprintf(name, sizeof name, "bit_%d", b);
    if (launch(buf, sink, name, 1ull << b, 0, 1)) return 1;
  }
  for (int k = 8; k <= 26; k++) {
    uint64_t stride = 1ull << k;
    for (int n : {32, 1024}) {
      int count = (uint64_t)n * stride <= BYTES ? n : (int)(BYTES / stride);
      snprintf(name, sizeof name, "stride_%llu_%d", (unsigned long long)stride, count);
      if (launch(buf, sink, name, 0, stride, count)) return 1;
    }
  }
  for (int c = 1; c < 2048; c++) {
    snprintf(name, sizeof name, "pair_%d", c);
    if (launch(buf, sink, name, 0, 256ull * c, 2)) return 1;
  }
  for (int b = 5; b < 30; b++) {
    snprintf(name, sizeof name, "pairbit_%d", b);
    if (launch(buf, sink, name, 0, 1ull << b, 2)) return 1;
  }
  return 0;
}
