// An Oniguruma regex run the way the `onig` crate runs it for tokenizers:
// UTF-8, default (Oniguruma) syntax, whole subject visible to each search,
// an empty match right after the previous match skipped by one character.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace algenta::tokenizer {

class OnigRegex {
 public:
  // Throws TokenizerError naming the pattern and Oniguruma's message.
  explicit OnigRegex(std::string_view pattern);
  ~OnigRegex();
  OnigRegex(const OnigRegex&) = delete;
  OnigRegex& operator=(const OnigRegex&) = delete;

  // [start, end) byte ranges of successive matches.
  std::vector<std::pair<std::size_t, std::size_t>> find_all(std::string_view text) const;

  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  void* regex_ = nullptr;  // OnigRegex; kept opaque so callers need no Oniguruma headers
};

}  // namespace algenta::tokenizer
