#include "sampling/candidate_masks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "sampling/portable_math.hpp"

namespace algenta::sampling {
namespace {

std::vector<std::int32_t> allowed_tokens(std::span<const double> z) {
  std::vector<std::int32_t> ids;
  for (std::size_t i = 0; i < z.size(); ++i)
    if (z[i] != -INFINITY) ids.push_back(static_cast<std::int32_t>(i));
  return ids;
}

// O(V) selection of the k-th largest value; no sort of the vocabulary.
void keep_top_k(std::vector<std::int32_t>& ids, std::span<const double> z, std::int64_t k) {
  if (k <= 0 || static_cast<std::size_t>(k) >= ids.size()) return;
  std::vector<double> values;
  values.reserve(ids.size());
  for (std::int32_t id : ids) values.push_back(z[static_cast<std::size_t>(id)]);
  const auto kth = values.begin() + (k - 1);
  std::nth_element(values.begin(), kth, values.end(), std::greater<double>());
  const double threshold = *kth;
  std::erase_if(ids, [&](std::int32_t id) { return z[static_cast<std::size_t>(id)] < threshold; });
}

bool ranks_before(std::span<const double> z, std::int32_t a, std::int32_t b) {
  const double za = z[static_cast<std::size_t>(a)], zb = z[static_cast<std::size_t>(b)];
  return za != zb ? za > zb : a < b;
}

// The nucleus in the summation order SAMPLING.md fixes, which a GPU block
// reproduces: W over kNucleusLanes lanes of ids, the prefix masses over
// chunks of kNucleusChunk ranks. ids arrive in ascending id order; the
// ranking is sorted only as far as the nucleus reaches (chunks of growing
// size), so a peaked distribution never sorts the whole vocabulary.
void keep_nucleus(std::vector<std::int32_t>& ids, std::span<const double> z, double top_p,
                  double z_max) {
  if (top_p >= 1.0) return;
  const auto weight = [&](std::int32_t id) {
    return portable_exp(z[static_cast<std::size_t>(id)] - z_max);
  };
  const double mass = top_p * nucleus_total(ids, z, z_max);
  const auto cmp = [&](std::int32_t a, std::int32_t b) { return ranks_before(z, a, b); };
  double chunks_above = 0.0;  // the sum of the earlier chunks' sums, in rank order
  double in_chunk = 0.0;      // this chunk's sum so far
  std::size_t kept = 0, sorted_end = 0, sort_step = 64;
  while (kept < ids.size()) {
    if (kept > 0 && kept % kNucleusChunk == 0) {
      chunks_above = chunks_above + in_chunk;
      in_chunk = 0.0;
    }
    if (kept > 0 && !(chunks_above + in_chunk < mass)) break;
    if (kept == sorted_end) {
      sorted_end = std::min(ids.size(), sorted_end + sort_step);
      sort_step *= 2;
      std::partial_sort(ids.begin() + static_cast<std::ptrdiff_t>(kept),
                        ids.begin() + static_cast<std::ptrdiff_t>(sorted_end), ids.end(), cmp);
    }
    in_chunk = in_chunk + weight(ids[kept]);
    ++kept;
  }
  ids.resize(kept);
}

void keep_min_p(std::vector<std::int32_t>& ids, std::span<const double> z, double min_p,
                double z_max) {
  if (min_p <= 0.0) return;
  std::erase_if(ids, [&](std::int32_t id) {
    return portable_exp(z[static_cast<std::size_t>(id)] - z_max) < min_p;
  });
}

}  // namespace

double nucleus_total(std::span<const std::int32_t> ids, std::span<const double> z, double z_max) {
  std::array<double, kNucleusLanes> lanes{};
  for (std::int32_t id : ids)
    lanes[static_cast<std::size_t>(id) % kNucleusLanes] =
        lanes[static_cast<std::size_t>(id) % kNucleusLanes] +
        portable_exp(z[static_cast<std::size_t>(id)] - z_max);
  double total = 0.0;
  for (double lane : lanes) total = total + lane;
  return total;
}

std::vector<std::int32_t> surviving_candidates(std::span<const double> tempered,
                                               const SamplingParams& params) {
  std::vector<std::int32_t> ids = allowed_tokens(tempered);
  double z_max = -INFINITY;
  for (std::int32_t id : ids) z_max = std::max(z_max, tempered[static_cast<std::size_t>(id)]);
  keep_top_k(ids, tempered, params.top_k);
  keep_nucleus(ids, tempered, params.top_p, z_max);
  keep_min_p(ids, tempered, params.min_p, z_max);
  return ids;
}

}  // namespace algenta::sampling
