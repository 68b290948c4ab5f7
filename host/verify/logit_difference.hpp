// How far a plugin's logits lie from the oracle's over the steps where both
// saw the same tokens: the token gates cannot see an error that never flips
// an argmax (bf16-only activations on a checkpoint with wide margins).
#pragma once

#include <cstddef>
#include <span>

namespace algenta::host {

// One row (one position's vocab logits).
struct RowDifference {
  float abs = 0;       // largest |plugin - oracle| of the row
  float relative = 0;  // abs over the row's largest |oracle logit|; 0 when that is 0
};

// got and want are one row each, of the same length.
RowDifference row_difference(std::span<const float> got, std::span<const float> want);

struct LogitDifference {
  float max_abs = 0;       // largest |plugin - oracle| over every compared logit
  float max_relative = 0;  // the same per row, over that row's largest |oracle logit|
  std::size_t rows = 0;    // rows compared
};

// got and want hold `rows` rows of `vocab` floats each (row-major).
LogitDifference logit_difference(std::span<const float> got, std::span<const float> want,
                                 std::size_t vocab, std::size_t rows);

}  // namespace algenta::host
