// CHECK(x): returns 1 from main, naming the file, line and CUDA error, when a
// CUDA runtime call fails. Shared by the standalone programs of hw/.
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e = (x);                                                          \
    if (e != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      return 1;                                                                   \
    }                                                                             \
  } while (0)
