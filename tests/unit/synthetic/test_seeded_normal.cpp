// Synthetic weight values: reproducible, independent per tensor and chunk,
// and normally distributed at the asked scale.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "synthetic/seeded_normal.hpp"

using namespace algenta::host::synthetic;

TEST_CASE("seeded normal: the same seed, tensor and chunk give the same values", "[synthetic]") {
  std::vector<float> a(1000), b(1000), other_tensor(1000), other_seed(1000), other_chunk(1000);
  fill_normal_chunk(7, "model.layers.0.mlp.up_proj.weight", 0, 0.0, 1.0, a);
  fill_normal_chunk(7, "model.layers.0.mlp.up_proj.weight", 0, 0.0, 1.0, b);
  fill_normal_chunk(7, "model.layers.1.mlp.up_proj.weight", 0, 0.0, 1.0, other_tensor);
  fill_normal_chunk(8, "model.layers.0.mlp.up_proj.weight", 0, 0.0, 1.0, other_seed);
  fill_normal_chunk(7, "model.layers.0.mlp.up_proj.weight", 1, 0.0, 1.0, other_chunk);
  CHECK(a == b);
  CHECK(a != other_tensor);
  CHECK(a != other_seed);
  CHECK(a != other_chunk);
  // A shorter chunk holds the first values of the full one.
  std::vector<float> first(7);
  fill_normal_chunk(7, "model.layers.0.mlp.up_proj.weight", 0, 0.0, 1.0, first);
  CHECK(std::equal(first.begin(), first.end(), a.begin()));
}

TEST_CASE("seeded normal: mean and spread as asked, never constant", "[synthetic]") {
  std::vector<float> values(kNormalChunk);
  fill_normal_chunk(1, "t", 0, 1.0, 0.02, values);
  double sum = 0.0, squares = 0.0;
  float lo = values[0], hi = values[0];
  std::size_t not_finite = 0;
  for (const float v : values) {
    sum += v;
    squares += static_cast<double>(v) * v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    not_finite += std::isfinite(v) ? 0 : 1;
  }
  CHECK(not_finite == 0);
  const double n = static_cast<double>(values.size());
  const double mean = sum / n;
  const double std = std::sqrt(squares / n - mean * mean);
  // 2^20 samples: the standard error of the mean is 0.02 / 1024.
  CHECK(mean == Approx(1.0).margin(1e-4));
  CHECK(std == Approx(0.02).epsilon(0.01));
  CHECK(lo < 1.0 - 4 * 0.02);  // tails reach beyond 4 sigma at this count
  CHECK(hi > 1.0 + 4 * 0.02);
}
