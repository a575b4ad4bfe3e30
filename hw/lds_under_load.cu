// How long does a dependent shared load take while the SM does other work?
// The H200 waits two to three times the model's cycles on each shared load
// of bitonic's `tail` and of sample sort's `scatter` (its tree walk), the
// more the more warps share the SM (docs/calibration.md, "Bitonic's `tail`:
// why the H200 waits on shared loads"); the model charges a shared load its
// fixed latency plus its queue for the SM's shared pipe. One candidate is
// the L1 data stage, which shared accesses share with the data of global
// loads coming back. This probe asks directly.
//
// Warp 0 of every block walks a chain of dependent shared loads, each
// load's address computed from the one before, and times it with the SM's
// clock. Two chains: `c32` (every lane the same 4-byte word: one wavefront
// a load, `LDS`) and `c128` (lane l the l-th 16 bytes of an entry: four
// wavefronts, `LDS.128`, the `tail`'s width). Meanwhile warps 1-7 of the
// block, until warp 0 is done (a shared flag, read once a trip), either
//   idle      wait at the block's barrier;
//   spin      only read the flag (one broadcast shared load a trip);
//   gmiss     stream global loads past the L1 from a 1 GB buffer (DRAM);
//   gl2       the same over 8 MB that a launch before left in the L2;
//   gfill     stream global loads into the L1 from the 1 GB buffer;
//   ghit      re-read 8 lines that the L1 holds;
//   gstore    stream global stores into the 1 GB buffer (whole lines);
//   gstl2     the same over 8 MB, which the L2 keeps (no DRAM traffic);
//   gscat     scattered stores, every lane its own line of the 1 GB buffer
//             (32 sectors a request, as sample sort's `scatter`);
//   gst1      one whole-line store a trip instead of 8;
//   lds32     issue conflict-free 4-byte shared loads, 8 a trip;
//   lds128    the same, 16 bytes a lane (`LDS.128`);
//   shfl      shuffle, 8 a trip;
//   chain     walk a chain of their own, like warp 0;
//   walkst    walk 8 steps of a chain of their own, then store one whole
//             line (the shape of a loop that searches, then writes);
//   walkscat  the same with a store of 32 lines (sample sort's `scatter`:
//             a tree walk in shared memory, then a scattered store);
//   gcopy     copy: load 8 whole lines past the L1 from the 1 GB buffer,
//             then store them (each word plus its line's index in the
//             trip) into the other (the shape of a global merge step:
//             stores that wait for the warp's own loads);
//   gcopyl2   the same over 8 MB of each buffer, which the L2 keeps.
// Each global-load trip is 8 loads of a whole 128-byte line each, then
// their sum. Blocks of 256 threads take 48 KB of shared memory, so at most
// four run on an SM: grids of 132 (one an SM) and 528 (four). Each variant
// runs once to warm up, the L2 is emptied (but for `gl2`, `ghit` and
// `gstl2`, which want it warm), and the second run is printed: one row per
// block, its SM, the chain's cycles a step, and how many trips warps 1-7
// made.
//
// Usage (on a machine with an NVIDIA GPU and nvcc): hw/lds_under_load.sh OUTDIR
// writes OUTDIR/lds_under_load.csv.gz (every variant). The committed
// recording (hw/data/h200/lds_under_load/lds_under_load.csv.gz) predates
// `walkst` and `walkscat`; those are in walk.csv.gz beside it, from the
// program built as probe.sh builds it and run as `lds_under_load idle
// gstore gscat walkst walkscat`; `gcopy` and `gcopyl2` in copy.csv.gz,
// run as `lds_under_load idle gstore gstl2 gcopy gcopyl2 gmiss`.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "probe_clock.h"

constexpr int THREADS = 256;
constexpr int ENTRIES = 32;             // chain entries, 32 lanes x 16 bytes each: 16 KB
constexpr int SHARED = 48 * 1024;       // a block's shared memory: at most 4 blocks an SM
constexpr int STEPS = 2048;             // dependent loads of a chain
constexpr size_t BIG_LINES = 8u << 20;  // 1 GB of 128-byte lines
constexpr size_t L2_LINES = 64u << 10;  // 8 MB

