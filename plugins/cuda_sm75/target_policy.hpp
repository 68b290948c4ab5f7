// Turing policy: f16 tensor cores (mma.sync m16n8k8); no bf16 on this target.
#pragma once
#include "algenta/plugin_abi.h"
#include <cuda_fp16.h>

struct TargetPolicy {
  static constexpr const char* kPluginName = "cuda_sm75";
  static constexpr const char* kTarget = "sm_75";
  static constexpr AlgentaDtype kWeightDtype = ALGENTA_DTYPE_F16;
  static constexpr const char* kComputeDtype = "f16";
  using Element = __half;
};
