// The greedy choice every engine makes from a row of logits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace algenta::decoder {

// Index of the largest value; ties go to the lowest index, NaN never wins,
// 0 when no value beats -inf. Vectorized where the CPU allows (a decode step
// scans one vocabulary-wide row per sequence); the answer is
// argmax_lowest_scalar's, since only comparisons decide it.
std::int32_t argmax_lowest(const float* values, std::size_t n);

// The same answer, one value at a time: the reference the tests compare with.
std::int32_t argmax_lowest_scalar(const float* values, std::size_t n);

}  // namespace algenta::decoder
