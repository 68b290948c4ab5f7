// The `decoder` section: ByteLevel, Replace, ByteFallback, Fuse, Strip,
// Metaspace and Sequence of those, with tokenizers' semantics (ids with no
// decoder are joined by spaces). decode() can also continue a text: the
// tokens then follow others already decoded, so rules that apply only at the
// start of the text (Metaspace's first token, Strip's start after Fuse) are
// left out. The streaming decoder builds on that.
#pragma once

#include "tokenizer/split_pattern.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::tokenizer {

class Decoder {
 public:
  static Decoder from_json(const nlohmann::json& section, std::string_view path);

  std::string decode(std::vector<std::string> tokens, bool continues_text) const;

  bool has_byte_fallback() const { return has_byte_fallback_; }

 private:
  enum class Kind { byte_level, replace, byte_fallback, fuse, strip, metaspace };
  struct Step {
    Kind kind;
    SplitPattern pattern = SplitPattern::literal("");
    std::string content;     // Replace content; Strip / Metaspace character (UTF-8)
    std::size_t start = 0;   // Strip
    std::size_t stop = 0;    // Strip
    bool drop_first_replacement = false;  // Metaspace with a prepend scheme
  };
  void add(const nlohmann::json& component, const std::string& path);

  bool present_ = false;
  std::vector<Step> steps_;
  bool has_byte_fallback_ = false;
};

}  // namespace algenta::tokenizer
