// When the SMs of a launch take their first block, and when they finish:
// one block of one warp on each SM, each recording the GPU-wide
// %globaltimer (ns) and its SM at its start and just before it exits. The
// host prints one row per block and launch; hw/launch_spread.py (or any
// reader) takes each launch's spread of starts and of ends across SMs.
// The timer's step is printed first (the smallest nonzero difference of
// back-to-back reads), since the spread must exceed it to be seen.
// Build and run: hw/launch_spread.sh OUTDIR.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__device__ __forceinline__ uint64_t gtimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ uint32_t smid() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// rec[4 * block + {0,1,2,3}] = start, end, SM, spin iterations done.
__global__ void stamp(unsigned long long* rec, int spin) {
  uint64_t t0 = gtimer();
  uint32_t x = threadIdx.x;
  for (int i = 0; i < spin; ++i) x = x * 1664525u + 1013904223u;
  uint64_t t1 = gtimer();
  if (threadIdx.x == 0) {
    rec[4 * blockIdx.x + 0] = t0;
    rec[4 * blockIdx.x + 1] = t1;
    rec[4 * blockIdx.x + 2] = smid();
    rec[4 * blockIdx.x + 3] = x & 1;
  }
}

__global__ void step(unsigned long long* out) {
  uint64_t a = gtimer(), best = ~0ull;
  for (int i = 0; i < 100000; ++i) {
    uint64_t b = gtimer();
    if (b != a && b - a < best) best = b - a;
    a = b;
  }
  out[0] = best;
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  unsigned long long* d;
  cudaMalloc(&d, 4 * 8 * 4096);
  step<<<1, 1>>>(d);
  unsigned long long best = 0;
  cudaMemcpy(&best, d, 8, cudaMemcpyDeviceToHost);
  printf("# globaltimer step %llu ns, %d SMs\n", best, sms);
  printf("grid,spin,launch,block,sm,start_ns,end_ns\n");
  static unsigned long long h[4 * 4096];
  const int grids[] = {1, 16, 66, sms, 2 * sms};
  const int spins[] = {0, 20000};
  for (int g : grids)
    for (int spin : spins)
      for (int launch = 0; launch < 20; ++launch) {
        stamp<<<g, 32>>>(d, spin);
        cudaDeviceSynchronize();
        cudaMemcpy(h, d, 4 * 8 * g, cudaMemcpyDeviceToHost);
        for (int b = 0; b < g; ++b)
          printf("%d,%d,%d,%d,%llu,%llu,%llu\n", g, spin, launch, b, h[4 * b + 2],
                 h[4 * b + 0], h[4 * b + 1]);
      }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 1; }
  return 0;
}
