// In what order does the H200 serve a burst of loads from every SM? The
// burst probe (hw/burst.cu) found that an SM's first blocks get their tiles
// about 700 cycles apart on the H200 and 1,700 in the simulator, which
// serves each L2 slice and DRAM channel in arrival order: there every SM's
// first block is served before any SM's second. This probe records, for
// every warp, when its loads landed, and changes one thing at a time:
//
// - where the tiles lie: each block's tile in one piece (`c`, as bitonic's
//   `tail` and mergesort's `merge` read them), the blocks' 512-byte pieces
//   interleaved (`i`: block b's piece s at s * blocks + b), or the pieces
//   scattered over a buffer twice the size (`s`: an odd multiplier modulo a
//   power of two). If the memory system served in arrival order, where the
//   bytes lie would not change who gets them first;
// - who loads: every SM, or only SM 0 (`sm0`: the other blocks record and
//   exit), which tells the SM's own order from the order of a loaded DRAM;
// - blocks an SM: 1, 4 or 8 of 256 threads.
//
// Each thread loads two 16-byte chunks back to back (`LDG.E.128` twice, as
// the `tail`): chunk j of thread t is piece j * 8 + t / 32 of its block, lane
// t % 32's 16 bytes of it. A warp's lane 0 records its SM, when it started,
// when its first load issued, when its loads had landed (after a shared
// store that reads them), and when the block's barrier let it go. Each variant runs twice with the L2
// emptied first by reading 256 MB of another buffer (cold: the tiles come
// from DRAM, as under ncu's cache control) and twice right after (warm:
// from L2); the second run of each is printed.
//
// Usage (on a machine with an NVIDIA GPU and nvcc): hw/burst_order.sh OUTDIR
// writes OUTDIR/burst_order.csv.gz, one row per warp.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "probe_clock.h"

// Where piece `s` (of `per_block`) of block `b` (of `blocks`) lies, in
// 512-byte pieces: 0 in one piece, 1 interleaved, 2 scattered over `span`
// pieces (a power of two at least twice the pieces loaded).
__device__ __forceinline__ size_t piece_at(int layout, size_t b, size_t s, size_t blocks,
                                           size_t per_block, size_t span) {
  if (layout == 0) return b * per_block + s;
  if (layout == 1) return s * blocks + b;
  return ((b * per_block + s) * 0x9E3779B1ull) & (span - 1);
}

__global__ void burst(const uint4 *in, int layout, size_t span, int only_sm, uint32_t *sink,
                      uint64_t *rec) {
  extern __shared__ uint32_t sh[];
  uint64_t t0 = clock_now();
  uint32_t sm = sm_id();
  size_t warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint32_t acc = 0;
  uint64_t ti = t0;
  if (only_sm < 0 || (int)sm == only_sm) {
    size_t p0 = piece_at(layout, blockIdx.x, w, gridDim.x, 2 * warps, span);
    size_t p1 = piece_at(layout, blockIdx.x, warps + w, gridDim.x, 2 * warps, span);
    // The clock right before the first load issues (in-order issue).
    ti = clock_now();
    uint4 a = in[p0 * 32 + lane];
    uint4 b = in[p1 * 32 + lane];
    acc = a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w;
  }
  uint64_t t1, t2;
  land_and_release(acc, sh, sink, t1, t2);
  if (lane == 0) {
    size_t r = (size_t)blockIdx.x * warps + w;
    rec[5 * r + 0] = sm;
    rec[5 * r + 1] = t0;
    rec[5 * r + 2] = ti;
    rec[5 * r + 3] = t1;
    rec[5 * r + 4] = t2;
  }
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  struct Variant {
    const char *name;
    int per_sm, layout, only_sm;
  };
  const Variant variants[] = {
      {"c_b4", 4, 0, -1},     // bitonic's 1M-key tail: 8 KB tiles, 4 blocks an SM
      {"i_b4", 4, 1, -1},     // the same pieces, the blocks' interleaved
      {"s_b4", 4, 2, -1},     // the same pieces, scattered
      {"c_b4_sm0", 4, 0, 0},  // only SM 0's four blocks load
      {"c_b1", 1, 0, -1},     // one block an SM
      {"c_b1_sm0", 1, 0, 0},  // one block on one SM: the unloaded latency
      {"c_b8", 8, 0, -1},     // eight blocks an SM
      {"i_b8", 8, 1, -1},     // eight, interleaved
      {"c_b8_sm0", 8, 0, 0},  // only SM 0's eight blocks load
  };
  const int threads = 256, runs = 2;
  uint32_t *scrub_buf, *sink;
  if (alloc_scrub(&scrub_buf)) return 1;
  CHECK(cudaMalloc(&sink, 4));
  printf("variant,l2,block,warp,sm,start,issued,landed,released\n");
  for (const Variant &v : variants) {
    int blocks = v.per_sm * sms;
    int warps = blocks * (threads / 32);
    size_t pieces = (size_t)blocks * 2 * (threads / 32);
    size_t span = 1;
    while (span < 2 * pieces) span *= 2;
    uint4 *in;
    uint64_t *rec;
    CHECK(cudaMalloc(&in, span * 512));
    CHECK(cudaMemset(in, 1, span * 512));
    CHECK(cudaMalloc(&rec, (size_t)warps * 5 * 8));
    uint64_t *host = new uint64_t[(size_t)warps * 5];
    for (int warm = 0; warm < 2; warm++) {
      for (int r_i = 0; r_i < runs; r_i++) {
        if (!warm) scrub<<<4 * sms, 1024>>>(scrub_buf, SCRUB_WORDS, sink);
        burst<<<blocks, threads, threads * 4>>>(in, v.layout, span, v.only_sm, sink, rec);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (r_i + 1 < runs) continue;
        CHECK(cudaMemcpy(host, rec, (size_t)warps * 5 * 8, cudaMemcpyDeviceToHost));
        for (int i = 0; i < warps; i++) {
          const uint64_t *r = host + (size_t)5 * i;
          printf("%s,%s,%d,%d,%llu,%llu,%llu,%llu,%llu\n", v.name, warm ? "warm" : "cold",
                 i / (threads / 32), i % (threads / 32), (unsigned long long)r[0],
                 (unsigned long long)r[1], (unsigned long long)r[2], (unsigned long long)r[3],
                 (unsigned long long)r[4]);
        }
      }
    }
    delete[] host;
    CHECK(cudaFree(in));
    CHECK(cudaFree(rec));
  }
  return 0;
}
