// Element conversion between F32, BF16 and F16, on bit patterns so that no
// floating-point arithmetic can quiet or flush anything on the way.
//
// Upcasts (bf16 -> f32, f16 -> f32) are exact and keep NaN payloads as they
// are. Downcasts (f32 -> bf16, f32 -> f16) round to nearest, ties to even;
// values beyond the target's range become infinity; a NaN stays a NaN of the
// same sign with its top payload bits and the quiet bit set, so a signalling
// NaN comes back quiet. bf16 <-> f16 goes through f32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "checkpoint/dtype.hpp"

namespace algenta::checkpoint {

std::uint32_t bf16_to_f32_bits(std::uint16_t bf16);
std::uint32_t f16_to_f32_bits(std::uint16_t f16);
std::uint16_t f32_bits_to_bf16(std::uint32_t f32);
std::uint16_t f32_bits_to_f16(std::uint32_t f32);

// True for the dtypes convert_elements handles: F32, BF16, F16.
bool is_convertible_float(Dtype dtype);

// Converts the elements in `source` (little-endian `from`) into `target`
// (little-endian `to`). Throws std::invalid_argument when a dtype is not
// convertible, `source` is not whole elements, or `target` is not exactly
// as many elements of `to`.
void convert_elements(Dtype from, std::span<const std::byte> source, Dtype to,
                      std::span<std::byte> target);

// What a conversion changed: values whose converted value differs from the
// original (NaN stays NaN and counts as unchanged), and the largest
// |converted - original| / |original| among them (infinity for an overflow).
struct RoundingStats {
  std::uint64_t values = 0;   // elements looked at
  std::uint64_t changed = 0;  // elements whose value changed
  double max_relative = 0.0;

  void add(const RoundingStats& other);
};

// The statistics convert_elements(from, source, to, ...) would produce,
// without writing anything. Same argument rules.
RoundingStats rounding_stats(Dtype from, std::span<const std::byte> source, Dtype to);

}  // namespace algenta::checkpoint
