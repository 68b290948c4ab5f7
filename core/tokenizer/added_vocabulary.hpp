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
  // A byte trie of the patterns, for leftmost-longest search.
  class Matcher {
   public:
    // The index of the token that already has this pattern, if one has.
    std::optional<std::size_t> add(std::string_view pattern, std::size_t token_index);
    bool empty() const { return terminal_.size() <= 1; }
    // The token index and length of the longest pattern starting at `at`.
    std::optional<std::pair<std::size_t, std::size_t>> longest_at(std::string_view text, std::size_t at) const;

   private:
    std::unordered_map<std::uint64_t, std::uint32_t> edges_;  // (node << 8 | byte) -> child
    std::vector<std::int64_t> terminal_{-1};                   // token index per node, -1 for none
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
