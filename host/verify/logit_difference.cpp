#include "verify/logit_difference.hpp"

#include <algorithm>
#include <cmath>

namespace algenta::host {

RowDifference row_difference(std::span<const float> got, std::span<const float> want) {
  float diff = 0;
  float scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return {diff, scale > 0 ? diff / scale : 0.0f};
}

LogitDifference logit_difference(std::span<const float> got, std::span<const float> want,
                                 std::size_t vocab, std::size_t rows) {
  LogitDifference result;
  rows = std::min({rows, got.size() / std::max<std::size_t>(vocab, 1),
                   want.size() / std::max<std::size_t>(vocab, 1)});
  for (std::size_t r = 0; r < rows; ++r) {
    const RowDifference row =
        row_difference(got.subspan(r * vocab, vocab), want.subspan(r * vocab, vocab));
    result.max_abs = std::max(result.max_abs, row.abs);
    result.max_relative = std::max(result.max_relative, row.relative);
  }
  result.rows = rows;
  return result;
}

}  // namespace algenta::host
