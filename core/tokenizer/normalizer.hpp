// The `normalizer` section: NFC/NFD/NFKC/NFKD (ICU), Prepend, Replace and
// Sequence of those. Anything else is refused at load, naming its type.
#pragma once

#include "tokenizer/split_pattern.hpp"
#include "tokenizer/unicode_text.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace algenta::tokenizer {

class Normalizer {
 public:
  // `section` is the JSON value of "normalizer" (null: no normalizer).
  static Normalizer from_json(const nlohmann::json& section, std::string_view path);

  bool empty() const { return steps_.empty(); }
  std::string normalize(std::string text) const;

 private:
  enum class Kind { unicode_form, prepend, replace };
  struct Step {
    Kind kind;
    unicode::Form form = unicode::Form::nfc;
    std::string text;  // prepend text / replace content
    SplitPattern pattern = SplitPattern::literal("");
  };
  void add(const nlohmann::json& component, const std::string& path);

  std::vector<Step> steps_;
};

// Reads {"String": s} or {"Regex": r}.
SplitPattern pattern_from_json(const nlohmann::json& value, std::string_view path);

}  // namespace algenta::tokenizer
