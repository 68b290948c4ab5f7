#include "verify/token_comparison.hpp"

#include <algorithm>
#include <stdexcept>

namespace algenta::host {

TokenComparison compare_tokens(const std::vector<std::int32_t>& got,
                               const std::vector<std::int32_t>& want) {
  if (got.size() != want.size()) {
    throw std::logic_error("compare_tokens: " + std::to_string(got.size()) + " tokens against " +
                           std::to_string(want.size()));
  }
  TokenComparison comparison;
  comparison.total = got.size();
  comparison.window = std::min(kFirstWindow, got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) {
      ++comparison.identical;
      if (i < comparison.window) ++comparison.window_identical;
    } else if (!comparison.first_divergence) {
      comparison.first_divergence = i;
    }
  }
  return comparison;
}

std::string describe_counts(const TokenComparison& c) {
  return "first " + std::to_string(c.window) + ": " + std::to_string(c.window_identical) + "/" +
         std::to_string(c.window) + " identical; all " + std::to_string(c.total) + ": " +
         std::to_string(c.identical) + "/" + std::to_string(c.total) + " identical";
}

}  // namespace algenta::host
