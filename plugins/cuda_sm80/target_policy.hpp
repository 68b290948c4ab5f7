// Ampere policy: bf16 tensor cores (mma.sync m16n8k16), cp.async loads.
#pragma once
#include "algenta/plugin_abi.h"
#include <cuda_bf16.h>

struct TargetPolicy {
  static constexpr const char* kPluginName = "cuda_sm80";
  static constexpr const char* kTarget = "sm_80";
  static constexpr AlgentaDtype kWeightDtype = ALGENTA_DTYPE_BF16;
  static constexpr const char* kComputeDtype = "bf16";
  using Element = __nv_bfloat16;
};
