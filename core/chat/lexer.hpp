#pragma once
// Splits template text into data and tag tokens the way jinja2's lexer does
// with trim_blocks=True and lstrip_blocks=True: newlines normalised to "\n",
// one trailing newline dropped, `-`/`+` whitespace control, comments removed,
// {% raw %} kept verbatim.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chat/template_error.hpp"

namespace algenta::chat {

enum class Tok { data, block_begin, block_end, var_begin, var_end, name, string, integer, floating, op, eof };

struct Token {
  Tok type = Tok::eof;
  std::string text;  // data text, name, operator, or decoded string literal
  std::int64_t integer = 0;
  double floating = 0;
  SourcePos pos;
};

struct LexOptions {
  bool trim_blocks = true;
  bool lstrip_blocks = true;
};

std::vector<Token> tokenize(std::string_view source, const LexOptions& options = {});

}  // namespace algenta::chat
