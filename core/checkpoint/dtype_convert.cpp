#include "checkpoint/dtype_convert.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace algenta::checkpoint {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors and the resident blob are little-endian; so is every host we run on");

constexpr std::uint32_t kF32SignBit = 0x8000'0000u;
constexpr std::uint32_t kF32ExponentMask = 0x7f80'0000u;
constexpr std::uint32_t kF32MagnitudeMask = 0x7fff'ffffu;
constexpr std::uint16_t kF16ExponentMask = 0x7c00u;
constexpr std::uint16_t kF16QuietBit = 0x0200u;
constexpr std::uint16_t kBf16QuietBit = 0x0040u;

bool is_f32_nan(std::uint32_t bits) { return (bits & kF32MagnitudeMask) > kF32ExponentMask; }

// Shifts `value` right by `shift` bits, rounding to nearest with ties to even.
std::uint32_t shift_right_round_even(std::uint32_t value, unsigned shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t dropped = value & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1u);
  const bool round_up = dropped > half || (dropped == half && (kept & 1u) != 0);
  return kept + (round_up ? 1u : 0u);
}

std::uint32_t load_as_f32_bits(Dtype dtype, const std::byte* element) {
  if (dtype == Dtype::F32) {
    std::uint32_t bits;
    std::memcpy(&bits, element, sizeof bits);
    return bits;
  }
  std::uint16_t half_bits;
  std::memcpy(&half_bits, element, sizeof half_bits);
  return dtype == Dtype::BF16 ? bf16_to_f32_bits(half_bits) : f16_to_f32_bits(half_bits);
}

void store_from_f32_bits(Dtype dtype, std::uint32_t bits, std::byte* element) {
  if (dtype == Dtype::F32) {
    std::memcpy(element, &bits, sizeof bits);
    return;
  }
  const std::uint16_t half_bits = dtype == Dtype::BF16 ? f32_bits_to_bf16(bits) : f32_bits_to_f16(bits);
  std::memcpy(element, &half_bits, sizeof half_bits);
}

}  // namespace

std::uint32_t bf16_to_f32_bits(std::uint16_t bf16) { return std::uint32_t{bf16} << 16; }

std::uint32_t f16_to_f32_bits(std::uint16_t f16) {
  const std::uint32_t sign = std::uint32_t{f16 & 0x8000u} << 16;
  const std::uint32_t exponent = (f16 >> 10) & 0x1fu;
  std::uint32_t mantissa = f16 & 0x3ffu;
  if (exponent == 0x1f) return sign | kF32ExponentMask | (mantissa << 13);  // inf, NaN + payload
  if (exponent != 0) return sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  if (mantissa == 0) return sign;
  // Subnormal: mantissa * 2^-24. Normalise so the leading 1 becomes implicit.
  std::uint32_t f32_exponent = 127 - 14;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --f32_exponent;
  }
  return sign | (f32_exponent << 23) | ((mantissa & 0x3ffu) << 13);
}

std::uint16_t f32_bits_to_bf16(std::uint32_t f32) {
  if (is_f32_nan(f32)) return static_cast<std::uint16_t>((f32 >> 16) | kBf16QuietBit);
  // bf16 is the top half of f32, so rounding the low 16 bits away is all;
  // a carry out of the mantissa correctly bumps the exponent (up to inf).
  return static_cast<std::uint16_t>(shift_right_round_even(f32, 16));
}

