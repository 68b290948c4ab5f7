// The bf16 precision policy as test builds of the oracle compute it: the
// reference behaviour a bf16 engine is judged by (bf16 GEMM and attention
// inputs and KV cache, fp32 accumulation and residual stream), on the CPU,
// so that verify's bf16-oracle gate can be tested without a GPU.
//
// Compile-time switch ALGENTA_ORACLE_BF16_POLICY:
//   0  the oracle: exact only (the vendor build; nothing here is compiled in)
//   1  declares exact and bf16; an engine opened with bf16 rounds to bf16
//      every matmul operand (activations and weights), attention's q, and
//      the keys and values as they enter the cache
//   2  as 1, and also keeps the residual stream in bf16: a mutant the
//      bf16-oracle gate must fail
// An engine opened with exact computes as the oracle does.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "algenta/plugin_abi.h"

#ifndef ALGENTA_ORACLE_BF16_POLICY
#define ALGENTA_ORACLE_BF16_POLICY 0
#endif

namespace algenta::oracle {

// x rounded to the nearest bf16 (ties to even), widened back to f32.
[[gnu::always_inline]] inline float round_to_bf16(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  return std::bit_cast<float>((bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u);
}

inline void round_to_bf16(float* values, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) values[i] = round_to_bf16(values[i]);
}

#if ALGENTA_ORACLE_BF16_POLICY
// The policy this process computes with. The kernels read it from many
// threads and have no engine at hand, so it is one per process: the first
// open fixes it, and an open asking another policy is refused
// (UNSUPPORTED) rather than computed wrongly.
void run_precision_policy(AlgentaPrecision precision, const char* plugin_name);
bool bf16_policy_running() noexcept;
#else
constexpr bool bf16_policy_running() noexcept { return false; }
#endif

}  // namespace algenta::oracle
