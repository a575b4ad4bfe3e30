// Shared accesses that the H200 counts in more wavefronts than their
// addresses need: what else the SM must be doing. In the sort suites the
// hardware counts 0.02-20% more shared wavefronts than the access pattern
// gives (never fewer) wherever many blocks share an SM with global loads in
// flight (mergesort's `blocksort` and `merge` at 1M-4M keys, HotSort at 16M,
// the `reduce` microbenchmark's one load a block: 1,529 wavefronts for
// 1,024 conflict-free loads), and none at 64K keys (docs/calibration.md,
// "Shared wavefronts where the hardware counts more"). This probe runs one
// warp of each block doing conflict-free 32-bit shared loads or stores (one
// wavefront each by their addresses) while the block's other warps do
// nothing, stream global loads past the L1 or into it (each line once),
// load lines the L1 holds, store, or shuffle.
//
// `after_stores` (1 and 4 blocks an SM) has every warp store to shared
// memory before warp 0's loads; `once` has one load a block after the
// barrier, as `reduce` does, over 1 to 32 blocks an SM in all.
//
// Launch: 132 * 4 blocks of 256 threads (4 an SM); warp 0 issues `iters`
// shared accesses, each lane its own word; warps 1-7 issue `iters` global
// accesses (coalesced, 128 bytes a warp) of the kind named. Each variant is
// one kernel launch; run under ncu (hw/smem_under_load.sh), which reports
// the shared wavefronts, bank conflicts and instructions, and the global
// requests and L1 hits, launch by launch.
//
// Usage (with an NVIDIA GPU, nvcc and ncu): hw/smem_under_load.sh OUTDIR.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "cuda_check.h"

constexpr int THREADS = 256;
constexpr int ITERS = 256;

enum Global { NONE = 0, MISS = 1, FILL = 2, HIT = 3, STORE = 4, SHFL = 5 };

__global__ void under_load(int global, int store_shared, const uint32_t *src, uint32_t *dst,
                           uint32_t *sink, size_t words) {
  __shared__ uint32_t sh[THREADS];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint32_t acc = threadIdx.x;
  sh[threadIdx.x] = acc;
  __syncthreads();
  if (warp == 0) {
    volatile uint32_t *v = sh;
    for (int i = 0; i < ITERS; i++) {
      if (store_shared)
        v[lane + 32 * (i & 7)] = acc + i;
      else
        acc += v[lane + 32 * (i & 7)];
    }
  } else if (global != NONE) {
    // Each warp its own 128-byte lines: MISS walks a large buffer (every
    // line once) past the L1 (ld.cg), FILL the same into the L1 (ld.ca),
    // HIT re-reads 8 lines the L1 keeps (ld.ca), STORE writes; SHFL
    // shuffles instead (the shared pipe's other traffic).
    size_t w = (size_t)blockIdx.x * 7 + (warp - 1);
    for (int i = 0; global == SHFL && i < ITERS; i++) acc += __shfl_xor_sync(~0u, acc, i & 31);
    for (int i = 0; global != SHFL && i < ITERS; i++) {
      size_t line = global == HIT ? (w * 8 + (i & 7)) : (w * ITERS + i);
      size_t at = (line * 32 + lane) % words;
      if (global == STORE)
        dst[at] = acc + i;
      else if (global == HIT || global == FILL)
        acc += __ldca(src + at);
      else
        acc += __ldcg(src + at);
    }
  }
  if (acc == 0xdeadbeef) sink[0] = acc;
}

// Shared loads right after other warps' shared stores: every warp of the
// block stores its word, a barrier, then warp 0 loads 32 of those words
// (conflict-free), a barrier; `iters` times. As `reduce` does once.
// With `src`, warps 1-7 also load a line from global memory (past the L1)
// after their store, so that global data returns while warp 0 loads.
__global__ void after_stores(const uint32_t *src, size_t words, uint32_t *sink) {
  __shared__ uint32_t sh[THREADS];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  volatile uint32_t *v = sh;
  uint32_t acc = threadIdx.x;
  size_t w = (size_t)blockIdx.x * 7 + (warp - 1);
  for (int i = 0; i < ITERS; i++) {
    v[threadIdx.x] = acc + i;
    if (src && warp != 0) acc += __ldcg(src + ((w * ITERS + i) * 32 + lane) % words);
    __syncthreads();
    if (warp == 0) acc += v[lane + 32 * (i & 7)];
    __syncthreads();
  }
  if (acc == 0xdeadbeef) sink[0] = acc;
}

// `reduce`'s shape: each warp's lane 0 (or every lane, `full`) stores a
// word, a barrier, then warp 0 loads 32 words (conflict-free) once, while
// the other warps exit (`exit`) or wait at a second barrier. One shared
// load a block, as `reduce` (tests/kernels/reduce.kir) has.
__global__ void once(int full, int exit_others, uint32_t *sink) {
  __shared__ uint32_t sh[1024];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  volatile uint32_t *v = sh;
  if (full || lane == 0) v[full ? threadIdx.x : warp] = threadIdx.x;
  __syncthreads();
  if (exit_others && warp != 0) return;
  uint32_t acc = 0;
  if (warp == 0) acc = v[lane];
  if (!exit_others) __syncthreads();
  if (acc == 0xdeadbeef) sink[0] = acc;
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t words = (size_t)sms * 4 * 7 * ITERS * 32;  // every MISS line once
  uint32_t *src, *dst, *sink;
  CHECK(cudaMalloc(&src, words * 4));
  CHECK(cudaMalloc(&dst, words * 4));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(src, 1, words * 4));
  const char *names[] = {"none", "miss", "fill", "hit", "store", "shfl"};
  printf("variant,shared,global\n");
  for (int store_shared = 0; store_shared < 2; store_shared++) {
    for (int g = NONE; g <= SHFL; g++) {
      under_load<<<sms * 4, THREADS>>>(g, store_shared, src, dst, sink, words);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      printf("%s_%s,%s,%s\n", store_shared ? "st" : "ld", names[g], store_shared ? "st" : "ld",
             names[g]);
    }
  }
  for (int miss = 0; miss < 2; miss++) {
    for (int blocks : {1, 4}) {
      after_stores<<<sms * blocks, THREADS>>>(miss ? src : nullptr, words, sink);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      printf("after_stores_b%d_%s,ld,%s\n", blocks, names[miss], names[miss]);
    }
  }
  for (int threads : {256, 1024})
    for (int full = 0; full < 2; full++)
      for (int ex = 0; ex < 2; ex++) {
        once<<<sms * 8, threads>>>(full, ex, sink);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        printf("once_t%d_%s_%s,ld,none\n", threads, full ? "full" : "lane0",
               ex ? "exit" : "wait");
      }
  // The same with 1, 2 and 32 blocks an SM in all (one wave, two, many):
  // whether other blocks starting on the SM go with the loads' excess.
  for (int per_sm : {1, 2, 32}) {
    once<<<sms * per_sm, 1024>>>(0, 0, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("once_t1024_lane0_wait_g%d,ld,none\n", per_sm);
  }
  return 0;
}
