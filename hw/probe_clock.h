// What the burst probes (burst.cu, burst_order.cu) share: the SM's clock
// and index as PTX reads them, the wait for a warp's loads and its block's
// barrier, and a kernel (with its buffer) that empties the L2 between
// runs. Shared by the standalone programs of hw/ that time warps.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

#include "cuda_check.h"

// The SM's cycle counter; the "memory" clobber keeps loads and stores on
// their side of the read.
__device__ __forceinline__ uint64_t clock_now() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ uint32_t sm_id() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// Stores `acc`, which the warp's loads computed, to shared memory (the
// store waits for every load: in-order issue) and reads the clock after
// it (`landed`), then waits at the block's barrier and reads it again
// (`released`). `acc` stays live through a global store that never
// happens, so the loads are kept.
__device__ __forceinline__ void land_and_release(uint32_t acc, uint32_t *sh, uint32_t *sink,
                                                 uint64_t &landed, uint64_t &released) {
  ((volatile uint32_t *)sh)[threadIdx.x] = acc;
  landed = clock_now();
  __syncthreads();
  released = clock_now();
  acc += ((volatile uint32_t *)sh)[(threadIdx.x + 32) % blockDim.x];
  if (acc == 0xdeadbeef) sink[0] = acc;
}

// Evicts the L2 between runs (the simulator starts each launch with an
// empty L2, as ncu's cache control does) by reading another buffer: its
// lines are clean, so the probe's misses do not wait for write-backs.
__global__ void scrub(const uint32_t *buf, size_t n, uint32_t *sink) {
  uint32_t acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    acc += buf[i];
  if (acc == 0xdeadbeef) sink[0] = acc;
}

// 32-bit words of the buffer `scrub` reads: 256 MB, five times the L2.
constexpr size_t SCRUB_WORDS = (size_t)64 << 20;

// Allocates and zeroes `scrub`'s buffer; returns 1 (naming the CUDA error)
// when it cannot.
inline int alloc_scrub(uint32_t **buf) {
  CHECK(cudaMalloc(buf, SCRUB_WORDS * 4));
  CHECK(cudaMemset(*buf, 0, SCRUB_WORDS * 4));
  return 0;
}
