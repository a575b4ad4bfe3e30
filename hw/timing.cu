// Timing microbenchmarks: what the simulator's clock must reproduce beyond
// single-warp counters. Launch and drain cost (empty kernels of growing
// grids), block dispatch rate, DRAM and L2 bandwidth under full load
// (streaming copies, reads, writes of growing size), barrier cost with many
// warps, and dependent-load latency. Each launch is one row of the ncu CSV
// that hw/timing.sh records; the kernel names say what they measure.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "cuda_check.h"

__global__ void empty() {}

__global__ void copy_u32(const uint32_t *in, uint32_t *out, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void read_u32(const uint32_t *in, uint32_t *out, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t v = i < n ? in[i] : 0;
  // Keep the load alive without a store per thread.
  if (v == 0xdeadbeef) out[0] = v;
}

__global__ void write_u32(uint32_t *out, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

// Each thread moves 16 consecutive u32 words in rows (as a slab load of
// H = 16 does: row r is word base + r*blockDim + tid).
__global__ void copy_rows16(const uint32_t *in, uint32_t *out) {
  uint32_t base = blockIdx.x * blockDim.x * 16 + threadIdx.x;
  uint32_t v[16];
#pragma unroll
  for (int r = 0; r < 16; r++) v[r] = in[base + r * blockDim.x];
#pragma unroll
  for (int r = 0; r < 16; r++) out[base + r * blockDim.x] = v[r];
}

__global__ void bar_loop(uint32_t *out, int iters) {
  uint32_t acc = threadIdx.x;
  for (int i = 0; i < iters; i++) {
    acc += i;
    __syncthreads();
  }
  if (acc == 0xdeadbeef) out[0] = acc;
}

// One thread follows a chain of `steps` dependent loads.
__global__ void chase(const uint32_t *next, uint32_t *out, int steps) {
  uint32_t p = 0;
  for (int i = 0; i < steps; i++) p = next[p];
  out[0] = p;
}

int main() {
  const uint32_t big = 1u << 26;
  uint32_t *a, *b, *chain_l2, *chain_dram;
  CHECK(cudaMalloc(&a, big * 4ull));
  CHECK(cudaMalloc(&b, big * 4ull));
  CHECK(cudaMemset(a, 1, big * 4ull));
  // Chains: L2-resident (256 KiB span, 4 KiB + 128 B stride) and DRAM (256 MiB span).
  const uint32_t l2_words = 1u << 16, dram_words = big;
  uint32_t *host = (uint32_t *)malloc(dram_words * 4ull);
  for (uint32_t i = 0; i < l2_words; i++) host[i] = (i + 1056) % l2_words;
  CHECK(cudaMalloc(&chain_l2, l2_words * 4ull));
  CHECK(cudaMemcpy(chain_l2, host, l2_words * 4ull, cudaMemcpyHostToDevice));
  for (uint32_t i = 0; i < dram_words; i++) host[i] = (uint32_t)((i + 1048576u + 4128u) % dram_words);
  CHECK(cudaMalloc(&chain_dram, dram_words * 4ull));
  CHECK(cudaMemcpy(chain_dram, host, dram_words * 4ull, cudaMemcpyHostToDevice));

  // Launch, drain and dispatch: empty kernels.
  empty<<<1, 32>>>();
  empty<<<132, 32>>>();
  empty<<<132, 1024>>>();
  empty<<<1320, 256>>>();
  empty<<<13200, 256>>>();
  empty<<<132000, 256>>>();
  // Streaming: copies, reads and writes of growing size, 256 threads a block.
  for (uint32_t n = 1u << 16; n <= big; n <<= 2) copy_u32<<<(n + 255) / 256, 256>>>(a, b, n);
  for (uint32_t n = 1u << 16; n <= big; n <<= 2) read_u32<<<(n + 255) / 256, 256>>>(a, b, n);
  for (uint32_t n = 1u << 16; n <= big; n <<= 2) write_u32<<<(n + 255) / 256, 256>>>(b, n);
  // L2-resident copy: the same 4 MiB twice (the second launch hits L2).
  copy_u32<<<(1u << 20) / 256, 256>>>(a, b, 1u << 20);
  copy_u32<<<(1u << 20) / 256, 256>>>(a, b, 1u << 20);
  // Row-wise slab-like copies, 512 threads a block.
  copy_rows16<<<(1u << 20) / (512 * 16), 512>>>(a, b);
  copy_rows16<<<(1u << 24) / (512 * 16), 512>>>(a, b);
  // Barriers: 1000 in a loop with 1, 16 and 32 warps, one block and a full GPU.
  bar_loop<<<1, 32>>>(b, 1000);
  bar_loop<<<1, 512>>>(b, 1000);
  bar_loop<<<1, 1024>>>(b, 1000);
  bar_loop<<<132 * 4, 512>>>(b, 1000);
  // Dependent loads: L2 then DRAM.
  chase<<<1, 1>>>(chain_l2, b, 2000);
  chase<<<1, 1>>>(chain_dram, b, 2000);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  printf("timing microbenchmarks done\n");
  return 0;
}
