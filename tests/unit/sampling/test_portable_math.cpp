#include <catch2/catch.hpp>

#include <cmath>

#include "random/splitmix64.hpp"
#include "sampling/portable_math.hpp"

using algenta::sampling::portable_exp;
using algenta::sampling::portable_log;

namespace {
double relative_error(double got, double want) {
  return want == 0.0 ? std::fabs(got) : std::fabs(got - want) / std::fabs(want);
}
}  // namespace

TEST_CASE("portable_log is within a few ulp of std::log", "[sampling][math]") {
  CHECK(portable_log(1.0) == 0.0);
  CHECK(portable_log(2.0) == Approx(std::log(2.0)).epsilon(1e-16));
  algenta::SplitMix64 rng(7);
  double worst = 0.0;
  for (int i = 0; i < 200000; ++i) {
    // Uniforms in (0,1) as the noise uses them, and -log of them (up to ~23).
    const double u = (static_cast<double>(rng.next() >> 32) + 0.5) * 0x1p-32;
    worst = std::max(worst, relative_error(portable_log(u), std::log(u)));
    const double t = -std::log(u);
    worst = std::max(worst, relative_error(portable_log(t), std::log(t)));
  }
  for (double x : {0x1p-1074, 0x1p-1030, 1e-300, 1e-10, 0.7071067811865476, 1.4142135623730951,
                   1e10, 1e300}) {
    INFO("x = " << x);
    worst = std::max(worst, relative_error(portable_log(x), std::log(x)));
  }
  CHECK(worst < 4e-16);
}

TEST_CASE("portable_exp is within a few ulp of std::exp", "[sampling][math]") {
  CHECK(portable_exp(0.0) == 1.0);
  CHECK(portable_exp(-746.0) == 0.0);
  algenta::SplitMix64 rng(11);
  double worst = 0.0;
  for (int i = 0; i < 200000; ++i) {
    const double x = -745.0 * (static_cast<double>(rng.next() >> 11) * 0x1p-53);
    const double want = std::exp(x);
    // Subnormal results carry fewer bits: compare those in absolute terms.
    if (want < 0x1p-1022) {
      CHECK(std::fabs(portable_exp(x) - want) <= 0x1p-1073);
      continue;
    }
    worst = std::max(worst, relative_error(portable_exp(x), want));
  }
  for (double x : {-1e-300, -0.34657359027997264, 0.34657359027997264, 1.0, 100.0, 700.0}) {
    INFO("x = " << x);
    worst = std::max(worst, relative_error(portable_exp(x), std::exp(x)));
  }
  CHECK(worst < 4e-16);
}
