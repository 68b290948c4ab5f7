// Fuzzes the tokenizer.json loader, and what a loaded tokenizer does with
// text: the input is a tokenizer.json, optionally followed by a NUL byte and
// a text to encode, decode and stream back. Only TokenizerError may escape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tokenizer/stream_decoder.hpp"
#include "tokenizer/tokenizer.hpp"
#include "tokenizer/tokenizer_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view json = input.substr(0, nul);
  const std::string_view text = nul == std::string_view::npos ? "Hello, wörld! 123" : input.substr(nul + 1);
  try {
    const auto tokenizer = algenta::tokenizer::Tokenizer::from_json_text(json);
    for (const bool special : {false, true}) {
      const auto ids = tokenizer.encode(text, special);
      (void)tokenizer.decode(ids, special);
      algenta::tokenizer::StreamDecoder stream(tokenizer, special);
      for (const std::uint32_t id : ids) (void)stream.push(id);
      (void)stream.finish();
    }
  } catch (const algenta::tokenizer::TokenizerError&) {
  }
  return 0;
}
