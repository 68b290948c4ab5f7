// A Hugging Face tokenizer.json, encoding and decoding id for id as the
// `tokenizers` library does for the model kinds Qwen2/2.5/3, Llama-3,
// Mistral and Gemma-3 use. Anything else in the file is refused at load,
// naming it.
#pragma once

#include "tokenizer/added_vocabulary.hpp"
#include "tokenizer/bpe_model.hpp"
#include "tokenizer/decoder.hpp"
#include "tokenizer/normalizer.hpp"
#include "tokenizer/post_processor.hpp"
#include "tokenizer/pre_tokenizer.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::tokenizer {

// Gemma-3's tokenizer.json is about 33 MB.
inline constexpr std::uint64_t default_max_file_bytes = 64ull << 20;

class Tokenizer {
 public:
  // Reads at most `max_bytes` (checked before reading). Throws TokenizerError.
  static Tokenizer load(const std::filesystem::path& path, std::uint64_t max_bytes = default_max_file_bytes);
  static Tokenizer from_json_text(std::string_view text);

  // Throws TokenizerError when `text` is not UTF-8, naming the byte and offset.
  std::vector<std::uint32_t> encode(std::string_view text, bool add_special_tokens) const;
  std::string decode(const std::vector<std::uint32_t>& ids, bool skip_special_tokens) const;

  // The token strings decode() feeds the decoder (unknown ids and, when
  // skipping, special tokens left out).
  std::vector<std::string> tokens_for(const std::vector<std::uint32_t>& ids, bool skip_special_tokens) const;
  const Decoder& decoder() const { return decoder_; }

  std::optional<std::uint32_t> token_to_id(std::string_view token) const;
  // As tokenizers' id_to_token: a normalized added token in its normalized form.
  std::optional<std::string> id_to_token(std::uint32_t id) const;
  bool is_special(std::uint32_t id) const;

 private:
  Tokenizer(Normalizer normalizer, PreTokenizer pre_tokenizer, BpeModel model, AddedVocabulary added,
            PostProcessor post_processor, Decoder decoder);

  Normalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  BpeModel model_;
  AddedVocabulary added_;
  PostProcessor post_processor_;
  Decoder decoder_;
};

}  // namespace algenta::tokenizer
