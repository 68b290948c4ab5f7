#include <catch2/catch.hpp>

#include <vector>

#include "verify/greedy_decode.hpp"
#include "verify/logit_difference.hpp"

using algenta::host::row_difference;
using algenta::host::row_top;

TEST_CASE("A row's top token is its largest logit, with the margin to the next") {
  const std::vector<float> row = {0.5f, 3.0f, -1.0f, 2.25f};
  const auto top = row_top(row);
  CHECK(top.token == 1);
  CHECK(top.margin == 0.75f);
}

TEST_CASE("On a tie the lowest id wins, as engines choose, and the margin is zero") {
  const std::vector<float> row = {1.0f, 4.0f, 0.0f, 4.0f};
  const auto top = row_top(row);
  CHECK(top.token == 1);
  CHECK(top.margin == 0.0f);
}

TEST_CASE("A row's difference is its largest, also relative to the largest oracle logit") {
  const std::vector<float> want = {-8.0f, 2.0f, 1.0f};
  const std::vector<float> got = {-8.0f, 2.5f, 0.0f};
  const auto d = row_difference(got, want);
  CHECK(d.abs == 1.0f);
  CHECK(d.relative == 0.125f);
  CHECK(row_difference(want, want).abs == 0.0f);
  const std::vector<float> zeros = {0.0f, 0.0f};
  const std::vector<float> ones = {1.0f, 1.0f};
  CHECK(row_difference(ones, zeros).relative == 0.0f);  // no scale to relate to
}
