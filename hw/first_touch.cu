// What a global load costs the first time a launch touches its page.
// Mergesort's `partition` (a chain of dependent loads, one warp of few on
// each of a dozen SMs) runs a constant 1,500-2,500 cycles a launch longer
// on the H200 than in the simulator at 1M and 4M keys, whatever its number
// of probes, and about none at 64K keys (docs/calibration.md, "Chains of
// loads on a dozen SMs"). The simulator prices a load by where its line
// is (L1, L2 or DRAM) and nothing else; address translation is not
// modelled. This probe times a dependent chain step by step:
//
// - the chain's span: 256 KB, 4 MB, 64 MB or 1 GB, and whether successive
//   steps go to another 2 MB region of it (`pages`) or stay in one
//   (`same`, 4 KB apart);
// - the L2: emptied first (`cold`: each line from DRAM), or the launch
//   repeated right after (`warm`, `warm2`: each line in L2);
// - who chases: one thread on every SM (132 blocks), or one block.
//
// Each step's address is the word the last step loaded. In the SASS
// (hw/data/h200/first_touch/first_touch.sass.gz) the clock is read right
// after each step's `LDG` issues, and the next `LDG` issues once the last
// one's word has landed, so row `step` = k + 1 is the latency of load k
// plus a few instructions (row 0 is the chain's start, and the last load's
// latency is not recorded). Output (one row per step):
// `variant,l2,grid,block,sm,step,cycles`.
//
// Usage (with an NVIDIA GPU and nvcc): hw/first_touch.sh OUTDIR.
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "probe_clock.h"

constexpr int STEPS = 32;
constexpr size_t REGION = (size_t)2 << 20;  // 2 MB: the large page
constexpr size_t LINE = 128;

__global__ void chase(const uint32_t *buf, uint64_t *rec, uint32_t *sink) {
  if (threadIdx.x != 0) return;
  uint32_t idx = blockIdx.x * (uint32_t)(LINE / 4);
  uint64_t *r = rec + (size_t)blockIdx.x * (STEPS + 2);
  r[0] = sm_id();
  uint64_t prev = clock_now();
  for (int i = 0; i < STEPS; i++) {
    uint32_t v = buf[idx];
    // (ptxas folds the add: the clock is read as the load issues.)
    asm volatile("add.u32 %0, %1, 0;" : "=r"(idx) : "r"(v));
    uint64_t now = clock_now();
    r[1 + i] = now - prev;
    prev = now;
  }
  r[STEPS + 1] = idx;
  if (idx == 0xdeadbeef) sink[0] = idx;
}

// Byte offset of step `i` of block `b` in a span of `regions` 2 MB
// regions: the steps go round the regions, spread evenly over the span
// (every 16th region of 1 GB), 4 KB further into a region each round,
// plus the block's own line.
size_t offset(size_t b, int i, size_t regions) {
  size_t used = regions < (size_t)STEPS ? regions : (size_t)STEPS;
  size_t spread = regions / used;
  return (size_t)(i % used) * spread * REGION + (size_t)(i / used) * 4096 + b * LINE;
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  struct Variant {
    const char *name;
    size_t span;
    bool pages;
  };
  const Variant variants[] = {
      {"s256k_same", (size_t)256 << 10, false}, {"s4m_pages", (size_t)4 << 20, true},
      {"s64m_same", (size_t)64 << 20, false},   {"s64m_pages", (size_t)64 << 20, true},
      {"s1g_pages", (size_t)1 << 30, true},
  };
  uint32_t *scrub_buf, *sink;
  if (alloc_scrub(&scrub_buf)) return 1;
  CHECK(cudaMalloc(&sink, 4));
  uint64_t *rec;
  CHECK(cudaMalloc(&rec, (size_t)sms * (STEPS + 2) * 8));
  std::vector<uint64_t> host((size_t)sms * (STEPS + 2));
  printf("variant,l2,grid,block,sm,step,cycles\n");
  for (const Variant &v : variants) {
    // 4 KB steps within a region: 256 KB holds 64 of them, enough for 32.
    size_t regions = v.pages ? v.span / REGION : 1;
    std::vector<uint32_t> words(v.span / 4, 0);
    for (size_t b = 0; b < (size_t)sms; b++)
      for (int i = 0; i < STEPS; i++)
        words[offset(b, i, regions) / 4] = (uint32_t)(offset(b, i + 1, regions) / 4);
    uint32_t *buf;
    CHECK(cudaMalloc(&buf, v.span));
    CHECK(cudaMemcpy(buf, words.data(), v.span, cudaMemcpyHostToDevice));
    for (int grid : {sms, 1}) {
      const char *l2[] = {"cold", "warm", "warm2"};
      for (int run = 0; run < 3; run++) {
        if (run == 0) scrub<<<4 * sms, 1024>>>(scrub_buf, SCRUB_WORDS, sink);
        chase<<<grid, 32>>>(buf, rec, sink);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(host.data(), rec, (size_t)grid * (STEPS + 2) * 8,
                         cudaMemcpyDeviceToHost));
        for (int b = 0; b < grid; b++) {
          const uint64_t *r = host.data() + (size_t)b * (STEPS + 2);
          for (int i = 0; i < STEPS; i++)
            printf("%s,%s,%d,%d,%llu,%d,%llu\n", v.name, l2[run], grid, b,
                   (unsigned long long)r[0], i, (unsigned long long)r[1 + i]);
        }
      }
    }
    CHECK(cudaFree(buf));
  }
  return 0;
}
