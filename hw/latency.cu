// Dependent-chain latencies of one warp, timed inside the kernel with
// clock64(): what the machine's latency fields (`alu_latency_cycles`,
// `shfl_latency_cycles`, `smem_latency_cycles`, `l2_latency_cycles`,
// `dram_latency_cycles`, the barrier's) are set from. Each chain's next
// step needs the previous step's result, so its cycles per step are the
// operation's latency plus the few instructions that form the next
// address. Run on two GPUs, the difference of a chain's cycles per step is
// the difference of the latency (the chains' extra instructions are the
// same SASS on the same SM architecture). Prints one CSV row per chain:
// `chain,steps,cycles,cycles_per_step`. Usage: hw/latency.sh OUTDIR.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "cuda_check.h"

// Three dependent integer ops a step (add, min, max): the ALU latency.
__global__ void alu_chain(const uint32_t *pad, uint32_t *out, long long *cyc, int steps) {
  uint32_t lane = threadIdx.x, x = pad[lane], y = pad[lane + 32] | 0xffff0000u;
  uint32_t v = lane;
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; i++) {
    v = v + x;
    v = min(v, y);
    v = max(v, x);
  }
  long long t1 = clock64();
  out[lane] = v;
  if (lane == 0) cyc[0] = t1 - t0;
}

// A shuffle whose source lane depends on the last shuffle's result.
__global__ void shfl_chain(const uint32_t *pad, uint32_t *out, long long *cyc, int steps) {
  uint32_t lane = threadIdx.x, x = pad[lane];
  uint32_t v = lane;
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; i++) v = __shfl_sync(0xffffffffu, v, (v + x + 1) & 31);
  long long t1 = clock64();
  out[lane] = v;
  if (lane == 0) cyc[0] = t1 - t0;
}

// A shared load whose address depends on the last load (one wavefront).
__global__ void smem_chain(const uint32_t *pad, uint32_t *out, long long *cyc, int steps) {
  __shared__ uint32_t buf[64];
  uint32_t lane = threadIdx.x;
  buf[lane] = 0;
  buf[lane + 32] = 0;
  __syncwarp();
  volatile uint32_t *b = buf;
  uint32_t v = 0, x = pad[lane];
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; i++) v = b[lane + (v & x)];
  long long t1 = clock64();
  out[lane] = v;
  if (lane == 0) cyc[0] = t1 - t0;
}

// One thread follows `steps` dependent global loads that bypass L1
// (`ld.global.cg`): L2 hits when the chain was just walked, L2 misses when
// it spans far more than the L2.
__global__ void global_chain(const uint32_t *next, uint32_t *out, long long *cyc, int steps) {
  uint32_t p = 0;
  long long t0 = clock64();
  for (int i = 0; i < steps; i++) p = __ldcg(next + p);
  long long t1 = clock64();
  out[0] = p;
  cyc[0] = t1 - t0;
}

// `bar.sync` in a loop: its cost with 1 and with 32 warps.
__global__ void bar_chain(uint32_t *out, long long *cyc, int steps) {
  uint32_t acc = threadIdx.x;
  long long t0 = clock64();
  for (int i = 0; i < steps; i++) {
    acc += i;
    __syncthreads();
  }
  long long t1 = clock64();
  if (acc == 0xdeadbeef) out[0] = acc;
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
}

static int report(const char *name, int steps, long long *cyc) {
  long long c = 0;
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
  printf("%s,%d,%lld,%.2f\n", name, steps, c, (double)c / steps);
  return 0;
}

int main() {
  const int steps = 4096, mem_steps = 2000, dram_steps = 1000;
  uint32_t *pad, *out, *l2_chain, *dram_chain;
  long long *cyc;
  CHECK(cudaMalloc(&pad, 4096));
  CHECK(cudaMemset(pad, 0, 4096));
  CHECK(cudaMalloc(&out, 4096));
  CHECK(cudaMalloc(&cyc, 8));
  // L2 chain: 1 MiB, a step of 4 KiB + 128 B (another line and set each step).
  const uint32_t l2_words = 1u << 18, dram_words = 1u << 28;
  uint32_t *host = (uint32_t *)malloc(dram_words * 4ull);
  for (uint32_t i = 0; i < l2_words; i++) host[i] = (i + 1056) % l2_words;
  CHECK(cudaMalloc(&l2_chain, l2_words * 4ull));
  CHECK(cudaMemcpy(l2_chain, host, l2_words * 4ull, cudaMemcpyHostToDevice));
  // DRAM chain: 1 GiB, a step of 1 MiB + 4 KiB + 128 B: its 1000 steps
  // touch 1000 lines far apart, evicted from L2 by a 512 MiB memset.
  for (uint32_t i = 0; i < dram_words; i++) host[i] = (uint32_t)((i + 263200u) % dram_words);
  CHECK(cudaMalloc(&dram_chain, dram_words * 4ull));
  CHECK(cudaMemcpy(dram_chain, host, dram_words * 4ull, cudaMemcpyHostToDevice));
  printf("chain,steps,cycles,cycles_per_step\n");
  for (int rep = 0; rep < 2; rep++) {  // the first round warms the code and L2
    bool last = rep == 1;
    alu_chain<<<1, 32>>>(pad, out, cyc, steps);
    if (last && report("alu_op", steps * 3, cyc)) return 1;
    shfl_chain<<<1, 32>>>(pad, out, cyc, steps);
    if (last && report("shfl", steps, cyc)) return 1;
    smem_chain<<<1, 32>>>(pad, out, cyc, steps);
    if (last && report("smem_ld", steps, cyc)) return 1;
    global_chain<<<1, 1>>>(l2_chain, out, cyc, mem_steps);
    if (last && report("l2_hit", mem_steps, cyc)) return 1;
    bar_chain<<<1, 32>>>(out, cyc, 1000);
    if (last && report("bar_1warp", 1000, cyc)) return 1;
    bar_chain<<<1, 1024>>>(out, cyc, 1000);
    if (last && report("bar_32warps", 1000, cyc)) return 1;
  }
  // Evict the DRAM chain's lines from L2, then walk it once.
  uint32_t *scratch;
  CHECK(cudaMalloc(&scratch, 512ull << 20));
  CHECK(cudaMemset(scratch, 0, 512ull << 20));
  global_chain<<<1, 1>>>(dram_chain, out, cyc, dram_steps);
  if (report("dram_miss", dram_steps, cyc)) return 1;
  CHECK(cudaGetLastError());
  return 0;
}
