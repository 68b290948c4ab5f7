// Position-by-position comparison of two greedy continuations, as the
// correctness gates report it: "first 16: k/16 identical; all 64: n/64
// identical", plus where they first part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace algenta::host {

// The product promises the first 16 tokens before it promises all of them.
inline constexpr std::size_t kFirstWindow = 16;

struct TokenComparison {
  std::size_t window = 0;  // min(kFirstWindow, total)
  std::size_t window_identical = 0;
  std::size_t total = 0;
  std::size_t identical = 0;
  std::optional<std::size_t> first_divergence;  // generated-token index (step)

  bool all_identical() const { return total > 0 && identical == total; }
};

// Compares got[i] with want[i] for every i; both must have the same length.
TokenComparison compare_tokens(const std::vector<std::int32_t>& got,
                               const std::vector<std::int32_t>& want);

// "first 16: 16/16 identical; all 64: 64/64 identical"
std::string describe_counts(const TokenComparison& comparison);

}  // namespace algenta::host
