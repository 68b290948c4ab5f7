#include "prompt/prompt_files.hpp"

#include <cstdio>

#include "json/strict_json.hpp"
#include "prompt/prompt_error.hpp"
#include "tokenizer/utf8.hpp"

namespace algenta::prompt {
namespace {

// Real configs nest a few levels (added_tokens_decoder entries, template lists).
constexpr std::size_t kMaxJsonDepth = 64;

}  // namespace

std::string read_model_file(const std::filesystem::path& path, files::SizeCap cap) {
  try {
    return files::read_bounded(path, cap);
  } catch (const files::FileReadError& e) {
    throw PromptError(e.what());
  }
}

std::optional<std::string> read_model_file_if_present(const std::filesystem::path& path, files::SizeCap cap) {
  try {
    return files::read_bounded_if_present(path, cap);
  } catch (const files::FileReadError& e) {
    throw PromptError(e.what());
  }
}

nlohmann::json parse_json_file(std::string_view text, const std::string& name) {
  try {
    return strict_json::parse(text, kMaxJsonDepth);
  } catch (const strict_json::StrictJsonError& e) {
    const std::string where = strict_json::dotted_path(e.path);
    throw PromptError(name + " is not valid JSON" + (where.empty() ? std::string() : " at " + where) + ": " +
                      e.what() + (e.key.empty() ? std::string() : " (key \"" + e.key + "\")"));
  }
}

std::string template_text(std::string_view bytes, const std::string& name) {
  if (const std::size_t bad = tokenizer::utf8::first_invalid(bytes); bad != std::string_view::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(bytes[bad]));
    throw PromptError(name + " is not UTF-8: byte " + byte + " at offset " + std::to_string(bad));
  }
  std::string text;
  text.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\r') {
      text += bytes[i];
      continue;
    }
    text += '\n';
    if (i + 1 < bytes.size() && bytes[i + 1] == '\n') ++i;
  }
  return text;
}

}  // namespace algenta::prompt
