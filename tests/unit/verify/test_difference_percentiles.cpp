#include <catch2/catch.hpp>

#include <vector>

#include "verify/difference_percentiles.hpp"

using algenta::host::percentiles;

TEST_CASE("Percentiles are nearest-rank values of the unsorted input") {
  std::vector<float> values;
  for (int i = 2000; i >= 1; --i) values.push_back(static_cast<float>(i));  // 1..2000, reversed
  const auto p = percentiles(values);
  CHECK(p.count == 2000);
  CHECK(p.p50 == 1000.f);   // ceil(0.5 * 2000) = 1000th smallest
  CHECK(p.p99 == 1980.f);   // ceil(0.99 * 2000)
  CHECK(p.p999 == 1998.f);  // ceil(0.999 * 2000)
  CHECK(p.max == 2000.f);
}

TEST_CASE("With fewer than a thousand values p99.9 is the largest") {
  const auto p = percentiles({0.5f, 0.1f, 0.3f});
  CHECK(p.p50 == 0.3f);
  CHECK(p.p99 == 0.5f);
  CHECK(p.p999 == 0.5f);
  CHECK(p.max == 0.5f);
}

TEST_CASE("No values summarise to zeros, and the JSON names each percentile") {
  const auto p = percentiles({});
  CHECK(p.count == 0);
  CHECK(p.max == 0.f);
  const auto json = algenta::host::to_json(percentiles({1.f, 2.f}));
  CHECK(json.at("p50") == 1.f);
  CHECK(json.at("p99.9") == 2.f);
  CHECK(json.at("max") == 2.f);
  CHECK(algenta::host::describe(percentiles({1.f, 2.f})) == "p50 1, p99 2, p99.9 2, max 2");
}
