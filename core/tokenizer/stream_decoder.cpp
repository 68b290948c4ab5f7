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

std::string StreamDecoder::emit_from(const std::string& window_text) {
  // Text once given out stays a prefix of the window's text (the hold-back
  // rules below make sure of it); guard anyway rather than emit garbage.
  if (window_text.size() < emitted_ || window_text.compare(0, emitted_, window_text, 0, emitted_) != 0) return {};
  std::string fresh = window_text.substr(emitted_);
  emitted_ = window_text.size();
  return fresh;
}

std::string StreamDecoder::push(std::uint32_t id) {
  std::vector<std::string> tokens = tokenizer_.tokens_for({id}, skip_special_tokens_);
  if (tokens.empty()) return {};
  window_.push_back(std::move(tokens.front()));

  const Decoder& decoder = tokenizer_.decoder();
  // A byte token may still be joined by the next ones into one character,
  // or turn a valid run invalid (then each byte becomes U+FFFD).
  if (decoder.has_byte_fallback() && is_byte_token(window_.back())) return {};
  const std::string text = decoder.decode(window_, window_continues_);
  // A trailing U+FFFD may be the start of a character the next id completes.
  if (text.ends_with(utf8::replacement_char)) return {};
  std::string fresh = emit_from(text);
  // Start a new window once the window has text: a start-of-text rule
  // (Strip's start, Metaspace's first token) has then made its choice.
  if (!text.empty()) {
    window_.clear();
    window_continues_ = true;
    emitted_ = 0;
  }
  return fresh;
}

std::string StreamDecoder::finish() {
  if (window_.empty()) return {};
  std::string fresh = emit_from(tokenizer_.decoder().decode(window_, window_continues_));
  window_.clear();
  window_continues_ = true;
  emitted_ = 0;
  return fresh;
}

}  // namespace algenta::tokenizer
