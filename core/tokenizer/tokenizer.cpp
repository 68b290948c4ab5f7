#include "tokenizer/tokenizer.hpp"

#include "json/strict_json.hpp"
#include "tokenizer/json_fields.hpp"
#include "tokenizer/tokenizer_error.hpp"
#include "tokenizer/utf8.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <system_error>

namespace algenta::tokenizer {

namespace jf = json_fields;

namespace {

// tokenizer.json nests a few levels; a deeper file is malformed.
constexpr std::size_t max_json_depth = 64;

void refuse_unsupported_sections(const nlohmann::json& root) {
  static const char* const known[] = {"version", "truncation", "padding", "added_tokens", "normalizer",
                                      "pre_tokenizer", "model", "post_processor", "decoder"};
  for (const auto& [key, value] : root.items()) {
    if (std::find(std::begin(known), std::end(known), key) == std::end(known)) {
      jf::refuse(key, "unknown top-level section");
    }
  }
  // Truncation and padding change what encode returns; a server sets its own limits.
  for (const char* key : {"truncation", "padding"}) {
    if (jf::optional(root, key) != nullptr) jf::refuse(key, "is set; truncation and padding are not supported");
  }
}

}  // namespace

Tokenizer::Tokenizer(Normalizer normalizer, PreTokenizer pre_tokenizer, BpeModel model, AddedVocabulary added,
                     PostProcessor post_processor, Decoder decoder)
    : normalizer_(std::move(normalizer)),
      pre_tokenizer_(std::move(pre_tokenizer)),
      model_(std::move(model)),
      added_(std::move(added)),
      post_processor_(std::move(post_processor)),
      decoder_(std::move(decoder)) {}

Tokenizer Tokenizer::load(const std::filesystem::path& path, std::uint64_t max_bytes) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw TokenizerError(path.string() + ": cannot read its size: " + error.message());
  if (size > max_bytes) {
    throw TokenizerError(path.string() + ": " + std::to_string(size) + " bytes is more than the cap of " +
                         std::to_string(max_bytes) + " bytes for a tokenizer.json");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw TokenizerError(path.string() + ": cannot be opened");
  std::string text(static_cast<std::size_t>(size), '\0');
  file.read(text.data(), static_cast<std::streamsize>(size));
  // The file may have grown since its size was read: one byte more is refused too.
  if (static_cast<std::uintmax_t>(file.gcount()) != size || file.peek() != std::char_traits<char>::eof()) {
    throw TokenizerError(path.string() + ": changed size while being read (expected " + std::to_string(size) +
                         " bytes)");
  }
  try {
    return from_json_text(text);
  } catch (const TokenizerError& e) {
    throw TokenizerError(path.string() + ": " + e.what());
  }
}

Tokenizer Tokenizer::from_json_text(std::string_view text) {
  nlohmann::json root;
  try {
    root = strict_json::parse(text, max_json_depth);
  } catch (const strict_json::StrictJsonError& e) {
    const std::string where = strict_json::dotted_path(e.path);
    throw TokenizerError("tokenizer.json is not valid JSON" + (where.empty() ? std::string() : " at " + where) +
                         ": " + e.what() + (e.key.empty() ? std::string() : " (key \"" + e.key + "\")"));
  }
  jf::object_at(root, "(top level)");
  refuse_unsupported_sections(root);
  static const nlohmann::json null_value;
  const auto section = [&](const char* key) -> const nlohmann::json& {
    const auto it = root.find(key);
    return it == root.end() ? null_value : *it;
  };
  Normalizer normalizer = Normalizer::from_json(section("normalizer"), "normalizer");
  PreTokenizer pre_tokenizer = PreTokenizer::from_json(section("pre_tokenizer"), "pre_tokenizer");
  BpeModel model = BpeModel::from_json(jf::required(root, "model", "(top level)"), "model");
  AddedVocabulary added = AddedVocabulary::from_json(section("added_tokens"), "added_tokens", normalizer);
  PostProcessor post_processor = PostProcessor::from_json(section("post_processor"), "post_processor");
  Decoder decoder = Decoder::from_json(section("decoder"), "decoder");
  return Tokenizer(std::move(normalizer), std::move(pre_tokenizer), std::move(model), std::move(added),
                   std::move(post_processor), std::move(decoder));
}

std::vector<std::uint32_t> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  // The regex engine and the normalizer need whole characters.
  if (const std::size_t bad = utf8::first_invalid(text); bad != std::string_view::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw TokenizerError("text to encode is not UTF-8: byte " + std::string(byte) + " at offset " +
                         std::to_string(bad) + " of " + std::to_string(text.size()));
  }
  std::vector<std::uint32_t> ids;
  for (TextPiece& raw : added_.split_raw(text)) {
    if (raw.token) {
      ids.push_back(*raw.token);
      continue;
    }
    if (raw.text.empty()) continue;
    const bool raw_at_start = raw.offset == 0;
    std::string normalized = normalizer_.normalize(std::move(raw.text));
    for (TextPiece& piece : added_.split_normalized(normalized)) {
      if (piece.token) {
        ids.push_back(*piece.token);
        continue;
      }
      if (piece.text.empty()) continue;
      for (const std::string& word : pre_tokenizer_.words(PrePiece{std::move(piece.text), raw_at_start && piece.offset == 0})) {
        model_.tokenize(word, ids);
      }
    }
  }
  return add_special_tokens ? post_processor_.with_special_tokens(ids) : ids;
}

std::vector<std::string> Tokenizer::tokens_for(const std::vector<std::uint32_t>& ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const std::uint32_t id : ids) {
    const std::string* token = added_.token_of(id);
    if (token == nullptr) token = model_.id_to_token(id);
    if (token == nullptr) continue;  // tokenizers drops ids it does not know
    if (skip_special_tokens && added_.is_special(*token)) continue;
    tokens.push_back(*token);
  }
  return tokens;
}

std::string Tokenizer::decode(const std::vector<std::uint32_t>& ids, bool skip_special_tokens) const {
  return decoder_.decode(tokens_for(ids, skip_special_tokens), false);
}

std::optional<std::uint32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (const auto id = added_.id_of(token)) return id;
  return model_.token_to_id(token);
}

std::optional<std::string> Tokenizer::id_to_token(std::uint32_t id) const {
  if (const std::string* token = added_.token_of(id)) return *token;
  if (const std::string* token = model_.id_to_token(id)) return *token;
  return std::nullopt;
}

bool Tokenizer::is_special(std::uint32_t id) const {
  const auto token = id_to_token(id);
  return token && added_.is_special(*token);
}

}  // namespace algenta::tokenizer
