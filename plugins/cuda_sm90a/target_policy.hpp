// Hopper policy: bf16; wgmma/TMA micro-kernels only where measured to pay.
#pragma once
#include <cuda_bf16.h>

struct TargetPolicy {
  static constexpr const char* kPluginName = "cuda_sm90a";
  static constexpr const char* kTarget = "sm_90a";
  static constexpr const char* kComputeDtype = "bf16";
  using Element = __nv_bfloat16;
};
