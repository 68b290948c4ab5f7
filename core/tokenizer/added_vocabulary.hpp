// The `added_tokens` section: tokens split out of the text before the
// model sees it. Tokens with normalized=false are found in the raw text;
// those with normalized=true in the normalized pieces, by their normalized
// form. Matching is leftmost-longest; single_word, lstrip and rstrip act
// as in tokenizers' AddedVocabulary::find_matches.
#pragma once

#include "tokenizer/normalizer.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace algenta::tokenizer {

struct AddedToken {
  std::uint32_t id;
  std::string content;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = true;
  bool special = false;
  // What decode() feeds the decoder: the normalized form for normalized
  // tokens (so the decoder inverts the normalizer), else the content.
  std::string decoded_form;
};

// A piece of text, or an added token found in it.
struct TextPiece {
  std::string text;
  std::optional<std::uint32_t> token;
  std::size_t offset = 0;  // byte offset of the piece in the text it was split from
};

class AddedVocabulary {
 public:
  // `normalizer` gives normalized tokens the form they are matched in.
  static AddedVocabulary from_json(const nlohmann::json& section, std::string_view path, const Normalizer& normalizer);

  std::vector<TextPiece> split_raw(std::string_view text) const { return split(text, raw_); }
  std::vector<TextPiece> split_normalized(std::string_view text) const { return split(text, normalized_); }

  // The token's decoded_form.
  const std::string* token_of(std::uint32_t id) const;
  std::optional<std::uint32_t> id_of(std::string_view content) const;
  bool is_special(std::string_view content) const { return special_contents_.contains(std::string(content)); }

 private:
  // Patterns grouped by first byte, longest first, for leftmost-longest search.
  struct Matcher {
    struct Entry {
      std::string pattern;
      std::size_t token_index;
    };
    std::vector<Entry> by_first_byte[256];
    bool empty = true;
    void add(std::string pattern, std::size_t token_index);
    void finish();
  };
  std::vector<TextPiece> split(std::string_view text, const Matcher& matcher) const;

  std::vector<AddedToken> tokens_;
  std::unordered_map<std::uint32_t, std::size_t> index_by_id_;
  std::unordered_map<std::string, std::uint32_t> id_by_content_;
  std::unordered_set<std::string> special_contents_;
  Matcher raw_;
  Matcher normalized_;
};

}  // namespace algenta::tokenizer
