// What the burst probes (burst.cu, burst_order.cu) share: the SM's clock
// and index as PTX reads them, and a kernel that empties the L2 between
// runs. Shared by the standalone programs of hw/ that time warps.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

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
