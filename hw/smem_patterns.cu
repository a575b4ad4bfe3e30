// How many wavefronts one warp-wide shared load or store takes, for a given
// set of lane addresses, by access width (4, 8 or 16 bytes a lane). The
// simulator split a warp access into phases of 128 bytes' worth of lanes
// (the whole warp at 4 bytes, half-warps at 8, quarter-warps at 16) and
// counted in each the most distinct words one bank must deliver
// (sim/src/shared_mem.rs). That is exact over HotSort, mergesort and
// bitonic, but GPUTeraSort's `reorder`, whose 8-byte loads read two or
// three table entries a warp (a broadcast within each record's lanes),
// counted about 17% fewer wavefronts on the H200 than the model gave
// (docs/calibration.md, "Shared wavefronts where the hardware counts
// more"). This probe asks which patterns the H200 serves in fewer. What it
// found (8- and 16-byte loads whose lanes read in pairs take phases twice
// as wide) is sim/src/shared_pairs.rs and docs/hardware.md.
//
// Each launch is one warp issuing one shared load (`LDS`, `LDS.64` or
// `LDS.128` in the SASS) or one store (`STS`, ...) at word `idx[lane]` of
// a 16 KB table, lanes whose `idx` is 0xffffffff inactive; the loads'
// kernel fills the table with stores first, the stores' kernel reads back
// with 32-bit loads after, so each launch's loads (or stores) of the
// other kind are counted apart and ignored. Patterns: structured ones (every
// lane one word, the halves each one word, GPUTeraSort's records of 25
// lanes, strides, pairs) and random ones (lanes choosing among m words of
// 64). The program prints one row a launch, in launch order:
// `op,width,pattern,idx0;idx1;...;idx31` (`-` for an inactive lane); run
// under `ncu` (hw/smem_patterns.sh), the n-th row is the n-th profiled
// launch.
//
// Usage (with an NVIDIA GPU, nvcc and ncu): hw/smem_patterns.sh OUTDIR.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "cuda_check.h"

constexpr uint32_t OFF = 0xffffffffu;
constexpr int TABLE_BYTES = 16384;

// One shared load of the given width (volatile: kept, and not merged).
__device__ __forceinline__ uint32_t load_shared(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"((uint32_t)__cvta_generic_to_shared(p)));
  return v;
}
__device__ __forceinline__ uint2 load_shared(const uint2 *p) {
  uint2 v;
  asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];"
               : "=r"(v.x), "=r"(v.y)
               : "r"((uint32_t)__cvta_generic_to_shared(p)));
  return v;
}
__device__ __forceinline__ uint4 load_shared(const uint4 *p) {
  uint4 v;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"((uint32_t)__cvta_generic_to_shared(p)));
  return v;
}

template <typename T>
__global__ void load(const uint32_t *idx, T *out) {
  __shared__ T table[TABLE_BYTES / sizeof(T)];
  for (int i = threadIdx.x; i < TABLE_BYTES / (int)sizeof(T); i += blockDim.x) {
    T v;
    memset(&v, i & 0xff, sizeof(T));
    table[i] = v;
  }
  __syncthreads();
  uint32_t i = idx[threadIdx.x];
  if (i != OFF) out[threadIdx.x] = load_shared(&table[i]);
}

// The same access as a store: lane l writes its lane number's bytes at
// word `idx[l]` (the table is then read once, so the store is kept).
__device__ __forceinline__ void store_shared(uint32_t *p, uint32_t v) {
  asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"((uint32_t)__cvta_generic_to_shared(p)), "r"(v));
}
__device__ __forceinline__ void store_shared(uint2 *p, uint32_t v) {
  asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %1};" ::"r"((uint32_t)__cvta_generic_to_shared(p)),
               "r"(v));
}
__device__ __forceinline__ void store_shared(uint4 *p, uint32_t v) {
  asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(
                   (uint32_t)__cvta_generic_to_shared(p)),
               "r"(v));
}

template <typename T>
__global__ void store(const uint32_t *idx, uint32_t *out) {
  __shared__ T table[TABLE_BYTES / sizeof(T)];
  uint32_t i = idx[threadIdx.x];
  if (i != OFF) store_shared(&table[i], threadIdx.x);
  __syncwarp();
  out[threadIdx.x] = ((volatile uint32_t *)table)[threadIdx.x];
}

struct Pattern {
  std::string name;
  std::vector<uint32_t> idx;
};

// A deterministic generator (the same patterns every run).
static uint32_t rng_state = 12345;
static uint32_t next_rand() {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}

