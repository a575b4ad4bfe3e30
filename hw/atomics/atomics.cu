// Shared-memory atomics on the GPU: what `atom.shared.add.u32` costs and how
// Nsight Compute counts it, so the simulator's model of it can be checked.
//
// Counter kernels (`atom_*`, one warp, one atomic instruction each) fix the
// wavefront and bank-conflict rule: distinct words in distinct banks, lanes
// sharing words (lane mod C copies), distinct words in one bank, a predicated
// half warp. Timing kernels (`loop_*`, the whole GPU, 256 iterations per
// thread) give throughput against plain shared loads; `chain_*` (one warp, a
// dependent chain) gives the latency in cycles, printed to stdout.
//
// Addresses come from a global array of zeros (`pad`), so the compiler cannot
// prove them warp-uniform and fold a warp's additions into one atomic; the
// PTX `atom.shared.add.u32` is written out as the emitter writes it.
// Build and measure on an NVIDIA GPU with hw/atomics/atomics.sh.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

__device__ __forceinline__ uint32_t atom_add(uint32_t *p, uint32_t v) {
  uint32_t old;
  uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
  asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(a), "r"(v) : "memory");
  return old;
}

// Lane l adds 1 to word (l mod C) * S: C copies, S words apart.
template <int C, int S>
__global__ void atom_copies(const uint32_t *pad, uint32_t *out) {
  __shared__ uint32_t buf[32 * 64 + 64];
  int lane = threadIdx.x;
  for (int i = lane; i < 32 * 64 + 64; i += 32) buf[i] = 0;
  __syncwarp();
  out[lane] = atom_add(&buf[(lane % C) * S + pad[lane]], 1);
}

// Only lanes below H take part (the rest are predicated off).
template <int H, int C>
__global__ void atom_part(const uint32_t *pad, uint32_t *out) {
  __shared__ uint32_t buf[64];
  int lane = threadIdx.x;
  buf[lane] = 0;
  __syncwarp();
  uint32_t r = 0;
  if (lane < H) r = atom_add(&buf[lane % C + pad[lane]], 1);
  out[lane] = r;
}

// Lanes in pairs on one word, pairs 32 words apart: 2 lanes per word and
// 16 distinct words, all in bank 0.
__global__ void atom_pairs_one_bank(const uint32_t *pad, uint32_t *out) {
  __shared__ uint32_t buf[32 * 16 + 32];
  int lane = threadIdx.x;
  for (int i = lane; i < 32 * 16 + 32; i += 32) buf[i] = 0;
  __syncwarp();
  out[lane] = atom_add(&buf[(lane / 2) * 32 + pad[lane]], 1);
}

// Throughput: every thread of a full GPU makes 256 atomics on word
// (lane mod C) * S of its block's counters; `loop_ld` makes the same
// pattern of plain loads.
template <int C, int S>
__global__ void loop_atom(const uint32_t *pad, uint32_t *out) {
  __shared__ uint32_t buf[32 * 64 + 64];
  for (int i = threadIdx.x; i < 32 * 64 + 64; i += blockDim.x) buf[i] = 0;
  __syncthreads();
  int lane = threadIdx.x % 32;
  uint32_t *p = &buf[(lane % C) * S + pad[threadIdx.x]];
  uint32_t acc = 0;
  for (int i = 0; i < 256; i++) acc += atom_add(p, 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <int C, int S>
__global__ void loop_ld(const uint32_t *pad, uint32_t *out) {
  __shared__ uint32_t buf[32 * 64 + 64];
  for (int i = threadIdx.x; i < 32 * 64 + 64; i += blockDim.x) buf[i] = i;
  __syncthreads();
  int lane = threadIdx.x % 32;
  volatile uint32_t *p = &buf[(lane % C) * S + pad[threadIdx.x]];
  uint32_t acc = 0;
  for (int i = 0; i < 256; i++) acc += *p;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Latency: one warp, each atomic's address depends on the previous result.
template <int C>
__global__ void chain_atom(const uint32_t *pad, uint32_t *out, long long *cycles) {
  __shared__ uint32_t buf[64];
  int lane = threadIdx.x;
  buf[lane] = 0;
  __syncwarp();
  uint32_t v = 0;
  long long t0 = clock64();
  for (int i = 0; i < 1024; i++) v = atom_add(&buf[lane % C + (v & pad[lane])], 1);
  long long t1 = clock64();
  out[lane] = v;
  if (lane == 0) *cycles = t1 - t0;
}

__global__ void chain_ld(const uint32_t *pad, uint32_t *out, long long *cycles) {
  __shared__ uint32_t buf[64];
  int lane = threadIdx.x;
  buf[lane] = 0;
  __syncwarp();
  volatile uint32_t *b = buf;
  uint32_t v = 0;
  long long t0 = clock64();
  for (int i = 0; i < 1024; i++) v = b[lane + (v & pad[lane])];
  long long t1 = clock64();
  out[lane] = v;
  if (lane == 0) *cycles = t1 - t0;
}

int main() {
  uint32_t *pad, *out;
  long long *cyc;
  const int blocks = 132 * 8, threads = 256;
  cudaMalloc(&pad, blocks * threads * 4);
  cudaMemset(pad, 0, blocks * threads * 4);
  cudaMalloc(&out, blocks * threads * 4);
  cudaMalloc(&cyc, 8);
#define AC(C, S) atom_copies<C, S><<<1, 32>>>(pad, out);
  AC(32, 1) AC(16, 1) AC(8, 1) AC(4, 1) AC(2, 1) AC(1, 1)
  AC(32, 2) AC(32, 4) AC(32, 32) AC(32, 33) AC(16, 2) AC(4, 32) AC(4, 33)
  atom_part<16, 16><<<1, 32>>>(pad, out);
  atom_part<16, 1><<<1, 32>>>(pad, out);
  atom_part<1, 1><<<1, 32>>>(pad, out);
  atom_pairs_one_bank<<<1, 32>>>(pad, out);
#define LOOP(C, S) loop_atom<C, S><<<blocks, threads>>>(pad, out); loop_ld<C, S><<<blocks, threads>>>(pad, out);
  LOOP(32, 1) LOOP(8, 1) LOOP(4, 1) LOOP(1, 1) LOOP(32, 2)
  cudaError_t err = cudaDeviceSynchronize();
  printf("atomics: %s\n", cudaGetErrorString(err));
  long long c;
#define CHAIN(K, NAME)                                      \
  K<<<1, 32>>>(pad, out, cyc);                              \
  cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost);           \
  printf("%s,%lld,%.2f\n", NAME, c, c / 1024.0);
  printf("kernel,cycles_1024,cycles_per_step\n");
  CHAIN(chain_atom<32>, "chain_atom_c32")
  CHAIN(chain_atom<1>, "chain_atom_c1")
  CHAIN(chain_ld, "chain_ld")
  err = cudaDeviceSynchronize();
  printf("atomics: %s\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
