// Hopper policy: bf16; wgmma/TMA micro-kernels only where measured to pay.
#pragma once
#include "algenta/plugin_abi.h"
#include <cuda_bf16.h>

struct TargetPolicy {
  static constexpr const char* kPluginName = "cuda_sm90a";
  static constexpr const char* kTarget = "sm_90a";
  static constexpr AlgentaDtype kWeightDtype = ALGENTA_DTYPE_BF16;
  static constexpr const char* kComputeDtype = "bf16";
  using Element = __nv_bfloat16;
};
