// How many global stores does an H200 SM take before its storing warps
// wait, and how fast do they go after that?
//
// The model's stores hold their warps back only through the LSU queue,
// never for the L2; the H200's do, in some
// kernels (`mio_throttle` and `lg_throttle` at HotSort's `bc` and
// `transpose` at 4M-16M keys) and not in others (bitonic's global `step`
// at 4M keys: `drain` only). A bound on the model's L2 lag, in cycles or
// in sectors, held the wrong kernels (docs/calibration.md, "The bound,
// tried"). This probe measures the bound itself.
//
// Every warp issues STORES back-to-back global stores and reads the SM's
// clock after the 1st, 2nd, 4th, ... and last (the clock read waits for
// nothing: a store that cannot issue holds the warp before the read, so
// each reading is the cycle its store left the warp). Variants:
//   line   every store one whole 128-byte line (4 sectors), a warp's lines
//          consecutive;
//   scat   every lane its own line, 4 bytes of it (32 partial sectors a
//          store, as sample sort's `scatter`);
// into `dram` (a 1 GB buffer, after rewriting all of it left the L2 full
// of other dirty lines) or `l2` (8 MB a launch before wrote, which the L2
// keeps); on one SM (grid 1) or every SM (grid 132, one block an SM), with
// 1 to 32 warps a block. Each variant runs once to warm up, then once
// measured; one row per warp: variant, block, warp, SM, then the clock
// (cycles from the warp's first store) after store 1, 2, 4, ..., STORES.
//
// Usage (on a machine with an NVIDIA GPU and nvcc): hw/store_queue.sh
// OUTDIR writes OUTDIR/store_queue.csv.gz.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "probe_clock.h"

constexpr int STORES = 256;             // stores a warp
constexpr int MARKS = 9;                // clock readings: after store 1, 2, 4, ..., 256
constexpr size_t BIG_LINES = 8u << 20;  // 1 GB of 128-byte lines
constexpr size_t L2_LINES = 64u << 10;  // 8 MB

// rec[(block * warps + warp) * (MARKS + 1) + ..]: SM, then the readings.
__global__ void probe(int scat, size_t mask, uint32_t *dst, uint64_t *rec) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warps = blockDim.x / 32;
  const size_t w = (size_t)blockIdx.x * warps + warp;
  uint64_t marks[MARKS];
  const uint64_t t0 = clock_now();
#pragma unroll
  for (int i = 0; i < STORES; i++) {
    size_t line = scat ? (w * STORES * 32 + (size_t)i * 32 + lane) : (w * STORES + i);
    uint32_t *p = dst + (line & mask) * 32 + (scat ? 0 : lane);
    asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(i) : "memory");
    if (((i + 1) & i) == 0) {
      int k = 0;  // log2(i + 1), folded: the loop is unrolled
      for (int b = i + 1; b > 1; b >>= 1) k++;
      marks[k] = clock_now();
    }
  }
  if (lane == 0) {
    uint64_t *r = rec + w * (MARKS + 1);
    r[0] = sm_id();
    for (int k = 0; k < MARKS; k++) r[1 + k] = marks[k] - t0;
  }
}

int main() {
  uint32_t *dst;
  uint64_t *rec;
  const size_t most = 132 * 32;
  CHECK(cudaMalloc(&dst, BIG_LINES * 128));
  CHECK(cudaMalloc(&rec, most * (MARKS + 1) * 8));
  uint64_t *host = new uint64_t[most * (MARKS + 1)];
  printf("pattern,region,grid,warps,block,warp,sm");
  for (int k = 0; k < MARKS; k++) printf(",t%d", 1 << k);
  printf("\n");
  const char *patterns[] = {"line", "scat"};
  const char *regions[] = {"dram", "l2"};
  const int grids[] = {1, 132};
  const int warp_counts[] = {1, 4, 8, 16, 32};
  for (int scat = 0; scat < 2; scat++)
    for (int region = 0; region < 2; region++)
      for (int grid : grids)
        for (int warps : warp_counts) {
          const size_t mask = (region == 0 ? BIG_LINES : L2_LINES) - 1;
          // Warm up (the code, the TLB, and for `l2` the lines).
          probe<<<grid, warps * 32>>>(scat, mask, dst, rec);
          CHECK(cudaDeviceSynchronize());
          if (region == 0) {
            // Fill the L2 with other lines: rewriting the whole buffer
            // leaves it holding the buffer's last 50 MB, dirty, which no
            // variant's first 138 MB (or a `scat` warp's first lines) meet.
            CHECK(cudaMemset(dst, 0, BIG_LINES * 128));
            CHECK(cudaDeviceSynchronize());
          }
          probe<<<grid, warps * 32>>>(scat, mask, dst, rec);
          CHECK(cudaDeviceSynchronize());
          const size_t n = (size_t)grid * warps;
          CHECK(cudaMemcpy(host, rec, n * (MARKS + 1) * 8, cudaMemcpyDeviceToHost));
          for (size_t i = 0; i < n; i++) {
            printf("%s,%s,%d,%d,%zu,%zu", patterns[scat], regions[region], grid, warps, i / warps,
                   i % warps);
            for (int k = 0; k <= MARKS; k++) printf(",%llu", (unsigned long long)host[i * (MARKS + 1) + k]);
            printf("\n");
          }
        }
  delete[] host;
  return 0;
}
