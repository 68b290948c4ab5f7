#include "verify/logit_difference.hpp"

#include <algorithm>
#include <cmath>

namespace algenta::host {

LogitDifference logit_difference(std::span<const float> got, std::span<const float> want,
                                 std::size_t vocab, std::size_t rows) {
  LogitDifference result;
  rows = std::min({rows, got.size() / std::max<std::size_t>(vocab, 1),
                   want.size() / std::max<std::size_t>(vocab, 1)});
  for (std::size_t r = 0; r < rows; ++r) {
    float row_diff = 0;
    float row_scale = 0;
    for (std::size_t i = r * vocab; i < (r + 1) * vocab; ++i) {
      row_diff = std::max(row_diff, std::fabs(got[i] - want[i]));
      row_scale = std::max(row_scale, std::fabs(want[i]));
    }
    result.max_abs = std::max(result.max_abs, row_diff);
    if (row_scale > 0) result.max_relative = std::max(result.max_relative, row_diff / row_scale);
  }
  result.rows = rows;
  return result;
}

}  // namespace algenta::host
