#include "tokenizer/stream_decoder.hpp"

#include "tokenizer/utf8.hpp"

namespace algenta::tokenizer {

namespace {

bool is_byte_token(const std::string& token) {
  return token.size() == 6 && token.starts_with("<0x") && token.back() == '>';
}

}  // namespace

StreamDecoder::StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens)
    : tokenizer_(tokenizer), skip_special_tokens_(skip_special_tokens) {}

std::string StreamDecoder::take_window() {
  std::string text = tokenizer_.decoder().decode(window_, window_continues_);
  window_.clear();
  window_continues_ = true;
  return text;
}

std::string StreamDecoder::push(std::uint32_t id) {
  std::vector<std::string> tokens = tokenizer_.tokens_for({id}, skip_special_tokens_);
  if (tokens.empty()) return {};
  window_.push_back(std::move(tokens.front()));

  const Decoder& decoder = tokenizer_.decoder();
  if (decoder.has_byte_fallback() && is_byte_token(window_.back())) return {};
  // Decoded twice when it is final; windows are a token or two long.
  const std::string text = decoder.decode(window_, window_continues_);
  if (text.empty() || text.ends_with(utf8::replacement_char)) return {};
  return take_window();
}

std::string StreamDecoder::finish() {
  if (window_.empty()) return {};
  return take_window();
}

}  // namespace algenta::tokenizer