enum Other {
  IDLE, SPIN, GMISS, GL2, GFILL, GHIT, GSTORE, GSTL2, GSCAT, GST1, LDS32, LDS128, SHFL, CHAIN,
  WALKST, WALKSCAT, GCOPY, GCOPYL2
};
const char *const OTHER_NAMES[] = {"idle",  "spin",   "gmiss", "gl2",   "gfill",  "ghit", "gstore",
                                   "gstl2", "gscat", "gst1",  "lds32", "lds128", "shfl", "chain",
                                   "walkst", "walkscat", "gcopy", "gcopyl2"};

// A volatile 4-byte shared load at shared address `addr`.
__device__ __forceinline__ uint32_t lds32(uint32_t addr) {
  uint32_t a;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(a) : "r"(addr));
  return a;
}

// A volatile 16-byte shared load (`LDS.128`) at shared address `addr`.
__device__ __forceinline__ uint4 lds128(uint32_t addr) {
  uint4 v;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr));
  return v;
}

// One step of the chain from entry `idx`: the next entry. `c128` loads lane
// `lane`'s 16 bytes of the entry (the next index is in every lane's first
// word), `c32` the entry's first word in every lane.
__device__ __forceinline__ uint32_t chain_step(int wide, uint32_t base, uint32_t idx, int lane) {
  return wide ? lds128(base + (idx * 32 + lane) * 16).x : lds32(base + idx * 512);
}

