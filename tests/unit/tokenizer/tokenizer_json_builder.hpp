// Small tokenizer.json documents for the unit tests.
#pragma once

#include "tokenizer/tokenizer.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace algenta::tokenizer::test {

// A BPE model whose vocab is `tokens` in order (ids 0, 1, ...).
inline nlohmann::json bpe_model(const std::vector<std::string>& tokens, nlohmann::json merges) {
  nlohmann::json vocab = nlohmann::json::object();
  for (std::size_t i = 0; i < tokens.size(); ++i) vocab[tokens[i]] = i;
  return {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"fuse_unk", false},
          {"byte_fallback", false}, {"vocab", vocab}, {"merges", std::move(merges)}};
}

inline nlohmann::json document(nlohmann::json model) {
  return {{"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}, {"added_tokens", nlohmann::json::array()},
          {"normalizer", nullptr}, {"pre_tokenizer", nullptr}, {"post_processor", nullptr},
          {"decoder", nullptr}, {"model", std::move(model)}};
}

inline Tokenizer load(const nlohmann::json& doc) { return Tokenizer::from_json_text(doc.dump()); }

// The 256 "<0xNN>" tokens.
inline std::vector<std::string> byte_tokens() {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    tokens.emplace_back(name);
  }
  return tokens;
}

}  // namespace algenta::tokenizer::test
