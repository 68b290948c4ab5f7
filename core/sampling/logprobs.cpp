#include "sampling/logprobs.hpp"

#include <algorithm>
#include <cmath>

namespace algenta::sampling {

LogSoftmax::LogSoftmax(std::span<const float> logits) : logits_(logits) {
  max_ = -INFINITY;
  for (float l : logits) max_ = std::max(max_, static_cast<double>(l));
  double sum = 0.0;
  for (float l : logits)
    if (l != -INFINITY) sum += std::exp(static_cast<double>(l) - max_);
  log_sum_ = std::log(sum);
}

double LogSoftmax::logprob(std::int32_t token) const {
  const double l = logits_[static_cast<std::size_t>(token)];
  return l == -INFINITY ? -INFINITY : (l - max_) - log_sum_;
}

std::vector<TokenLogprob> LogSoftmax::top(int n) const {
  std::vector<std::int32_t> ids;
  ids.reserve(logits_.size());
  for (std::size_t i = 0; i < logits_.size(); ++i)
    if (logits_[i] != -INFINITY) ids.push_back(static_cast<std::int32_t>(i));
  const std::size_t count = std::min(ids.size(), static_cast<std::size_t>(std::max(n, 0)));
  // Partial sort: O(V log n), never a sort of the whole vocabulary.
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(count), ids.end(),
                    [&](std::int32_t a, std::int32_t b) {
                      const float la = logits_[static_cast<std::size_t>(a)];
                      const float lb = logits_[static_cast<std::size_t>(b)];
                      return la != lb ? la > lb : a < b;
                    });
  std::vector<TokenLogprob> result;
  for (std::size_t i = 0; i < count; ++i) result.push_back({ids[i], logprob(ids[i])});
  return result;
}

}  // namespace algenta::sampling
