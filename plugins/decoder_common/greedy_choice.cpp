#include "greedy_choice.hpp"

#include <limits>

namespace algenta::decoder {

std::int32_t argmax_lowest(const float* values, std::size_t n) {
  std::int32_t best = 0;
  float best_value = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i] > best_value) {
      best_value = values[i];
      best = static_cast<std::int32_t>(i);
    }
  }
  return best;
}

}  // namespace algenta::decoder
