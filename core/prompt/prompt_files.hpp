// The files of a model's text side, each read whole after its size is
// checked against the cap of its kind, and read as transformers reads them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "files/bounded_read.hpp"
#include "tokenizer/tokenizer.hpp"

namespace algenta::prompt {

// Gemma-3's tokenizer.json is about 33 MB (the tokenizer's own cap).
inline constexpr files::SizeCap kTokenizerJsonCap{tokenizer::default_max_file_bytes, "a tokenizer.json"};
// Gemma-3's, with its added_tokens_decoder of 6,000 entries, is about 1.2 MB.
inline constexpr files::SizeCap kTokenizerConfigCap{16u << 20, "a tokenizer_config.json"};
// The legacy special-token file: a few names, or a list of added tokens.
inline constexpr files::SizeCap kSpecialTokensMapCap{16u << 20, "a special_tokens_map.json"};
// The largest real templates (tool-calling ones) are tens of KB.
inline constexpr files::SizeCap kChatTemplateCap{4u << 20, "a chat template"};
// A few dozen sampling defaults.
inline constexpr files::SizeCap kGenerationConfigCap{1u << 20, "a generation_config.json"};

// files::read_bounded; a refusal becomes a PromptError with the same text.
std::string read_model_file(const std::filesystem::path& path, files::SizeCap cap);
// The same, or nullopt when nothing exists at `path`.
std::optional<std::string> read_model_file_if_present(const std::filesystem::path& path, files::SizeCap cap);

// Strict JSON (repeated keys refused); errors name `name` and where.
nlohmann::json parse_json_file(std::string_view text, const std::string& name);

// A template file as Python's open(path, encoding="utf-8").read() returns
// it: UTF-8 checked, and "\r\n" and "\r" read as "\n" (universal newlines).
std::string template_text(std::string_view bytes, const std::string& name);

}  // namespace algenta::prompt
