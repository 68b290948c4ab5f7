#include "sampling/portable_math.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

namespace algenta::sampling {
namespace {

// fdlibm's split of ln 2: the high part has 32 significant bits, so
// k * kLn2High is exact for every |k| < 2^21.
constexpr double kLn2High = 0x1.62e42fee00000p-1;
constexpr double kLn2Low = 0x1.a39ef35793c76p-33;
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;

constexpr std::uint64_t kMantissaMask = (std::uint64_t{1} << 52) - 1;

// 2^k for -1022 <= k <= 1023, built from the exponent bits.
double power_of_two(int k) {
  return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);
}

}  // namespace

double portable_log(double x) {
  int exponent = 0;
  if (x < 0x1p-1022) {  // subnormal: scale into the normal range (exact)
    x *= 0x1p54;
    exponent = -54;
  }
  const auto bits = std::bit_cast<std::uint64_t>(x);
  exponent += static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  double m = std::bit_cast<double>((bits & kMantissaMask) | (std::uint64_t{1023} << 52));
  if (m > kSqrt2) {  // m in (sqrt(2)/2, sqrt(2)] keeps |s| below 0.1716
    m *= 0.5;
    exponent += 1;
  }
  // log(m) = 2 atanh(s), s = (m - 1) / (m + 1); m - 1 is exact (Sterbenz).
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  // Horner over 1/3, 1/5, ..., 1/23: the next term is below 2^-60 of the result.
  double series = 1.0 / 23.0;
  series = 1.0 / 21.0 + z * series;
  series = 1.0 / 19.0 + z * series;
  series = 1.0 / 17.0 + z * series;
  series = 1.0 / 15.0 + z * series;
  series = 1.0 / 13.0 + z * series;
  series = 1.0 / 11.0 + z * series;
  series = 1.0 / 9.0 + z * series;
  series = 1.0 / 7.0 + z * series;
  series = 1.0 / 5.0 + z * series;
  series = 1.0 / 3.0 + z * series;
  const double two_s = 2.0 * s;
  const double log_m = two_s + two_s * (z * series);
  const double k = static_cast<double>(exponent);
  return k * kLn2High + (k * kLn2Low + log_m);
}

double portable_exp(double x) {
  if (x < -745.2) return 0.0;
  // x = k ln2 + r, |r| <= ln2 / 2.
  const double k = std::floor(x * kInvLn2 + 0.5);
  const double r = (x - k * kLn2High) - k * kLn2Low;
  // Taylor to r^14 / 14!: the remainder is below 2^-57 for |r| <= 0.35.
  double p = 1.0 / 87178291200.0;          // 1/14!
  p = 1.0 / 6227020800.0 + r * p;          // 1/13!
  p = 1.0 / 479001600.0 + r * p;           // 1/12!
  p = 1.0 / 39916800.0 + r * p;            // 1/11!
  p = 1.0 / 3628800.0 + r * p;             // 1/10!
  p = 1.0 / 362880.0 + r * p;              // 1/9!
  p = 1.0 / 40320.0 + r * p;               // 1/8!
  p = 1.0 / 5040.0 + r * p;                // 1/7!
  p = 1.0 / 720.0 + r * p;                 // 1/6!
  p = 1.0 / 120.0 + r * p;                 // 1/5!
  p = 1.0 / 24.0 + r * p;                  // 1/4!
  p = 1.0 / 6.0 + r * p;                   // 1/3!
  p = 0.5 + r * p;                         // 1/2!
  p = 1.0 + r * p;
  p = 1.0 + r * p;
  const int exponent = static_cast<int>(k);
  if (exponent >= -1022) return p * power_of_two(exponent);
  // Subnormal result: one exact scaling, then one rounding multiply.
  return (p * power_of_two(exponent + 60)) * power_of_two(-60);
}

}  // namespace algenta::sampling
