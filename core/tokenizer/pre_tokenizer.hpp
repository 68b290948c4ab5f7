// The `pre_tokenizer` section: Split, ByteLevel, Metaspace and Sequence of
// those, applied as tokenizers applies them to each piece between added
// tokens. Anything else is refused at load, naming its type.
#pragma once

#include "tokenizer/split_pattern.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace algenta::tokenizer {

struct PrePiece {
  std::string text;
  // The piece begins where the user's text begins (Metaspace "first").
  bool at_text_start = false;
};

class PreTokenizer {
 public:
  static PreTokenizer from_json(const nlohmann::json& section, std::string_view path);

  // Splits one normalized piece into the words the model sees; empty words dropped.
  std::vector<std::string> words(PrePiece piece) const;

 private:
  enum class Kind { split, byte_level, metaspace };
  enum class Prepend { always, first, never };
  struct Step {
    Kind kind;
    SplitPattern pattern = SplitPattern::literal("");
    SplitBehavior behavior = SplitBehavior::isolated;
    bool invert = false;
    bool add_prefix_space = false;  // ByteLevel
    bool use_regex = false;         // ByteLevel
    std::string replacement;        // Metaspace, UTF-8
    Prepend prepend = Prepend::always;
    bool split = true;              // Metaspace
  };
  void add(const nlohmann::json& component, const std::string& path);
  static void apply(const Step& step, std::vector<PrePiece>& pieces);

  std::vector<Step> steps_;
};

}  // namespace algenta::tokenizer
