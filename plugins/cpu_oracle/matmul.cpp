#include "matmul.hpp"

#include <bit>

#include "bf16_policy.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#define ALGENTA_ORACLE_HAS_AVX2_BUILD 1
#endif

namespace algenta::oracle {
namespace {

constexpr std::size_t kLanes = 16;

[[gnu::always_inline]] inline float widen(float value) { return value; }

// Stored 16-bit elements, tagged so the loop knows how to widen them.
struct Bf16 {
  std::uint16_t bits;
};
struct F16 {
  std::uint16_t bits;
};

[[gnu::always_inline]] inline float widen(Bf16 value) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(value.bits) << 16);
}

// Branch-free so the loop vectorises; integer work only, except the
// subnormal case, whose product is exact and normal (so flush-to-zero modes
// cannot touch it).
[[gnu::always_inline]] inline float widen(F16 value) {
  const std::uint32_t sign = static_cast<std::uint32_t>(value.bits & 0x8000u) << 16;
  const std::uint32_t magnitude = value.bits & 0x7fffu;
  const std::uint32_t normal = (magnitude << 13) + (112u << 23);  // rebias 15 -> 127
  const std::uint32_t special = (magnitude << 13) | 0x7f800000u;  // infinity, NaN payload kept
  const std::uint32_t subnormal =
      std::bit_cast<std::uint32_t>(static_cast<float>(magnitude) * 0x1p-24f);
  const std::uint32_t bits = magnitude >= 0x7c00u   ? special
                             : magnitude >= 0x0400u ? normal
                                                    : subnormal;
  return std::bit_cast<float>(bits | sign);
}

// The activation as the product sees it: itself, except in the planted-bug
// build that rounds it to bf16 (nearest, ties to even), as a GEMM that drops
// the lo half of its fp32 inputs would: tokens may survive, logits do not.
[[gnu::always_inline]] inline float activation(float x) {
#if ALGENTA_ORACLE_PLANTED_BUG == 4
  return round_to_bf16(x);
#else
  return x;
#endif
}

// Either operand of a product: itself, or rounded to bf16 while the bf16
// policy's test build runs that policy (bf16_policy.hpp).
template <bool kBf16Operands>
[[gnu::always_inline]] inline float operand(float x) {
  if constexpr (kBf16Operands) return round_to_bf16(x);
  return x;
}

[[gnu::always_inline]] inline float fold_lanes(float* lane) {
  for (std::size_t width = kLanes / 2; width >= 1; width /= 2) {
    for (std::size_t l = 0; l < width; ++l) lane[l] += lane[l + width];
  }
  return lane[0];
}

// The one reduction order of this file (see matmul.hpp).
template <bool kBf16Operands, typename Element>
[[gnu::always_inline]] inline float product(Element w, float x) {
  return operand<kBf16Operands>(widen(w)) * operand<kBf16Operands>(activation(x));
}

template <typename Element, bool kBf16Operands = false>
[[gnu::always_inline]] inline float dot_lanes(const Element* w, const float* x, std::size_t n) {
  float lane[kLanes] = {};
  std::size_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (std::size_t l = 0; l < kLanes; ++l) lane[l] += product<kBf16Operands>(w[k + l], x[k + l]);
  }
  for (std::size_t l = 0; k + l < n; ++l) lane[l] += product<kBf16Operands>(w[k + l], x[k + l]);
  return fold_lanes(lane);
}

template <typename Element, bool kBf16Operands>
[[gnu::always_inline]] inline void matmul_typed(const MatrixView& w,
                                                std::span<const float* const> inputs,
                                                std::span<float* const> outputs,
                                                std::size_t row_begin, std::size_t row_end) {
  const auto* rows = reinterpret_cast<const Element*>(w.data);
  for (std::size_t r = row_begin; r < row_end; ++r) {
    const Element* row = rows + r * w.cols;
    for (std::size_t t = 0; t < inputs.size(); ++t)
      outputs[t][r] = dot_lanes<Element, kBf16Operands>(row, inputs[t], w.cols);
  }
}

