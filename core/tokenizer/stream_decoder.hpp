// Incremental detokenization: feed ids one at a time, get the text that is
// final so far. The concatenated output equals decode(all ids), and no piece
// ends inside a character.
//
// Like vLLM's detokenizer (prefix and read offsets) it decodes only recent
// ids: a window that holds the ids since the last text given out. The window
// is decoded as a continuation of the text before it (Decoder::decode), and
// held back while its text may still change: while it ends in a <0xNN> byte
// token (the run may complete a character, or turn invalid and become one
// U+FFFD per byte) or in U+FFFD (the next bytes may complete it). A window
// whose text is empty is kept too, so a start-of-text rule (Strip's start,
// Metaspace's first token) sees the same tokens as decode() does.
//
// What it cannot follow: a Strip with `stop` or a multi-character Replace
// after Fuse (none of the supported model families has them).
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
  std::string take_window();

  const Tokenizer& tokenizer_;
  bool skip_special_tokens_;
  std::vector<std::string> window_;  // token strings not given out yet
  bool window_continues_ = false;    // text was given out before the window
};

}  // namespace algenta::tokenizer
