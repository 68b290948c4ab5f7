#include "chat/lexer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "chat/utf8.hpp"

namespace algenta::chat {
namespace {

std::string normalize_newlines(std::string_view src) {
  std::string out;
  out.reserve(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (src[i] == '\r') {
      out += '\n';
      if (i + 1 < src.size() && src[i + 1] == '\n') ++i;
    } else {
      out += src[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();  // keep_trailing_newline=False
  return out;
}

// Length of the Unicode whitespace run at `pos` (Python's \s).
std::size_t whitespace_run(const std::string& s, std::size_t pos) {
  std::size_t p = pos;
  while (p < s.size()) {
    auto c = static_cast<unsigned char>(s[p]);
    if (c < 0x80) {
      if (!is_py_space(c)) break;
      ++p;
      continue;
    }
    std::size_t len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    if (p + len > s.size()) break;
    auto cps = decode_utf8(std::string_view(s).substr(p, len));
    if (cps.size() != 1 || !is_py_space(cps[0])) break;
    p += len;
  }
  return p - pos;
}

class Lexer {
 public:
  Lexer(std::string_view source, const LexOptions& options) : src_(normalize_newlines(source)), opt_(options) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < src_.size(); ++i)
      if (src_[i] == '\n') line_starts_.push_back(i + 1);
  }

  std::vector<Token> run() {
    std::size_t pos = 0;
    bool line_starting = true;
    while (pos < src_.size()) {
      std::size_t start = find_tag(pos);
      if (start == std::string::npos) {
        emit_data(src_.substr(pos), pos);
        break;
      }
      char kind = src_[start + 1];
      char sign = start + 2 < src_.size() && (src_[start + 2] == '-' || src_[start + 2] == '+') ? src_[start + 2] : 0;
      std::string text = src_.substr(pos, start - pos);
      if (sign == '-') {
        text = py_strip(text, false, true);
      } else if (sign != '+' && opt_.lstrip_blocks && kind != '{') {
        std::size_t l_pos = text.rfind('\n');
        l_pos = l_pos == std::string::npos ? 0 : l_pos + 1;
        if ((l_pos > 0 || line_starting) && l_pos < text.size() && whitespace_run(text, l_pos) == text.size() - l_pos)
          text.resize(l_pos);
      }
      emit_data(text, pos);
      std::size_t body = start + 2 + (sign ? 1 : 0);
      if (kind == '#') {
        pos = end_comment(start, body);
      } else if (kind == '%' && is_raw(body)) {
        pos = raw_block(start, body);
      } else {
        pos = tag(start, body, kind == '%');
      }
      line_starting = pos > 0 && src_[pos - 1] == '\n';
    }
    Token eof;
    eof.type = Tok::eof;
    eof.pos = position(src_.size());
    tokens_.push_back(eof);
    return std::move(tokens_);
  }

 private:
  std::string src_;
  LexOptions opt_;
  std::vector<std::size_t> line_starts_;
  std::vector<Token> tokens_;

  SourcePos position(std::size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());
    return {line, offset - line_starts_[line - 1] + 1};
  }

  std::size_t find_tag(std::size_t from) const {
    for (std::size_t p = src_.find('{', from); p != std::string::npos; p = src_.find('{', p + 1)) {
      if (p + 1 < src_.size() && (src_[p + 1] == '{' || src_[p + 1] == '%' || src_[p + 1] == '#')) return p;
    }
    return std::string::npos;
  }

  void emit_data(std::string text, std::size_t at) {
    if (text.empty()) return;
    Token t;
    t.type = Tok::data;
    t.text = std::move(text);
    t.pos = position(at);
    tokens_.push_back(std::move(t));
  }

  // After an end delimiter: `-` strips all following whitespace; a plain
  // block end eats one newline (trim_blocks).
  std::size_t after_end(std::size_t end, char sign, bool block) const {
    if (sign == '-') return end + whitespace_run(src_, end);
    if (sign != '+' && block && opt_.trim_blocks && end < src_.size() && src_[end] == '\n') return end + 1;
    return end;
  }

  std::size_t end_comment(std::size_t start, std::size_t body) {
    std::size_t close = src_.find("#}", body);
    if (close == std::string::npos) fail(ErrorKind::syntax, "missing end of comment tag", position(start));
    char sign = close > body && (src_[close - 1] == '-' || src_[close - 1] == '+') ? src_[close - 1] : 0;
    return after_end(close + 2, sign, true);
  }

  bool is_raw(std::size_t body) const {
    std::size_t p = body + whitespace_run(src_, body);
    if (src_.compare(p, 3, "raw") != 0) return false;
    p += 3;
    p += whitespace_run(src_, p);
    if (p < src_.size() && src_[p] == '-') ++p;
    return src_.compare(p, 2, "%}") == 0;
  }

  std::size_t raw_block(std::size_t start, std::size_t body) {
    std::size_t p = src_.find("%}", body);
    char sign = src_[p - 1] == '-' ? '-' : 0;
    std::size_t content = after_end(p + 2, sign, true);
    for (std::size_t q = src_.find("{%", content); q != std::string::npos; q = src_.find("{%", q + 1)) {
      std::size_t r = q + 2;
      char begin_sign = r < src_.size() && (src_[r] == '-' || src_[r] == '+') ? src_[r++] : 0;
      r += whitespace_run(src_, r);
      if (src_.compare(r, 6, "endraw") != 0) continue;
      r += 6;
      r += whitespace_run(src_, r);
      char end_sign = r < src_.size() && (src_[r] == '-' || src_[r] == '+') ? src_[r++] : 0;
      if (src_.compare(r, 2, "%}") != 0) continue;
      std::string text = src_.substr(content, q - content);
      if (begin_sign == '-') {
        text = py_strip(text, false, true);
      } else if (begin_sign != '+' && opt_.lstrip_blocks) {
        std::size_t l_pos = text.rfind('\n');
        l_pos = l_pos == std::string::npos ? 0 : l_pos + 1;
        if (l_pos > 0 && l_pos < text.size() && whitespace_run(text, l_pos) == text.size() - l_pos) text.resize(l_pos);
      }
      emit_data(text, content);
      return after_end(r + 2, end_sign, true);
    }
    fail(ErrorKind::syntax, "missing {% endraw %} for {% raw %}", position(start));
  }

  std::size_t tag(std::size_t start, std::size_t body, bool block) {
    Token begin;
    begin.type = block ? Tok::block_begin : Tok::var_begin;
    begin.pos = position(start);
    tokens_.push_back(begin);
    std::vector<char> brackets;
    std::size_t p = body;
    while (true) {
      p += whitespace_run(src_, p);
      if (p >= src_.size())
        fail(ErrorKind::syntax, std::string("unexpected end of template, expected '") + (block ? "%}" : "}}") + "'",
             position(start));
      if (brackets.empty()) {
        char sign = src_[p] == '-' || (block && src_[p] == '+') ? src_[p] : 0;
        std::size_t q = p + (sign ? 1 : 0);
        if (src_.compare(q, 2, block ? "%}" : "}}") == 0) {
          Token end;
          end.type = block ? Tok::block_end : Tok::var_end;
          end.pos = position(p);
          tokens_.push_back(end);
          return after_end(q + 2, sign, block);
        }
      }
      p = expression_token(p, brackets);
    }
  }

  std::size_t expression_token(std::size_t p, std::vector<char>& brackets) {
    Token t;
    t.pos = position(p);
    char c = src_[p];
    auto is_digit = [](char ch) { return ch >= '0' && ch <= '9'; };
    auto is_name_start = [](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_'; };
    if (is_digit(c)) return number(p, t);
    if (is_name_start(c)) {
      std::size_t q = p;
      while (q < src_.size() && (is_name_start(src_[q]) || is_digit(src_[q]))) ++q;
      t.type = Tok::name;
      t.text = src_.substr(p, q - p);
      tokens_.push_back(std::move(t));
      return q;
    }
    if (c == '\'' || c == '"') return string_literal(p, t);
    static const char* two[] = {"//", "**", "==", "!=", ">=", "<="};
    for (const char* op : two) {
      if (src_.compare(p, 2, op) == 0) {
        t.type = Tok::op;
        t.text = op;
        tokens_.push_back(std::move(t));
        return p + 2;
      }
    }
    static const std::string singles = "+-/*%~[](){}><=.:|,;";
    if (singles.find(c) == std::string::npos) {
      std::string shown = static_cast<unsigned char>(c) < 0x80 ? std::string(1, c) : std::string("non-ASCII byte");
      fail(ErrorKind::syntax, "unexpected char '" + shown + "'", t.pos);
    }
    if (c == '(' || c == '[' || c == '{') brackets.push_back(c);
    if (c == ')' || c == ']' || c == '}') {
      char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (brackets.empty() || brackets.back() != want)
        fail(ErrorKind::syntax, std::string("unexpected '") + c + "'", t.pos);
      brackets.pop_back();
    }
    t.type = Tok::op;
    t.text = std::string(1, c);
    tokens_.push_back(std::move(t));
    return p + 1;
  }

  std::size_t digits(std::size_t p) const {
    // (\d+_)*\d+
    std::size_t q = p;
    while (true) {
      std::size_t r = q;
      while (r < src_.size() && src_[r] >= '0' && src_[r] <= '9') ++r;
      if (r == q) return q == p ? p : q;
      q = r;
      if (q + 1 < src_.size() && src_[q] == '_' && src_[q + 1] >= '0' && src_[q + 1] <= '9') {
        ++q;
        continue;
      }
      return q;
    }
  }

  std::size_t number(std::size_t p, Token& t) {
    std::size_t q = digits(p);
    bool after_dot = !tokens_.empty() && tokens_.back().type == Tok::op && tokens_.back().text == ".";
    std::size_t end = q;
    bool is_float = false;
    if (!after_dot) {
      std::size_t frac_end = q;
      if (q + 1 < src_.size() && src_[q] == '.' && src_[q + 1] >= '0' && src_[q + 1] <= '9') frac_end = digits(q + 1);
      std::size_t exp_end = frac_end;
      if (frac_end < src_.size() && (src_[frac_end] == 'e' || src_[frac_end] == 'E')) {
        std::size_t r = frac_end + 1;
        if (r < src_.size() && (src_[r] == '+' || src_[r] == '-')) ++r;
        std::size_t s = digits(r);
        if (s > r) exp_end = s;
      }
      if (exp_end > q) {
        is_float = true;
        end = exp_end;
      }
    }
    std::string text;
    for (std::size_t k = p; k < end; ++k)
      if (src_[k] != '_') text += src_[k];
    if (is_float) {
      t.type = Tok::floating;
      t.floating = std::strtod(text.c_str(), nullptr);
    } else {
      t.type = Tok::integer;
      errno = 0;
      t.integer = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == ERANGE) fail(ErrorKind::unsupported, "integer literal " + text + " outside the 64-bit range", t.pos);
    }
    t.text = text;
    tokens_.push_back(std::move(t));
    return end;
  }

  static int hex_value(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
  }

  // Python's "unicode-escape" decoding, as jinja2 applies it to string literals.
  std::size_t string_literal(std::size_t p, Token& t) {
    char quote = src_[p];
    std::size_t q = p + 1;
    std::string out;
    while (true) {
      if (q >= src_.size()) fail(ErrorKind::syntax, "unexpected char '" + std::string(1, quote) + "'", t.pos);
      char ch = src_[q];
      if (ch == quote) break;
      if (ch != '\\') {
        out += ch;
        ++q;
        continue;
      }
      if (q + 1 >= src_.size()) fail(ErrorKind::syntax, "unterminated string literal", t.pos);
      char e = src_[q + 1];
      q += 2;
      switch (e) {
        case '\n': break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'v': out += '\v'; break;
        case 'x':
        case 'u':
        case 'U': {
          int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          char32_t cp = 0;
          for (int k = 0; k < n; ++k) {
            int h = q + k < src_.size() ? hex_value(src_[q + k]) : -1;
            if (h < 0) fail(ErrorKind::syntax, std::string("truncated \\") + e + " escape in string literal", t.pos);
            cp = cp * 16 + static_cast<char32_t>(h);
          }
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            fail(ErrorKind::unsupported, "string escape outside the Unicode scalar range", t.pos);
          q += n;
          append_utf8(out, cp);
          break;
        }
        case 'N': fail(ErrorKind::unsupported, "\\N{...} escape in string literal", t.pos);
        default:
          if (e >= '0' && e <= '7') {
            char32_t cp = static_cast<char32_t>(e - '0');
            for (int k = 0; k < 2 && q < src_.size() && src_[q] >= '0' && src_[q] <= '7'; ++k) cp = cp * 8 + (src_[q++] - '0');
            append_utf8(out, cp);
          } else if (static_cast<unsigned char>(e) >= 0x80) {
            fail(ErrorKind::unsupported, "backslash before a non-ASCII character in a string literal", t.pos);
          } else {
            out += '\\';
            q -= 1;  // the character after the backslash is kept as it is
          }
      }
    }
    t.type = Tok::string;
    t.text = std::move(out);
    tokens_.push_back(std::move(t));
    return q + 1;
  }
};

}  // namespace

std::vector<Token> tokenize(std::string_view source, const LexOptions& options) {
  return Lexer(source, options).run();
}

}  // namespace algenta::chat
