// When does each block of a burst get its loads? Every block of a one-wave
// grid loads a tile at its start, as bitonic's `tail` and mergesort's
// `merge` do, and each warp records, with its SM's clock, when it started
// and when its loads had landed. The simulator serves each L2 slice and
// DRAM channel in arrival order, so on every SM the block dispatched first
// gets its tile first and the last one a burst later; if the GPU serves
// the burst interleaved, an SM's blocks get their tiles together, late.
// docs/calibration.md ("A burst of loads: the order it is served in") has
// what the H200 does.
//
// Usage (on a machine with an NVIDIA GPU and nvcc): hw/burst.sh OUTDIR
// writes OUTDIR/burst.csv: one row per block and run.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "probe_clock.h"

// Each thread loads VECS 16-byte chunks of its block's tile, coalesced and
// back to back (every load issued before the first is used, as ptxas
// schedules bitonic's `tail`): chunk j of thread t is the tile's chunk
// j * blockDim.x + t (the `tail` loads vectors t and t + G). A warp's lane
// 0 records: SM, its start, when its loads had landed (after a shared
// store that reads them all), and when the block's barrier let it go.
template <int VECS>
__global__ void burst(const uint4 *in, uint32_t *sink, uint64_t *rec) {
  extern __shared__ uint32_t sh[];
  uint64_t t0 = clock_now();
  size_t base = (size_t)blockIdx.x * VECS * blockDim.x;
  uint4 v[VECS];
#pragma unroll
  for (int j = 0; j < VECS; j++) v[j] = in[base + (size_t)j * blockDim.x + threadIdx.x];
  uint32_t acc = 0;
#pragma unroll
  for (int j = 0; j < VECS; j++) acc ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
  uint64_t t1, t2;
  land_and_release(acc, sh, sink, t1, t2);
  if (threadIdx.x % 32 == 0) {
    size_t w = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    rec[4 * w + 0] = sm_id();
    rec[4 * w + 1] = t0;
    rec[4 * w + 2] = t1;
    rec[4 * w + 3] = t2;
  }
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // name, blocks per SM, threads a block, 16-byte chunks a thread
  struct Variant {
    const char *name;
    int per_sm, threads, vecs;
  };
  const Variant variants[] = {
      {"tile8k_b4", 4, 256, 2},   // bitonic's 1M-key tail: 8 KB a block
      {"tile16k_b4", 4, 256, 4},  // 64-bit keys or key-value pairs
      {"tile8k_b8", 8, 256, 2},   // twice the blocks an SM
      {"tile8k_b1", 1, 256, 2},   // one block an SM: nothing to order
      {"tile4k_b8", 8, 128, 2},   // mergesort's merge: 128 threads a block
      {"tile4k_b16", 16, 128, 2}, // 64 warps an SM in blocks of 4
      {"tile16k_b4x512", 4, 512, 2},  // 64 warps an SM in blocks of 16
      {"tile32k_b2x1024", 2, 1024, 2},  // 64 warps an SM in blocks of 32
  };
  const int runs = 2;
  uint32_t *scrub_buf, *sink;
  if (alloc_scrub(&scrub_buf)) return 1;
  CHECK(cudaMalloc(&sink, 4));
  // One row per block and run: its SM, when its first warp started, when
  // its first and its last warp had their loads, when its barrier let the
  // last warp go (SM clock cycles).
  printf("variant,l2,run,block,sm,start,first_landed,last_landed,released\n");
  for (const Variant &v : variants) {
    int blocks = v.per_sm * sms;
    size_t chunks = (size_t)blocks * v.threads * v.vecs;
    uint4 *in;
    uint64_t *rec;
    int warps = blocks * (v.threads / 32);
    CHECK(cudaMalloc(&in, chunks * 16));
    CHECK(cudaMemset(in, 1, chunks * 16));
    CHECK(cudaMalloc(&rec, (size_t)warps * 4 * 8));
    uint64_t *host = new uint64_t[(size_t)warps * 4];
    // "cold": the L2 scrubbed before each run, so the tile comes from DRAM
    // (as under ncu's cache control, which the committed CSVs use); "warm":
    // the run right after another, so the tile is in L2.
    for (int warm = 0; warm < 2; warm++) {
      for (int r_i = 0; r_i < runs; r_i++) {
        if (!warm) scrub<<<4 * sms, 1024>>>(scrub_buf, SCRUB_WORDS, sink);
        if (v.vecs == 4)
          burst<4><<<blocks, v.threads, v.threads * 4>>>(in, sink, rec);
        else
          burst<2><<<blocks, v.threads, v.threads * 4>>>(in, sink, rec);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(host, rec, (size_t)warps * 4 * 8, cudaMemcpyDeviceToHost));
        int per_block = v.threads / 32;
        for (int b = 0; b < blocks; b++) {
          const uint64_t *r = host + (size_t)4 * b * per_block;
          uint64_t start = r[1], first = r[2], last = r[2], rel = r[3];
          for (int w = 1; w < per_block; w++) {
            const uint64_t *x = r + 4 * w;
            start = x[1] < start ? x[1] : start;
            first = x[2] < first ? x[2] : first;
            last = x[2] > last ? x[2] : last;
            rel = x[3] > rel ? x[3] : rel;
          }
          printf("%s,%s,%d,%d,%llu,%llu,%llu,%llu,%llu\n", v.name, warm ? "warm" : "cold", r_i,
                 b, (unsigned long long)r[0], (unsigned long long)start,
                 (unsigned long long)first, (unsigned long long)last, (unsigned long long)rel);
        }
      }
    }
    delete[] host;
    CHECK(cudaFree(in));
    CHECK(cudaFree(rec));
  }
  return 0;
}