template <bool kBf16Operands>
[[gnu::always_inline]] inline void matmul_typed_any(const MatrixView& w,
                                                    std::span<const float* const> inputs,
                                                    std::span<float* const> outputs,
                                                    std::size_t row_begin, std::size_t row_end) {
  switch (w.type) {
    case ElementType::f32:
      return matmul_typed<float, kBf16Operands>(w, inputs, outputs, row_begin, row_end);
    case ElementType::bf16:
      return matmul_typed<Bf16, kBf16Operands>(w, inputs, outputs, row_begin, row_end);
    case ElementType::f16:
      return matmul_typed<F16, kBf16Operands>(w, inputs, outputs, row_begin, row_end);
  }
}

// The oracle's build instantiates the exact products alone.
[[gnu::always_inline]] inline void matmul_any(const MatrixView& w,
                                              std::span<const float* const> inputs,
                                              std::span<float* const> outputs,
                                              std::size_t row_begin, std::size_t row_end) {
#if ALGENTA_ORACLE_BF16_POLICY
  if (bf16_policy_running()) {
    return matmul_typed_any<true>(w, inputs, outputs, row_begin, row_end);
  }
#endif
  matmul_typed_any<false>(w, inputs, outputs, row_begin, row_end);
}

// The same source twice: once for any x86-64, once with AVX2 enabled.
void matmul_generic(const MatrixView& w, std::span<const float* const> inputs,
                    std::span<float* const> outputs, std::size_t row_begin, std::size_t row_end) {
  matmul_any(w, inputs, outputs, row_begin, row_end);
}

#ifdef ALGENTA_ORACLE_HAS_AVX2_BUILD
[[gnu::target("avx2")]] void matmul_avx2(const MatrixView& w, std::span<const float* const> inputs,
                                         std::span<float* const> outputs, std::size_t row_begin,
                                         std::size_t row_end) {
  matmul_any(w, inputs, outputs, row_begin, row_end);
}

// AVX2 is usable when the CPU has it and the OS saves the YMM registers.
// Asked with cpuid when an engine opens: __builtin_cpu_supports would pull
// in a libgcc constructor that probes the CPU as soon as the plugin loads.
bool cpu_has_avx2() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  if ((ecx & bit_OSXSAVE) == 0 || (ecx & bit_AVX) == 0) return false;
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  if ((xcr0_low & 0x6u) != 0x6u) return false;  // XMM and YMM state enabled
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ebx & bit_AVX2) != 0;
}
#endif

}  // namespace

std::string_view element_type_name(ElementType type) {
  switch (type) {
    case ElementType::f32:
      return "f32";
    case ElementType::bf16:
      return "bf16";
    case ElementType::f16:
      return "f16";
  }
  return "?";
}

std::size_t element_size(ElementType type) { return type == ElementType::f32 ? 4 : 2; }

float widen_bf16(std::uint16_t bits) { return widen(Bf16{bits}); }
float widen_f16(std::uint16_t bits) { return widen(F16{bits}); }

void widen_row(const MatrixView& m, std::size_t row, float* out) {
  const std::byte* start = m.data + row * m.cols * element_size(m.type);
  for (std::size_t i = 0; i < m.cols; ++i) {
    switch (m.type) {
      case ElementType::f32:
        out[i] = reinterpret_cast<const float*>(start)[i];
        break;
      case ElementType::bf16:
        out[i] = widen(reinterpret_cast<const Bf16*>(start)[i]);
        break;
      case ElementType::f16:
        out[i] = widen(reinterpret_cast<const F16*>(start)[i]);
        break;
    }
  }
}

std::string_view isa_name(Isa isa) { return isa == Isa::avx2 ? "avx2" : "generic"; }

Isa detect_isa() {
#ifdef ALGENTA_ORACLE_HAS_AVX2_BUILD
  if (cpu_has_avx2()) return Isa::avx2;
#endif
  return Isa::generic;
}

void matmul_rows(Isa isa, const MatrixView& w, std::span<const float* const> inputs,
                 std::span<float* const> outputs, std::size_t row_begin, std::size_t row_end) {
#ifdef ALGENTA_ORACLE_HAS_AVX2_BUILD
  if (isa == Isa::avx2) return matmul_avx2(w, inputs, outputs, row_begin, row_end);
#endif
  (void)isa;
  matmul_generic(w, inputs, outputs, row_begin, row_end);
}

float dot(const float* a, const float* b, std::size_t n) { return dot_lanes(a, b, n); }

}  // namespace algenta::oracle
