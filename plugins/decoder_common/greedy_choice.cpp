#include "greedy_choice.hpp"

#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace algenta::decoder {
namespace {

constexpr float kNegativeInfinity = -std::numeric_limits<float>::infinity();

// The first index holding `largest` (found by the max pass, so present unless
// it is -inf, when the answer is 0 as the scalar scan gives).
std::int32_t first_index_of(const float* values, std::size_t n, float largest) {
  if (!(largest > kNegativeInfinity)) return 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i] == largest) return static_cast<std::int32_t>(i);
  }
  return 0;
}

#if defined(__x86_64__)
// max_ps(v, m) is v > m ? v : m lane by lane: a NaN in v keeps m, as the
// scalar scan's `>` does, and no lane's maximum is ever NaN, so combining
// the lanes in any order gives the row's largest value exactly. -0 and +0
// compare equal, so which of them survives does not change the index found.
__attribute__((target("avx2"))) float largest_avx2(const float* values, std::size_t n) {
  __m256 m0 = _mm256_set1_ps(kNegativeInfinity), m1 = m0, m2 = m0, m3 = m0;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    m0 = _mm256_max_ps(_mm256_loadu_ps(values + i), m0);
    m1 = _mm256_max_ps(_mm256_loadu_ps(values + i + 8), m1);
    m2 = _mm256_max_ps(_mm256_loadu_ps(values + i + 16), m2);
    m3 = _mm256_max_ps(_mm256_loadu_ps(values + i + 24), m3);
  }
  const __m256 m = _mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, m);
  float largest = kNegativeInfinity;
  for (float lane : lanes) largest = lane > largest ? lane : largest;
  for (; i < n; ++i) largest = values[i] > largest ? values[i] : largest;
  return largest;
}

__attribute__((target("avx2"))) std::int32_t first_index_avx2(const float* values,
                                                               std::size_t n, float largest) {
  if (!(largest > kNegativeInfinity)) return 0;
  const __m256 target = _mm256_set1_ps(largest);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const int hits = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(values + i), target, _CMP_EQ_OQ));
    if (hits != 0) return static_cast<std::int32_t>(i + static_cast<std::size_t>(__builtin_ctz(hits)));
  }
  return first_index_of(values + i, n - i, largest) + static_cast<std::int32_t>(i);
}
#endif

}  // namespace

std::int32_t argmax_lowest_scalar(const float* values, std::size_t n) {
  std::int32_t best = 0;
  float best_value = kNegativeInfinity;
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i] > best_value) {
      best_value = values[i];
      best = static_cast<std::int32_t>(i);
    }
  }
  return best;
}

std::int32_t argmax_lowest(const float* values, std::size_t n) {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return first_index_avx2(values, n, largest_avx2(values, n));
#endif
  return argmax_lowest_scalar(values, n);
}

}  // namespace algenta::decoder
