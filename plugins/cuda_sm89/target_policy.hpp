// Ada policy: as Ampere (bf16); fp8 only where measured to pay.
#pragma once
#include "algenta/plugin_abi.h"
#include <cuda_bf16.h>

struct TargetPolicy {
  static constexpr const char* kPluginName = "cuda_sm89";
  static constexpr const char* kTarget = "sm_89";
  static constexpr AlgentaDtype kWeightDtype = ALGENTA_DTYPE_BF16;
  static constexpr const char* kComputeDtype = "bf16";
  using Element = __nv_bfloat16;
};
