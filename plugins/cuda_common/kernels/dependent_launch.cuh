// Programmatic dependent launch (sm_90 on): a kernel launched with
// launch_dependent may start before the kernel ahead of it in the stream has
// finished, so its prologue (weight prefetches, index arithmetic, launch
// itself) overlaps that kernel's tail. Its contract:
//  - before wait_for_previous_kernel() it reads only what no kernel of the
//    pass writes (weights, norm weights, RoPE tables, rows, block tables,
//    and cache entries at positions before a row's own, which earlier
//    passes wrote) and writes nothing;
//  - wait_for_previous_kernel() returns once the kernel ahead has finished
//    and its writes are visible; that kernel waited for its own, so every
//    earlier kernel has finished too.
// allow_next_kernel() lets the next kernel's blocks be scheduled once every
// block of this one has called it (or exited). Where the device has no
// dependent launch (before sm_90), or ALGENTA_CUDA_PDL=0, the launch is an
// ordinary one and both calls do nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

namespace algenta::cuda {

__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_next_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Whether launches on this device may be programmatic: compute capability
// 9.0 or later, unless ALGENTA_CUDA_PDL=0 (for measuring without it).
inline bool dependent_launch_allowed() {
  static const bool allowed = [] {
    const char* setting = std::getenv("ALGENTA_CUDA_PDL");
    if (setting != nullptr && std::strcmp(setting, "0") == 0) return false;
    int device = 0, major = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return false;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
      return false;
    return major >= 9;
  }();
  return allowed;
}

// kernel<<<grid, block, shared_bytes, stream>>>(args...), programmatic
// where allowed.
template <typename... Params, typename... Args>
cudaError_t launch_dependent_shared(void (*kernel)(Params...), dim3 grid, dim3 block,
                                    size_t shared_bytes, cudaStream_t stream, Args... args) {
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = dependent_launch_allowed() ? 1 : 0;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
}

// kernel<<<grid, block, 0, stream>>>(args...), programmatic where allowed.
template <typename... Params, typename... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block,
                             cudaStream_t stream, Args... args) {
  return launch_dependent_shared(kernel, grid, block, 0, stream, args...);
}

}  // namespace algenta::cuda
