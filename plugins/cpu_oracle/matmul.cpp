#include "matmul.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

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

// The same products and sums with kLanes floats as one GCC vector value,
// one AVX-512 register (the AVX-512 build): each lane its own IEEE multiply
// and add, so it gives dot_lanes' bits. Exact operands only (the bf16 policy's and
// the planted bug's roundings take dot_lanes).
// (Always inlined: the vector ABI warning for the helpers does not apply.)
#pragma GCC diagnostic ignored "-Wpsabi"
using Lanes = float __attribute__((vector_size(kLanes * sizeof(float))));
using LaneWords = std::uint32_t __attribute__((vector_size(kLanes * sizeof(std::uint32_t))));
using LaneHalves = std::uint16_t __attribute__((vector_size(kLanes * sizeof(std::uint16_t))));

[[gnu::always_inline]] inline Lanes load_lanes(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[gnu::always_inline]] inline LaneWords load_words(const void* p) {
  LaneHalves h;
  std::memcpy(&h, p, sizeof h);
  return __builtin_convertvector(h, LaneWords);
}

[[gnu::always_inline]] inline Lanes load_lanes(const Bf16* p) {
  return reinterpret_cast<Lanes>(load_words(p) << 16);
}

// widen(F16) lane by lane.
[[gnu::always_inline]] inline Lanes load_lanes(const F16* p) {
  const LaneWords bits = load_words(p);
  const LaneWords sign = (bits & 0x8000u) << 16;
  const LaneWords magnitude = bits & 0x7fffu;
  const LaneWords normal = (magnitude << 13) + (112u << 23);
  const LaneWords special = (magnitude << 13) | 0x7f800000u;
  const LaneWords subnormal =
      reinterpret_cast<LaneWords>(__builtin_convertvector(magnitude, Lanes) * 0x1p-24f);
  const LaneWords value = magnitude >= 0x7c00u   ? special
                          : magnitude >= 0x0400u ? normal
                                                 : subnormal;
  return reinterpret_cast<Lanes>(value | sign);
}

// dot_lanes of one weight row with kInputs inputs at once: the row's lanes
// are loaded and widened once for all of them.
template <std::size_t kInputs, typename Element>
[[gnu::always_inline]] inline void dot_lanes_inputs(const Element* w, const float* const* x,
                                                    std::size_t n, float (&out)[kInputs]) {
  Lanes acc[kInputs] = {};
  std::size_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    const Lanes weight = load_lanes(w + k);
    for (std::size_t i = 0; i < kInputs; ++i) acc[i] += weight * load_lanes(x[i] + k);
  }
  for (std::size_t i = 0; i < kInputs; ++i) {
    float lane[kLanes];
    std::memcpy(lane, &acc[i], sizeof lane);
    for (std::size_t l = 0; k + l < n; ++l) lane[l] += product<false>(w[k + l], x[i][k + l]);
    out[i] = fold_lanes(lane);
  }
}

#if ALGENTA_ORACLE_PLANTED_BUG == 4
inline constexpr bool kExactActivations = false;
#else
inline constexpr bool kExactActivations = true;
#endif

// Inputs in blocks that stay in cache while the thread's rows pass over
// them, kInputsAtOnce of a block against each row at a time.
constexpr std::size_t kInputBlock = 64;
constexpr std::size_t kInputsAtOnce = 4;

// kLaneVectors: the Lanes loop (the AVX-512 build, where a Lanes value is
// one register); else dot_lanes, which GCC vectorises well for AVX2 and SSE.
template <typename Element, bool kBf16Operands, bool kLaneVectors>
[[gnu::always_inline]] inline void matmul_typed(const MatrixView& w,
                                                std::span<const float* const> inputs,
                                                std::span<float* const> outputs,
                                                std::size_t row_begin, std::size_t row_end) {
  const auto* rows = reinterpret_cast<const Element*>(w.data);
  if constexpr (kBf16Operands || !kExactActivations || !kLaneVectors) {
    for (std::size_t r = row_begin; r < row_end; ++r) {
      const Element* row = rows + r * w.cols;
      for (std::size_t t = 0; t < inputs.size(); ++t)
        outputs[t][r] = dot_lanes<Element, kBf16Operands>(row, inputs[t], w.cols);
    }
  } else {
    for (std::size_t block = 0; block < inputs.size(); block += kInputBlock) {
      const std::size_t block_end = std::min(inputs.size(), block + kInputBlock);
      for (std::size_t r = row_begin; r < row_end; ++r) {
        const Element* row = rows + r * w.cols;
        std::size_t t = block;
        for (; t + kInputsAtOnce <= block_end; t += kInputsAtOnce) {
          float results[kInputsAtOnce];
          dot_lanes_inputs<kInputsAtOnce>(row, inputs.data() + t, w.cols, results);
          for (std::size_t i = 0; i < kInputsAtOnce; ++i) outputs[t + i][r] = results[i];
        }
        for (; t < block_end; ++t) {
          float result[1];
          dot_lanes_inputs<1>(row, inputs.data() + t, w.cols, result);
          outputs[t][r] = result[0];
        }
      }
    }
  }
}

