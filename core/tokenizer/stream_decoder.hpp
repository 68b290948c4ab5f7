// Incremental detokenization: feed ids one at a time, get the text that is
// final so far. The concatenated output equals decode(all ids), and no piece
// ends inside a character: text that may still change (a trailing U+FFFD
// that later bytes may complete, a run of <0xNN> byte tokens) is held back.
//
// Like vLLM's detokenizer it decodes a window of recent ids and emits what
// the window adds; the window restarts after text that later ids cannot
// change, so the work per id stays small.
#pragma once

#include "tokenizer/tokenizer.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace algenta::tokenizer {

class StreamDecoder {
 public:
  StreamDecoder(const Tokenizer& tokenizer, bool skip_special_tokens);

  // The new final text after `id` (possibly empty).
  std::string push(std::uint32_t id);
  // Whatever is still held back, once no id will follow.
  std::string finish();

 private:
  std::string emit_from(const std::string& window_text);

  const Tokenizer& tokenizer_;
  bool skip_special_tokens_;
  std::vector<std::string> window_;  // token strings since the window began
  bool window_continues_ = false;    // text was decoded before the window
  std::size_t emitted_ = 0;          // bytes of the window's text already given out
};

}  // namespace algenta::tokenizer
