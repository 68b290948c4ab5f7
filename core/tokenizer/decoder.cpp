#include "tokenizer/decoder.hpp"

#include "tokenizer/byte_level_alphabet.hpp"
#include "tokenizer/json_fields.hpp"
#include "tokenizer/normalizer.hpp"
#include "tokenizer/utf8.hpp"

#include <algorithm>

namespace algenta::tokenizer {

namespace jf = json_fields;

namespace {

std::vector<std::string> byte_level_decode(std::vector<std::string>& tokens) {
  std::string bytes;
  for (const std::string& token : tokens) {
    std::string token_bytes;
    bool all_mapped = true;
    for (std::size_t pos = 0; pos < token.size() && all_mapped;) {
      const auto byte = byte_level::byte_of(utf8::next_char(token, pos));
      if (byte) {
        token_bytes.push_back(static_cast<char>(*byte));
      } else {
        all_mapped = false;
      }
    }
    bytes += all_mapped ? token_bytes : token;
  }
  return {utf8::lossy(bytes)};
}

// A token "<0xNN>" as tokenizers reads it (u8::from_str_radix on the two characters).
std::optional<unsigned char> byte_token(const std::string& token) {
  if (token.size() != 6 || !token.starts_with("<0x") || token.back() != '>') return std::nullopt;
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  const char a = token[3], b = token[4];
  if (a == '+' && hex(b) >= 0) return static_cast<unsigned char>(hex(b));
  if (hex(a) < 0 || hex(b) < 0) return std::nullopt;
  return static_cast<unsigned char>(hex(a) * 16 + hex(b));
}

std::vector<std::string> byte_fallback(std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  std::string pending;
  const auto flush = [&] {
    if (pending.empty()) return;
    if (utf8::is_valid(pending)) {
      out.push_back(pending);
    } else {
      for (std::size_t i = 0; i < pending.size(); ++i) out.emplace_back(utf8::replacement_char);
    }
    pending.clear();
  };
  for (std::string& token : tokens) {
    if (const auto byte = byte_token(token)) {
      pending.push_back(static_cast<char>(*byte));
    } else {
      flush();
      out.push_back(std::move(token));
    }
  }
  flush();
  return out;
}

std::string strip(const std::string& token, const std::string& content, std::size_t start, std::size_t stop) {
  std::vector<std::string_view> chars;
  for (std::size_t pos = 0; pos < token.size();) {
    const std::size_t begin = pos;
    utf8::next_char(token, pos);
    chars.push_back(std::string_view(token).substr(begin, pos - begin));
  }
  std::size_t start_cut = 0;
  for (std::size_t i = 0; i < std::min(start, chars.size()) && chars[i] == content; ++i) start_cut = i + 1;
  std::size_t stop_cut = chars.size();
  for (std::size_t i = 0; i < std::min(stop, chars.size()) && chars[chars.size() - i - 1] == content; ++i) {
    stop_cut = chars.size() - i - 1;
  }
  std::string out;
  for (std::size_t i = start_cut; i < std::max(start_cut, stop_cut); ++i) out.append(chars[i]);
  return out;
}

}  // namespace

Decoder Decoder::from_json(const nlohmann::json& section, std::string_view path) {
  Decoder decoder;
  if (!section.is_null()) {
    decoder.present_ = true;
    decoder.add(section, std::string(path));
  }
  return decoder;
}

void Decoder::add(const nlohmann::json& component, const std::string& path) {
  const std::string type = jf::type_of(component, path);
  Step step{};
  if (type == "Sequence") {
    const std::string list_path = jf::child_path(path, "decoders");
    const nlohmann::json& list = jf::required(component, "decoders", path);
    if (!list.is_array()) jf::refuse(list_path, "expected an array");
    for (std::size_t i = 0; i < list.size(); ++i) add(list[i], jf::index_path(list_path, i));
    return;
  }
  if (type == "ByteLevel") {
    step.kind = Kind::byte_level;
  } else if (type == "Replace") {
    step.kind = Kind::replace;
    step.pattern = pattern_from_json(jf::required(component, "pattern", path), jf::child_path(path, "pattern"));
    step.content = jf::required_string(component, "content", path);
  } else if (type == "ByteFallback") {
    step.kind = Kind::byte_fallback;
    has_byte_fallback_ = true;
  } else if (type == "Fuse") {
    step.kind = Kind::fuse;
  } else if (type == "Strip") {
    step.kind = Kind::strip;
    step.content = utf8::encode(jf::char_field(component, "content", path));
    step.start = jf::count_or(component, "start", path, 0);
    step.stop = jf::count_or(component, "stop", path, 0);
  } else if (type == "Metaspace") {
    step.kind = Kind::metaspace;
    step.content = utf8::encode(jf::char_field(component, "replacement", path));
    bool prepends = true;
    if (const auto scheme = jf::optional_string(component, "prepend_scheme", path)) {
      if (*scheme != "always" && *scheme != "first" && *scheme != "never") {
        jf::refuse(jf::child_path(path, "prepend_scheme"), "\"" + *scheme + "\" is not one of always, first, never");
      }
      prepends = *scheme != "never";
    } else {
      prepends = jf::bool_or(component, "add_prefix_space", path, true);
    }
    step.drop_first_replacement = prepends;
  } else {
    jf::refuse(path, "decoder type \"" + type +
                         "\" is not supported (supported: ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, Sequence)");
  }
  steps_.push_back(std::move(step));
}

std::string Decoder::decode(std::vector<std::string> tokens, bool continues_text) const {
  if (!present_) {
    std::string joined;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0 || continues_text) joined += ' ';
      joined += tokens[i];
    }
    return joined;
  }
  // After Fuse or ByteLevel the first token holds the text from its start;
  // when continuing, it is the middle of that token.
  bool fused = false;
  for (const Step& step : steps_) {
    switch (step.kind) {
      case Kind::byte_level:
        tokens = byte_level_decode(tokens);
        fused = true;
        break;
      case Kind::fuse: {
        std::string joined;
        for (const std::string& token : tokens) joined += token;
        tokens = {std::move(joined)};
        fused = true;
        break;
      }
      case Kind::byte_fallback:
        tokens = byte_fallback(tokens);
        break;
      case Kind::replace:
        for (std::string& token : tokens) token = replace_all(step.pattern, token, step.content);
        break;
      case Kind::strip: {
        const bool at_text_start = !(continues_text && fused);
        for (std::size_t i = 0; i < tokens.size(); ++i) {
          tokens[i] = strip(tokens[i], step.content, (i == 0 && !at_text_start) ? 0 : step.start, step.stop);
        }
        break;
      }
      case Kind::metaspace: {
        const bool first_is_text_start = !continues_text || fused;
        const SplitPattern replacement = SplitPattern::literal(step.content);
        for (std::size_t i = 0; i < tokens.size(); ++i) {
          const bool drop = i == 0 && first_is_text_start && step.drop_first_replacement;
          tokens[i] = replace_all(replacement, tokens[i], drop ? "" : " ");
        }
        break;
      }
    }
  }
  std::string text;
  for (const std::string& token : tokens) text += token;
  return text;
}

}  // namespace algenta::tokenizer