template <bool kBf16Operands, bool kLaneVectors>
[[gnu::always_inline]] inline void matmul_typed_any(const MatrixView& w,
                                                    std::span<const float* const> inputs,
                                                    std::span<float* const> outputs,
                                                    std::size_t row_begin, std::size_t row_end) {
  switch (w.type) {
    case ElementType::f32:
      return matmul_typed<float, kBf16Operands, kLaneVectors>(w, inputs, outputs, row_begin, row_end);
    case ElementType::bf16:
      return matmul_typed<Bf16, kBf16Operands, kLaneVectors>(w, inputs, outputs, row_begin, row_end);
    case ElementType::f16:
      return matmul_typed<F16, kBf16Operands, kLaneVectors>(w, inputs, outputs, row_begin, row_end);
  }
}

// The oracle's build instantiates the exact products alone.
template <bool kLaneVectors>
[[gnu::always_inline]] inline void matmul_any(const MatrixView& w,
                                              std::span<const float* const> inputs,
                                              std::span<float* const> outputs,
                                              std::size_t row_begin, std::size_t row_end) {
#if ALGENTA_ORACLE_BF16_POLICY
  if (bf16_policy_running()) {
    return matmul_typed_any<true, kLaneVectors>(w, inputs, outputs, row_begin, row_end);
  }
#endif
  matmul_typed_any<false, kLaneVectors>(w, inputs, outputs, row_begin, row_end);
}

// The same source three times: for any x86-64, with AVX2, with AVX-512.
void matmul_generic(const MatrixView& w, std::span<const float* const> inputs,
                    std::span<float* const> outputs, std::size_t row_begin, std::size_t row_end) {
  matmul_any<false>(w, inputs, outputs, row_begin, row_end);
}

#ifdef ALGENTA_ORACLE_HAS_AVX2_BUILD
[[gnu::target("avx2")]] void matmul_avx2(const MatrixView& w, std::span<const float* const> inputs,
                                         std::span<float* const> outputs, std::size_t row_begin,
                                         std::size_t row_end) {
  matmul_any<false>(w, inputs, outputs, row_begin, row_end);
}

[[gnu::target("avx512f")]] void matmul_avx512(const MatrixView& w,
                                              std::span<const float* const> inputs,
                                              std::span<float* const> outputs,
                                              std::size_t row_begin, std::size_t row_end) {
  matmul_any<true>(w, inputs, outputs, row_begin, row_end);
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

// AVX-512F, with the OS saving the opmask and ZMM state.
bool cpu_has_avx512() {
  if (!cpu_has_avx2()) return false;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  if ((xcr0_low & 0xe6u) != 0xe6u) return false;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ebx & bit_AVX512F) != 0;
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

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::generic:
      return "generic";
    case Isa::avx2:
      return "avx2";
    case Isa::avx512:
      return "avx512";
  }
  return "?";
}

std::vector<Isa> available_isas() {
  std::vector<Isa> isas{Isa::generic};
#ifdef ALGENTA_ORACLE_HAS_AVX2_BUILD
  if (cpu_has_avx2()) isas.push_back(Isa::avx2);
  if (cpu_has_avx512()) isas.push_back(Isa::avx512);
#endif
  return isas;
}

Isa detect_isa() { return available_isas().back(); }

void matmul_rows(Isa isa, const MatrixView& w, std::span<const float* const> inputs,
                 std::span<float* const> outputs, std::size_t row_begin, std::size_t row_end) {
#ifdef ALGENTA_ORACLE_HAS_AVX2_BUILD
  if (isa == Isa::avx2) return matmul_avx2(w, inputs, outputs, row_begin, row_end);
  if (isa == Isa::avx512) return matmul_avx512(w, inputs, outputs, row_begin, row_end);
#endif
  (void)isa;
  matmul_generic(w, inputs, outputs, row_begin, row_end);
}

float dot(const float* a, const float* b, std::size_t n) { return dot_lanes(a, b, n); }

}  // namespace algenta::oracle
