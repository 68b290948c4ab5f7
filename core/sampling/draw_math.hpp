// The arithmetic of a draw that the host sampler and the CUDA sampler both
// compile, so both give the same bits: log and exp built only from IEEE-754
// +, -, *, / (round to nearest), floor and exponent bits in a fixed order;
// Philox4x32-10 on plain words; the Gumbel noise of one 32-bit word.
// Header-only and C++17 so nvcc can build it into device code. Compile
// without FMA contraction (host: -ffp-contract=off, nvcc: -fmad=false), or a
// fused multiply-add would round differently from the host.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define ALGENTA_DRAW_FN __host__ __device__ inline
#else
#define ALGENTA_DRAW_FN inline
#endif

namespace algenta::sampling::draw_math {

// fdlibm's split of ln 2: the high part has 32 significant bits, so
// k * kLn2High is exact for every |k| < 2^21.
constexpr double kLn2High = 0x1.62e42fee00000p-1;
constexpr double kLn2Low = 0x1.a39ef35793c76p-33;
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;
constexpr std::uint64_t kMantissaMask = (std::uint64_t{1} << 52) - 1;

ALGENTA_DRAW_FN std::uint64_t bits_of(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

ALGENTA_DRAW_FN double double_of(std::uint64_t bits) {
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// 2^k for -1022 <= k <= 1023, built from the exponent bits.
ALGENTA_DRAW_FN double power_of_two(int k) {
  return double_of(static_cast<std::uint64_t>(k + 1023) << 52);
}

// Natural log of a positive finite x (normal or subnormal).
ALGENTA_DRAW_FN double log(double x) {
  int exponent = 0;
  if (x < 0x1p-1022) {  // subnormal: scale into the normal range (exact)
    x *= 0x1p54;
    exponent = -54;
  }
  const std::uint64_t bits = bits_of(x);
  exponent += static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  double m = double_of((bits & kMantissaMask) | (std::uint64_t{1023} << 52));
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

// e^x for x <= 709; 0 below -745.2 (the smallest subnormal).
ALGENTA_DRAW_FN double exp(double x) {
  if (x < -745.2) return 0.0;
  // x = k ln2 + r, |r| <= ln2 / 2.
  const double k = ::floor(x * kInvLn2 + 0.5);
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

// Philox4x32-10 (Salmon et al., SC11; Random123's philox4x32_R(10, ...)):
// counter words ctr[0..3] become the four output words, in place.
constexpr std::uint32_t kPhiloxMultiplier0 = 0xD2511F53u;
constexpr std::uint32_t kPhiloxMultiplier1 = 0xCD9E8D57u;
constexpr std::uint32_t kPhiloxWeyl0 = 0x9E3779B9u;  // golden ratio
constexpr std::uint32_t kPhiloxWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

ALGENTA_DRAW_FN void philox4x32_10(std::uint32_t ctr[4], std::uint32_t key0, std::uint32_t key1) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {  // the key is bumped by the Weyl constants between rounds
      key0 += kPhiloxWeyl0;
      key1 += kPhiloxWeyl1;
    }
    const std::uint64_t product0 = std::uint64_t{kPhiloxMultiplier0} * ctr[0];
    const std::uint64_t product1 = std::uint64_t{kPhiloxMultiplier1} * ctr[2];
    const std::uint32_t x1 = ctr[1], x3 = ctr[3];
    ctr[0] = static_cast<std::uint32_t>(product1 >> 32) ^ x1 ^ key0;
    ctr[1] = static_cast<std::uint32_t>(product1);
    ctr[2] = static_cast<std::uint32_t>(product0 >> 32) ^ x3 ^ key1;
    ctr[3] = static_cast<std::uint32_t>(product0);
  }
}

// Word 3 of a noise counter names the stream, so later uses (e.g.
// speculative acceptance) can draw numbers independent of the token noise.
constexpr std::uint32_t kTokenNoiseStream = 0;

// The four Philox words that serve token ids 4q .. 4q+3 of one (seed,
// position): counter {q, position lo, position hi, stream 0}, key {seed lo,
// seed hi}.
ALGENTA_DRAW_FN void noise_words(std::uint64_t seed, std::uint64_t position, std::uint32_t quad,
                                 std::uint32_t words[4]) {
  words[0] = quad;
  words[1] = static_cast<std::uint32_t>(position);
  words[2] = static_cast<std::uint32_t>(position >> 32);
  words[3] = kTokenNoiseStream;
  philox4x32_10(words, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}

// (word + 1/2) / 2^32: never 0 or 1, exact in double.
ALGENTA_DRAW_FN double uniform_from_word(std::uint32_t word) {
  return (static_cast<double>(word) + 0.5) * 0x1p-32;
}

ALGENTA_DRAW_FN double gumbel_from_word(std::uint32_t word) {
  return -log(-log(uniform_from_word(word)));
}

}  // namespace algenta::sampling::draw_math
