#include "tokenizer/added_vocabulary.hpp"

#include "tokenizer/json_fields.hpp"
#include "tokenizer/unicode_text.hpp"
#include "tokenizer/utf8.hpp"

#include <algorithm>

namespace algenta::tokenizer {

namespace jf = json_fields;

namespace {

char32_t last_char(std::string_view text) {
  std::size_t start = text.size() - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  std::size_t pos = start;
  return utf8::next_char(text, pos);
}

bool ends_with_word(std::string_view text) { return !text.empty() && unicode::is_word_char(last_char(text)); }

bool starts_with_word(std::string_view text) {
  std::size_t pos = 0;
  return !text.empty() && unicode::is_word_char(utf8::next_char(text, pos));
}

// Where the run of white space ending `text` begins.
std::size_t trailing_space_start(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    std::size_t pos = start;
    if (!unicode::is_white_space(utf8::next_char(text, pos))) break;
    end = start;
  }
  return end;
}

// Length of the run of white space starting `text`.
std::size_t leading_space_length(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t next = pos;
    if (!unicode::is_white_space(utf8::next_char(text, next))) break;
    pos = next;
  }
  return pos;
}

}  // namespace

std::optional<std::size_t> AddedVocabulary::Matcher::add(std::string_view pattern, std::size_t token_index) {
  std::uint32_t node = 0;
  for (const char c : pattern) {
    const std::uint64_t key = (static_cast<std::uint64_t>(node) << 8) | static_cast<unsigned char>(c);
    const auto [it, inserted] = edges_.emplace(key, static_cast<std::uint32_t>(terminal_.size()));
    if (inserted) terminal_.push_back(-1);
    node = it->second;
  }
  if (terminal_[node] >= 0) return static_cast<std::size_t>(terminal_[node]);
  terminal_[node] = static_cast<std::int64_t>(token_index);
  return std::nullopt;
}

std::optional<std::pair<std::size_t, std::size_t>> AddedVocabulary::Matcher::longest_at(std::string_view text,
                                                                                       std::size_t at) const {
  std::optional<std::pair<std::size_t, std::size_t>> best;
  std::uint32_t node = 0;
  for (std::size_t pos = at; pos < text.size(); ++pos) {
    const auto it = edges_.find((static_cast<std::uint64_t>(node) << 8) | static_cast<unsigned char>(text[pos]));
    if (it == edges_.end()) break;
    node = it->second;
    if (terminal_[node] >= 0) best.emplace(static_cast<std::size_t>(terminal_[node]), pos + 1 - at);
  }
  return best;
}

AddedVocabulary AddedVocabulary::from_json(const nlohmann::json& section, std::string_view path_view,
                                           const Normalizer& normalizer) {
  const std::string path(path_view);
  AddedVocabulary vocabulary;
  if (section.is_null()) return vocabulary;
  if (!section.is_array()) jf::refuse(path, "expected an array of added tokens");
  for (std::size_t i = 0; i < section.size(); ++i) {
    const std::string entry_path = jf::index_path(path, i);
    const nlohmann::json& entry = jf::object_at(section[i], entry_path);
    AddedToken token;
    token.id = jf::id_at(jf::required(entry, "id", entry_path), jf::child_path(entry_path, "id"));
    token.content = jf::required_string(entry, "content", entry_path);
    token.special = jf::bool_or(entry, "special", entry_path, false);
    token.single_word = jf::bool_or(entry, "single_word", entry_path, false);
    token.lstrip = jf::bool_or(entry, "lstrip", entry_path, false);
    token.rstrip = jf::bool_or(entry, "rstrip", entry_path, false);
    token.normalized = jf::bool_or(entry, "normalized", entry_path, !token.special);
    if (token.content.empty()) jf::refuse(jf::child_path(entry_path, "content"), "an added token cannot be empty");
    if (vocabulary.index_by_id_.contains(token.id)) {
      jf::refuse(jf::child_path(entry_path, "id"), "id " + std::to_string(token.id) + " is given to two added tokens");
    }
    if (vocabulary.id_by_content_.contains(token.content)) {
      jf::refuse(jf::child_path(entry_path, "content"), "\"" + token.content + "\" is added twice");
    }
    vocabulary.index_by_id_.emplace(token.id, vocabulary.tokens_.size());
    vocabulary.id_by_content_.emplace(token.content, token.id);
    if (token.special) vocabulary.special_contents_.insert(token.content);
    vocabulary.tokens_.push_back(std::move(token));
  }
  for (std::size_t i = 0; i < vocabulary.tokens_.size(); ++i) {
    AddedToken& token = vocabulary.tokens_[i];
    token.decoded_form = token.content;
    if (token.normalized) token.decoded_form = normalizer.normalize(token.content);
    if (token.decoded_form.empty()) {
      jf::refuse(jf::index_path(path, i), "\"" + token.content + "\" normalizes to nothing");
    }
    Matcher& matcher = token.normalized ? vocabulary.normalized_ : vocabulary.raw_;
    // tokenizers cannot build its matcher either when two tokens match as one text.
    if (const auto other = matcher.add(token.decoded_form, i)) {
      jf::refuse(jf::index_path(path, i), "\"" + token.content + "\" is matched as \"" + token.decoded_form +
                                              "\", like \"" + vocabulary.tokens_[*other].content + "\"");
    }
  }
  return vocabulary;
}

const std::string* AddedVocabulary::token_of(std::uint32_t id) const {
  const auto it = index_by_id_.find(id);
  return it == index_by_id_.end() ? nullptr : &tokens_[it->second].decoded_form;
}

std::optional<std::uint32_t> AddedVocabulary::id_of(std::string_view content) const {
  const auto it = id_by_content_.find(std::string(content));
  if (it == id_by_content_.end()) return std::nullopt;
  return it->second;
}

std::vector<TextPiece> AddedVocabulary::split(std::string_view text, const Matcher& matcher) const {
  if (matcher.empty() || text.empty()) return {TextPiece{std::string(text), std::nullopt, 0}};
  std::vector<TextPiece> pieces;
  std::size_t consumed = 0;  // end of the last match (start_offset in tokenizers)
  std::size_t search = 0;    // where the leftmost-longest scan resumes
  while (search < text.size()) {
    std::optional<std::pair<std::size_t, std::size_t>> found;
    std::size_t at = search;
    for (; at < text.size() && !found; ++at) found = matcher.longest_at(text, at);
    if (!found) break;
    std::size_t start = at - 1;
    std::size_t stop = start + found->second;
    search = stop;  // the automaton moves past every match, kept or not
    const AddedToken& token = tokens_[found->first];
    if (token.single_word) {
      const bool space_before = start == 0 || !ends_with_word(text.substr(0, start));
      const bool space_after = stop == text.size() || !starts_with_word(text.substr(stop));
      if (!space_before || !space_after) continue;
    }
    if (token.lstrip) start = std::max(trailing_space_start(text.substr(0, start)), consumed);
    if (token.rstrip) stop += leading_space_length(text.substr(stop));
    if (consumed < start) pieces.push_back(TextPiece{std::string(text.substr(consumed, start - consumed)), std::nullopt, consumed});
    pieces.push_back(TextPiece{std::string(text.substr(start, stop - start)), token.id, start});
    consumed = stop;
  }
  if (consumed != text.size()) {
    pieces.push_back(TextPiece{std::string(text.substr(consumed)), std::nullopt, consumed});
  }
  return pieces;
}

}  // namespace algenta::tokenizer
