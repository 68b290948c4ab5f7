// The `pattern` of Split / Replace: {"String": s} (a literal) or {"Regex": r}
// (Oniguruma), and the split behaviors of tokenizers' NormalizedString::split.
#pragma once

#include "tokenizer/onig_regex.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::tokenizer {

struct Segment {
  std::size_t start;
  std::size_t end;
  bool is_match;
};

class SplitPattern {
 public:
  static SplitPattern literal(std::string text);
  static SplitPattern regex(std::string_view pattern);

  // Segments covering all of `text`, matches and the gaps between them;
  // an empty text gives one empty gap.
  std::vector<Segment> find_matches(std::string_view text) const;

  std::string describe() const;

 private:
  std::string literal_;
  std::shared_ptr<const OnigRegex> regex_;
};

enum class SplitBehavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

// Byte ranges of the pieces `behavior` keeps (possibly empty ones).
std::vector<std::pair<std::size_t, std::size_t>> split_ranges(std::vector<Segment> segments,
                                                              SplitBehavior behavior, bool invert);

// Replaces every match of `pattern` in `text` by `content`.
std::string replace_all(const SplitPattern& pattern, std::string_view text, std::string_view content);

}  // namespace algenta::tokenizer