std::uint16_t f32_bits_to_f16(std::uint32_t f32) {
  const auto sign = static_cast<std::uint16_t>((f32 & kF32SignBit) >> 16);
  const std::uint32_t magnitude = f32 & kF32MagnitudeMask;
  if (is_f32_nan(f32)) {
    return static_cast<std::uint16_t>(sign | kF16ExponentMask | kF16QuietBit | ((magnitude >> 13) & 0x3ffu));
  }
  // 65520 lies halfway between the largest f16 (65504, odd mantissa) and
  // 65536: ties to even rounds it, and all above it, to infinity.
  constexpr std::uint32_t kF16OverflowThreshold = 0x477f'f000u;  // 65520.0f
  constexpr std::uint32_t kF16SmallestNormal = 0x3880'0000u;     // 2^-14
  constexpr std::uint32_t kF16HalfSmallestSubnormal = 0x3300'0000u;  // 2^-25
  if (magnitude >= kF16OverflowThreshold) return static_cast<std::uint16_t>(sign | kF16ExponentMask);
  if (magnitude >= kF16SmallestNormal) {
    // Rebias the exponent and round the mantissa from 23 to 10 bits; a carry
    // out of the mantissa moves into the exponent, as it should.
    const std::uint32_t rebiased = magnitude - ((127u - 15u) << 23);
    return static_cast<std::uint16_t>(sign | shift_right_round_even(rebiased, 13));
  }
  // At most half the smallest subnormal: ties to even gives zero.
  if (magnitude <= kF16HalfSmallestSubnormal) return sign;
  // Subnormal result in units of 2^-24: (1.mantissa * 2^(e-127)) / 2^-24.
  const std::uint32_t exponent = magnitude >> 23;
  const std::uint32_t significand = (magnitude & 0x7f'ffffu) | 0x80'0000u;
  const unsigned shift = 126u - exponent;  // 14..24 for exponents 102..112
  return static_cast<std::uint16_t>(sign | shift_right_round_even(significand, shift));
}

bool is_convertible_float(Dtype dtype) {
  return dtype == Dtype::F32 || dtype == Dtype::BF16 || dtype == Dtype::F16;
}

void convert_elements(Dtype from, std::span<const std::byte> source, Dtype to,
                      std::span<std::byte> target) {
  if (!is_convertible_float(from) || !is_convertible_float(to)) {
    throw std::invalid_argument("convert_elements: cannot convert " + std::string(dtype_name(from)) +
                                " to " + std::string(dtype_name(to)) + "; convertible: F32, BF16, F16");
  }
  const std::size_t from_size = dtype_element_size(from);
  const std::size_t to_size = dtype_element_size(to);
  const std::size_t count = source.size() / from_size;
  if (source.size() % from_size != 0 || target.size() / to_size != count ||
      target.size() % to_size != 0) {
    throw std::invalid_argument("convert_elements: " + std::to_string(source.size()) + " bytes of " +
                                std::string(dtype_name(from)) + " do not fill " +
                                std::to_string(target.size()) + " bytes of " +
                                std::string(dtype_name(to)));
  }
  if (from == to) {
    if (count != 0) std::memcpy(target.data(), source.data(), source.size());
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t bits = load_as_f32_bits(from, source.data() + i * from_size);
    store_from_f32_bits(to, bits, target.data() + i * to_size);
  }
}

void RoundingStats::add(const RoundingStats& other) {
  values += other.values;
  changed += other.changed;
  max_relative = std::max(max_relative, other.max_relative);
}

RoundingStats rounding_stats(Dtype from, std::span<const std::byte> source, Dtype to) {
  if (!is_convertible_float(from) || !is_convertible_float(to) ||
      source.size() % dtype_element_size(from) != 0) {
    throw std::invalid_argument("rounding_stats: " + std::to_string(source.size()) + " bytes of " +
                                std::string(dtype_name(from)) + " cannot be converted to " +
                                std::string(dtype_name(to)));
  }
  const std::size_t from_size = dtype_element_size(from);
  RoundingStats stats;
  stats.values = source.size() / from_size;
  if (from == to) return stats;
  std::byte converted[4];
  for (std::size_t i = 0; i < stats.values; ++i) {
    const std::uint32_t bits = load_as_f32_bits(from, source.data() + i * from_size);
    store_from_f32_bits(to, bits, converted);
    const std::uint32_t back = load_as_f32_bits(to, converted);
    if (back == bits || (is_f32_nan(bits) && is_f32_nan(back))) continue;
    ++stats.changed;
    float original = 0, rounded = 0;
    std::memcpy(&original, &bits, sizeof original);
    std::memcpy(&rounded, &back, sizeof rounded);
    const double relative =
        std::isinf(rounded) ? std::numeric_limits<double>::infinity()
                            : std::fabs(double(rounded) - double(original)) / std::fabs(double(original));
    stats.max_relative = std::max(stats.max_relative, relative);
  }
  return stats;
}

}  // namespace algenta::checkpoint
