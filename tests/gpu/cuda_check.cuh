// CHECK_CUDA(call): the GPU test programs stop at the first failed CUDA call,
// naming it; and the summary file some of them write.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                 \
  do {                                                                   \
    const cudaError_t err_ = (call);                                     \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                            \
      std::exit(2);                                                      \
    }                                                                    \
  } while (0)

// A check's summary for run.sh: {"kernel", "cases", "failed", "passed"} at
// `path` (none when path is null).
inline void write_check_summary(const char* path, const char* kernel, int cases, int failed) {
  if (path == nullptr) return;
  if (FILE* f = std::fopen(path, "w")) {
    std::fprintf(f, "{\"kernel\": \"%s\", \"cases\": %d, \"failed\": %d, \"passed\": %s}\n",
                 kernel, cases, failed, failed == 0 ? "true" : "false");
    std::fclose(f);
  }
}
