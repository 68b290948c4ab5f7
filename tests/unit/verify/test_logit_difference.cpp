#include <catch2/catch.hpp>

#include <vector>

#include "verify/logit_difference.hpp"

using algenta::host::logit_difference;

TEST_CASE("Identical logits differ by zero") {
  const std::vector<float> row = {1.f, -2.f, 3.f, 0.5f, 4.f, -8.f};
  const auto d = logit_difference(row, row, 3, 2);
  CHECK(d.max_abs == 0.f);
  CHECK(d.max_relative == 0.f);
  CHECK(d.rows == 2);
}

TEST_CASE("The largest difference is found in any row, relative to that row's scale") {
  const std::vector<float> want = {1.f, -2.f, 4.f, 100.f, 0.f, 0.f};
  const std::vector<float> got = {1.f, -2.5f, 4.f, 99.f, 0.f, 0.f};
  const auto d = logit_difference(got, want, 3, 2);
  CHECK(d.max_abs == Approx(1.f));
  // row 0: 0.5 / 4; row 1: 1 / 100
  CHECK(d.max_relative == Approx(0.125f));
}

TEST_CASE("Only the rows asked for are compared, and never past either input") {
  const std::vector<float> want = {0.f, 1.f, 0.f, 1.f};
  const std::vector<float> got = {0.f, 1.f, 5.f, 1.f};
  CHECK(logit_difference(got, want, 2, 1).max_abs == 0.f);
  const auto all = logit_difference(got, want, 2, 10);
  CHECK(all.rows == 2);
  CHECK(all.max_abs == Approx(5.f));
}
