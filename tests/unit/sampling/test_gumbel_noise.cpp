#include <catch2/catch.hpp>

#include <cmath>

#include "sampling/gumbel_noise.hpp"

using namespace algenta::sampling;

TEST_CASE("uniforms from Philox words stay strictly inside (0, 1)", "[sampling][noise]") {
  CHECK(uniform_from_word(0) == 0x1p-33);
  CHECK(uniform_from_word(0xffffffffu) == 1.0 - 0x1p-33);
  CHECK(uniform_from_word(0x80000000u) == 0.5 + 0x1p-33);
  // The extreme words still give finite noise.
  CHECK(std::isfinite(-std::log(-std::log(uniform_from_word(0)))));
  CHECK(std::isfinite(-std::log(-std::log(uniform_from_word(0xffffffffu)))));
}

TEST_CASE("the noise counter layout is the documented one", "[sampling][noise]") {
  const std::uint64_t seed = 0x0123456789abcdefull;
  const std::uint64_t position = 0x0000000500000007ull;
  CHECK(noise_key(seed) == PhiloxKey{0x89abcdefu, 0x01234567u});
  CHECK(noise_counter(position, 0x1235u) == PhiloxCounter{0x48du, 7u, 5u, 0u});
  for (std::uint32_t token : {0u, 1u, 2u, 3u, 4u, 1001u, 262143u}) {
    const PhiloxCounter words = philox4x32_10(
        {token >> 2, static_cast<std::uint32_t>(position), static_cast<std::uint32_t>(position >> 32),
         0u},
        {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
    const double u = (static_cast<double>(words[token & 3]) + 0.5) / 4294967296.0;
    INFO("token " << token);
    CHECK(gumbel_noise(seed, position, token) == Approx(-std::log(-std::log(u))).epsilon(1e-14));
  }
}

TEST_CASE("noise differs across seeds, positions and tokens", "[sampling][noise]") {
  const double base = gumbel_noise(1, 10, 100);
  CHECK(gumbel_noise(1, 10, 100) == base);
  CHECK(gumbel_noise(2, 10, 100) != base);
  CHECK(gumbel_noise(1, 11, 100) != base);
  CHECK(gumbel_noise(1, 10, 101) != base);
  CHECK(gumbel_noise(1ull << 32 | 1, 10, 100) != base);  // the seed's high word counts
  CHECK(gumbel_noise(1, 10ull | 1ull << 32, 100) != base);  // so does the position's
}

TEST_CASE("the noise is standard Gumbel: mean is the Euler-Mascheroni constant",
          "[sampling][noise]") {
  double sum = 0.0, sum_sq = 0.0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double g = gumbel_noise(42, static_cast<std::uint64_t>(i / 1000),
                                  static_cast<std::uint32_t>(i % 1000));
    sum += g;
    sum_sq += g * g;
  }
  const double mean = sum / n;
  const double variance = sum_sq / n - mean * mean;
  // Standard error of the mean is sqrt(pi^2 / 6 / n) ~ 0.0029; allow 5 of them.
  CHECK(std::fabs(mean - 0.5772156649015329) < 0.015);
  CHECK(std::fabs(variance - 1.6449340668482264) < 0.05);
}
