// Microbenchmarks whose Nsight Compute counters calibrate the simulator.
// Each kernel is one warp making one access pattern; the counters that ncu
// reports for it are committed in hw/data/ and checked by tests/hardware.rs.
// Build and measure on an NVIDIA GPU with hw/measure.sh.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

template <typename T> __device__ T make(uint32_t x);
template <> __device__ uint32_t make<uint32_t>(uint32_t x) { return x; }
template <> __device__ uint64_t make<uint64_t>(uint32_t x) { return x * 3ull; }
template <> __device__ uint4 make<uint4>(uint32_t x) { return make_uint4(x, x + 1, x + 2, x + 3); }

__device__ uint32_t fold(uint32_t v) { return v; }
__device__ uint32_t fold(uint64_t v) { return (uint32_t)(v ^ (v >> 32)); }
__device__ uint32_t fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// One warp stores, then loads, element lane*STRIDE of type T in shared memory.
// `zero` is 0 at run time; the compiler cannot prove it, so the load is real.
template <typename T, int STRIDE>
__global__ void smem_stride(uint32_t *out, int zero) {
  __shared__ T buf[33 * 64 + 8];
  int lane = threadIdx.x;
  buf[lane * STRIDE + zero] = make<T>(lane);
  __syncwarp();
  T v = buf[lane * STRIDE + 2 * zero];
  out[lane] = fold(v);
}

// Every lane loads the same word (broadcast), or lanes pairwise share words.
template <int DIV>
__global__ void smem_broadcast(uint32_t *out, int zero) {
  __shared__ uint32_t buf[64];
  int lane = threadIdx.x;
  buf[lane] = lane;
  __syncwarp();
  out[lane] = buf[lane / DIV + zero];
}

// The transposing read of a slab: lane reads register r of row... i.e. word
// lane*PITCH + r for r = 0..H-1 (PITCH = H: plain; H + 1: padded).
template <int H, int PITCH>
__global__ void smem_transpose_read(uint32_t *out, int zero) {
  __shared__ uint32_t buf[64 * 65];
  int lane = threadIdx.x;
  for (int i = lane; i < 32 * PITCH; i += 32) buf[i] = i;
  __syncwarp();
  uint32_t acc = 0;
#pragma unroll
  for (int r = 0; r < H; r++) acc += buf[lane * PITCH + r + zero];
  out[lane] = acc;
}

// One warp loads 32-bit words at lane*STRIDE from global memory.
template <int STRIDE>
__global__ void gmem_stride(const uint32_t *in, uint32_t *out) {
  int lane = threadIdx.x;
  out[lane] = in[lane * STRIDE];
}

int main() {
  uint32_t *in, *out;
  cudaMalloc(&in, 64 * 64 * 64 * 4);
  cudaMalloc(&out, 64 * 4);
  cudaMemset(in, 0, 64 * 64 * 64 * 4);
#define SM(T, S) smem_stride<T, S><<<1, 32>>>(out, 0);
  SM(uint32_t, 1) SM(uint32_t, 2) SM(uint32_t, 3) SM(uint32_t, 4) SM(uint32_t, 8)
  SM(uint32_t, 16) SM(uint32_t, 32) SM(uint32_t, 33) SM(uint32_t, 64)
  SM(uint64_t, 1) SM(uint64_t, 2) SM(uint64_t, 4) SM(uint64_t, 16) SM(uint64_t, 17)
  SM(uint4, 1) SM(uint4, 2) SM(uint4, 8) SM(uint4, 9)
  smem_broadcast<32><<<1, 32>>>(out, 0);
  smem_broadcast<2><<<1, 32>>>(out, 0);
  smem_transpose_read<16, 16><<<1, 32>>>(out, 0);
  smem_transpose_read<16, 17><<<1, 32>>>(out, 0);
  smem_transpose_read<8, 8><<<1, 32>>>(out, 0);
  smem_transpose_read<8, 9><<<1, 32>>>(out, 0);
#define GM(S) gmem_stride<S><<<1, 32>>>(in, out);
  GM(1) GM(2) GM(4) GM(8) GM(32)
  cudaError_t err = cudaDeviceSynchronize();
  printf("microbench: %s\n", cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
