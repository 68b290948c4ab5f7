// The greedy choice every engine makes from a row of logits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace algenta::decoder {

// Index of the largest value; ties go to the lowest index, NaN never wins.
std::int32_t argmax_lowest(const float* values, std::size_t n);

}  // namespace algenta::decoder