static std::vector<Pattern> patterns(int width) {
  std::vector<Pattern> ps;
  auto add = [&](std::string name, auto f) {
    Pattern p{name, std::vector<uint32_t>(32)};
    for (int l = 0; l < 32; l++) p.idx[l] = f(l);
    ps.push_back(p);
  };
  add("same", [](int) { return 0u; });
  add("halves", [](int l) { return l < 16 ? 0u : 1u; });
  add("halves_far", [](int l) { return l < 16 ? 0u : 16u; });
  add("quarters", [](int l) { return (uint32_t)(l / 8); });
  add("consecutive", [](int l) { return (uint32_t)l; });
  add("mod16", [](int l) { return (uint32_t)(l % 16); });
  add("mod8", [](int l) { return (uint32_t)(l % 8); });
  add("mod4", [](int l) { return (uint32_t)(l % 4); });
  add("pairs", [](int l) { return (uint32_t)(l / 2); });
  add("fours", [](int l) { return (uint32_t)(l / 4); });
  add("low_bcast_high_seq", [](int l) { return l < 16 ? 0u : (uint32_t)l; });
  add("stride2", [](int l) { return (uint32_t)(2 * l); });
  add("stride16", [](int l) { return (uint32_t)(16 * l); });
  add("first16", [](int l) { return l < 16 ? (uint32_t)l : OFF; });
  add("last16", [](int l) { return l >= 16 ? (uint32_t)l : OFF; });
  add("one_lane", [](int l) { return l == 0 ? 0u : OFF; });
  add("two_words_mixed", [](int l) { return (uint32_t)(l & 1); });
  // Lane pairs (2j, 2j + 1) reading two words: which pairs count as one.
  add("pairs_01", [](int l) { return (uint32_t)(l & 1); });
  add("pairs_10", [](int l) { return (uint32_t)(1 - (l & 1)); });
  add("pairs_02", [](int l) { return (uint32_t)(2 * (l & 1)); });
  add("pairs_12", [](int l) { return (uint32_t)(1 + (l & 1)); });
  add("pairs_01_23_by_half", [](int l) { return (uint32_t)((l & 1) + (l >= 16 ? 2 : 0)); });
  add("pairs_01_by_quad", [](int l) { return (uint32_t)((l & 1) + 2 * (l / 4)); });
  add("pairs_01_then_same5", [](int l) { return l < 16 ? (uint32_t)(l & 1) : 5u; });
  add("pairs_01_one_00", [](int l) { return l == 1 ? 0u : (uint32_t)(l & 1); });
  add("pairs_0_16", [](int l) { return (uint32_t)(16 * (l & 1)); });
  add("pairs_odd_lanes_off", [](int l) { return (l & 1) ? OFF : (uint32_t)(l / 2); });
  add("pairs_shifted", [](int l) { return (uint32_t)((l + 1) / 2); });
  // Quads of each kind in one warp, and halves of each kind.
  add("quad_pairs_then_alternating", [](int l) {
    int q = l / 4, i = l % 4;
    return (uint32_t)(q == 1 ? 2 * q + (i & 1) : 2 * q + i / 2);
  });
  add("half_pairs_half_consecutive", [](int l) { return (uint32_t)(l < 16 ? l / 2 : l); });
  add("half_alternating_half_consecutive",
      [](int l) { return (uint32_t)(l < 16 ? (l & 1) + 2 * (l / 4) : l); });
  add("half_consecutive_half_pairs", [](int l) { return (uint32_t)(l < 16 ? l : 8 + l / 2); });
  // GPUTeraSort's `reorder` over 100-byte records: 25 lanes a record,
  // each reading its record's 8-byte table entry; warp w of the block
  // holds threads 32w .. 32w + 31 (the last warp 26 of 250).
  for (int w = 0; w < 8; w++)
    add("records25_w" + std::to_string(w), [w](int l) {
      int t = 32 * w + l;
      return t < 250 ? (uint32_t)(t / 25) : OFF;
    });
  // 16-byte records (one unit a record, k = 256): every lane its own entry.
  // Random: lanes choose among m words of the first 64 (m distinct).
  for (int m : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}) {
    for (int r = 0; r < 12; r++) {
      std::vector<uint32_t> words;
      while ((int)words.size() < m) {
        uint32_t w = next_rand() % 64;
        bool seen = false;
        for (uint32_t x : words) seen |= x == w;
        if (!seen) words.push_back(w);
      }
      std::vector<uint32_t> idx(32);
      for (int l = 0; l < 32; l++) idx[l] = words[next_rand() % m];
      ps.push_back({"rand_m" + std::to_string(m) + "_" + std::to_string(r), idx});
    }
  }
  // Random runs of consecutive lanes on one word (as records of 2-31 lanes).
  for (int r = 0; r < 24; r++) {
    int len = 2 + next_rand() % 30;
    int start = next_rand() % len;
    uint32_t base = next_rand() % 32;
    std::vector<uint32_t> idx(32);
    for (int l = 0; l < 32; l++) idx[l] = base + (uint32_t)((l + start) / len);
    ps.push_back({"runs" + std::to_string(len) + "_" + std::to_string(r), idx});
  }
  (void)width;
  return ps;
}

template <typename T>
static int run(int width, bool st, uint32_t *d_idx, void *d_out) {
  for (const Pattern &p : patterns(width)) {
    CHECK(cudaMemcpy(d_idx, p.idx.data(), 32 * 4, cudaMemcpyHostToDevice));
    if (st)
      store<T><<<1, 32>>>(d_idx, (uint32_t *)d_out);
    else
      load<T><<<1, 32>>>(d_idx, (T *)d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("%s,%d,%s,", st ? "st" : "ld", width, p.name.c_str());
    for (int l = 0; l < 32; l++) {
      if (p.idx[l] == OFF)
        printf("-");
      else
        printf("%u", p.idx[l]);
      printf(l < 31 ? ";" : "\n");
    }
  }
  return 0;
}

int main() {
  uint32_t *d_idx;
  void *d_out;
  CHECK(cudaMalloc(&d_idx, 32 * 4));
  CHECK(cudaMalloc(&d_out, 32 * 16));
  printf("op,width,pattern,idx\n");
  for (bool st : {false, true}) {
    rng_state = 12345;
    if (run<uint32_t>(4, st, d_idx, d_out)) return 1;
    if (run<uint2>(8, st, d_idx, d_out)) return 1;
    if (run<uint4>(16, st, d_idx, d_out)) return 1;
  }
  return 0;
}