// rec[block * 4 + 0..3]: SM, chain cycles (warp 0), steps, trips of warps 1-7.
__global__ void probe(int wide, int other, const uint32_t *src, uint32_t *dst, uint32_t *sink,
                      uint64_t *rec) {
  extern __shared__ uint4 table[];
  volatile uint32_t *flag = (volatile uint32_t *)(table + ENTRIES * 32);
  __shared__ uint32_t trips[8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Entry i's words: the next entry (13 i + 7 mod 32: one cycle through all
  // 32), then i, lane, 0.
  for (int k = threadIdx.x; k < ENTRIES * 32; k += THREADS) {
    uint32_t i = k / 32;
    table[k] = make_uint4((13 * i + 7) % ENTRIES, i, k % 32, 0);
  }
  if (threadIdx.x == 0) flag[0] = 0;
  if (lane == 0) trips[warp] = 0;
  __syncthreads();
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(table);
  if (warp == 0) {
    uint32_t idx = 0;
    const uint64_t t0 = clock_now();
    for (int s = 0; s < STEPS; s++) idx = chain_step(wide, base, idx, lane);
    flag[1 + lane] = idx;  // waits for the last load
    const uint64_t t1 = clock_now();
    flag[0] = 1;
    __syncthreads();
    if (lane == 0) {
      uint64_t n = 0;
      for (int w = 1; w < 8; w++) n += trips[w];
      uint64_t *r = rec + blockIdx.x * 4;
      r[0] = sm_id();
      r[1] = t1 - t0;
      r[2] = STEPS;
      r[3] = n;
    }
    if (idx == 0xdeadbeef) sink[0] = idx;
    return;
  }
  if (other == IDLE) {
    __syncthreads();
    return;
  }
  const size_t gw = (size_t)blockIdx.x * 7 + (warp - 1);
  uint32_t acc = 0, n = 0, idx = warp;
  while (flag[0] == 0) {
    switch (other) {
      case GMISS:
      case GL2:
      case GFILL:
      case GHIT: {
        uint32_t v[8];
#pragma unroll
        for (int k = 0; k < 8; k++) {
          size_t line = gw * 4096 + (size_t)n * 8 + k;
          if (other == GL2) line %= L2_LINES;
          if (other == GHIT) line = gw * 8 + k;
          const uint32_t *p = src + (line % BIG_LINES) * 32 + lane;
          v[k] = (other == GMISS || other == GL2) ? __ldcg(p) : __ldca(p);
        }
#pragma unroll
        for (int k = 0; k < 8; k++) acc += v[k];
        break;
      }
      case GSTORE:
      case GSTL2:
#pragma unroll
        for (int k = 0; k < 8; k++)
          dst[((gw * 4096 + (size_t)n * 8 + k) % (other == GSTL2 ? L2_LINES : BIG_LINES)) * 32 +
              lane] = acc + k;
        break;
      case GSCAT:
#pragma unroll
        for (int k = 0; k < 8; k++)
          dst[((gw * 4096 + ((size_t)n * 8 + k) * 32 + lane) % BIG_LINES) * 32] = acc + k;
        break;
      case GST1:
        dst[((gw * 4096 + (size_t)n) % BIG_LINES) * 32 + lane] = acc;
        break;
      case LDS32:
#pragma unroll
        for (int k = 0; k < 8; k++) acc += lds32(base + (k * 32 + lane) * 4);
        break;
      case LDS128:
#pragma unroll
        for (int k = 0; k < 8; k++) {
          const uint4 v = lds128(base + (k * 32 + lane) * 16);
          acc += v.x ^ v.y ^ v.z ^ v.w;
        }
        break;
      case SHFL:
#pragma unroll
        for (int k = 0; k < 8; k++) acc += __shfl_xor_sync(~0u, acc, (k + 1) & 31);
        break;
      case CHAIN:
#pragma unroll
        for (int k = 0; k < 8; k++) idx = chain_step(wide, base, idx % ENTRIES, lane);
        acc += idx;
        break;
      case WALKST:
      case WALKSCAT:
#pragma unroll
        for (int k = 0; k < 8; k++) idx = chain_step(wide, base, idx % ENTRIES, lane);
        if (other == WALKST)
          dst[((gw * 4096 + (size_t)n) % BIG_LINES) * 32 + lane] = idx;
        else
          dst[((gw * 4096 + (size_t)n * 32 + lane) % BIG_LINES) * 32] = idx;
        break;
      case GCOPY:
      case GCOPYL2: {
        const size_t lines = other == GCOPYL2 ? L2_LINES : BIG_LINES;
        uint32_t v[8];
#pragma unroll
        for (int k = 0; k < 8; k++)
          v[k] = __ldcg(src + ((gw * 4096 + (size_t)n * 8 + k) % lines) * 32 + lane);
#pragma unroll
        for (int k = 0; k < 8; k++)
          dst[((gw * 4096 + (size_t)n * 8 + k) % lines) * 32 + lane] = v[k] + k;
        break;
      }
      default:  // SPIN: the flag alone
        break;
    }
    n++;
  }
  if (lane == 0) trips[warp] = n;
  __syncthreads();
  if (acc == 0xdeadbeef) sink[0] = acc;
}

// With arguments, only the variants of warps 1-7 they name.
int main(int argc, char **argv) {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  uint32_t *src, *dst, *sink, *scrub_buf;
  uint64_t *rec;
  CHECK(cudaMalloc(&src, BIG_LINES * 128));
  CHECK(cudaMemset(src, 1, BIG_LINES * 128));
  CHECK(cudaMalloc(&dst, BIG_LINES * 128));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMalloc(&rec, (size_t)sms * 4 * 4 * 8));
  if (alloc_scrub(&scrub_buf)) return 1;
  const int dyn = SHARED - 1024;  // the static `trips` and slack stay under 48 KB
  printf("chain,other,blocks_per_sm,block,sm,cycles,steps,trips\n");
  for (int wide = 0; wide < 2; wide++)
    for (int other = IDLE; other <= GCOPYL2; other++)
      for (int per_sm : {1, 4}) {
        bool named = argc == 1;
        for (int a = 1; a < argc; a++) named |= strcmp(argv[a], OTHER_NAMES[other]) == 0;
        if (!named) continue;
        const int blocks = sms * per_sm;
        const bool warm = other == GL2 || other == GHIT || other == GSTL2 || other == GCOPYL2;
        for (int run = 0; run < 2; run++) {
          if (run == 1 && !warm) scrub<<<4 * sms, 1024>>>(scrub_buf, SCRUB_WORDS, sink);
          CHECK(cudaMemset(rec, 0, (size_t)blocks * 4 * 8));
          probe<<<blocks, THREADS, dyn>>>(wide, other, src, dst, sink, rec);
          CHECK(cudaGetLastError());
          CHECK(cudaDeviceSynchronize());
        }
        uint64_t *h = new uint64_t[(size_t)blocks * 4];
        CHECK(cudaMemcpy(h, rec, (size_t)blocks * 4 * 8, cudaMemcpyDeviceToHost));
        for (int b = 0; b < blocks; b++)
          printf("%s,%s,%d,%d,%llu,%llu,%llu,%llu\n", wide ? "c128" : "c32", OTHER_NAMES[other],
                 per_sm, b, (unsigned long long)h[b * 4], (unsigned long long)h[b * 4 + 1],
                 (unsigned long long)h[b * 4 + 2], (unsigned long long)h[b * 4 + 3]);
        delete[] h;
      }
  return 0;
}
