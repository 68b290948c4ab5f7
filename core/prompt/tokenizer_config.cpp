#include "prompt/tokenizer_config.hpp"

#include <array>

#include "json/strict_json.hpp"
#include "prompt/prompt_error.hpp"
#include "prompt/prompt_files.hpp"

namespace algenta::prompt {
namespace {

using nlohmann::json;

// transformers 5's PreTrainedTokenizerBase.SPECIAL_TOKENS_ATTRIBUTES.
constexpr std::array<std::string_view, 7> kNamedSpecialTokens = {
    "bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"};

bool is_named_special(std::string_view key) {
  for (std::string_view named : kNamedSpecialTokens) {
    if (key == named) return true;
  }
  return false;
}

bool ends_with_token(std::string_view key) {
  constexpr std::string_view suffix = "_token";
  return key.size() > suffix.size() && key.substr(key.size() - suffix.size()) == suffix;
}

// A serialized AddedToken: {"__type": "AddedToken", "content": ...}.
bool is_added_token(const json& value) {
  const auto type = value.is_object() ? value.find("__type") : value.end();
  return value.is_object() && type != value.end() && *type == "AddedToken";
}

// A special token's content: a string, or an AddedToken dict's "content"
// (with or without its "__type" tag).
std::string token_content(const json& value, const std::string& where, const std::string& name) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object()) {
    const auto content = value.find("content");
    if (content != value.end() && content->is_string()) return content->get<std::string>();
    throw PromptError(name + ": " + where + " is an object without a string \"content\": " +
                      strict_json::shown(value));
  }
  throw PromptError(name + ": " + where + " must be a string or an AddedToken object, not " +
                    strict_json::type_name(value) + " " + strict_json::shown(value));
}

nlohmann::ordered_json special_tokens_of(const json& config, const std::string& name) {
  nlohmann::ordered_json tokens = nlohmann::ordered_json::object();
  for (std::string_view key : kNamedSpecialTokens) {
    const auto it = config.find(std::string(key));
    if (it == config.end() || it->is_null()) continue;
    tokens[std::string(key)] = token_content(*it, std::string(key), name);
  }
  // Model-specific names: transformers 5 collects every other *_token key
  // whose value is a string or an AddedToken (a plain object is not one and
  // stays an ordinary setting), and the entries of a dict extra_special_tokens.
  for (const auto& [key, value] : config.items()) {
    if (is_named_special(key) || !ends_with_token(key)) continue;
    if (value.is_string() || is_added_token(value)) tokens[key] = token_content(value, key, name);
  }
  const char* extra_key = config.contains("extra_special_tokens") ? "extra_special_tokens"
                                                                   : "additional_special_tokens";
  if (const auto extra = config.find(extra_key); extra != config.end() && extra->is_object()) {
    for (const auto& [key, value] : extra->items()) {
      tokens[key] = token_content(value, std::string(extra_key) + "." + key, name);
    }
  }
  return tokens;
}

std::string template_string(const json& value, const std::string& where, const std::string& name) {
  if (!value.is_string()) {
    throw PromptError(name + ": " + where + " must be a string, not " + strict_json::type_name(value));
  }
  return value.get<std::string>();
}

std::map<std::string, std::string> chat_templates_of(const json& config, const std::string& name) {
  std::map<std::string, std::string> templates;
  const auto field = config.find("chat_template");
  if (field == config.end() || field->is_null()) return templates;
  if (field->is_string()) {
    templates["default"] = field->get<std::string>();
  } else if (field->is_array()) {
    // transformers keeps these as {name: template}.
    for (std::size_t i = 0; i < field->size(); ++i) {
      const json& entry = (*field)[i];
      const std::string where = "chat_template[" + std::to_string(i) + "]";
      if (!entry.is_object() || !entry.contains("name") || !entry.contains("template")) {
        throw PromptError(name + ": " + where + " must be an object with \"name\" and \"template\"");
      }
      const std::string entry_name = template_string(entry.at("name"), where + ".name", name);
      if (templates.contains(entry_name)) {
        throw PromptError(name + ": chat_template names \"" + entry_name + "\" twice");
      }
      templates[entry_name] = template_string(entry.at("template"), where + ".template", name);
    }
  } else if (field->is_object()) {
    for (const auto& [key, value] : field->items()) templates[key] = template_string(value, "chat_template." + key, name);
  } else {
    throw PromptError(name + ": chat_template must be a string or a list of {\"name\", \"template\"}, not " +
                      strict_json::type_name(*field));
  }
  return templates;
}

json object_file(const std::string& text, const std::string& name) {
  json value = parse_json_file(text, name);
  if (!value.is_object()) throw PromptError(name + " must hold a JSON object, not " + strict_json::type_name(value));
  return value;
}

// The legacy file's tokens, checked and reduced to their content strings, so
// a bad one is named in its own file.
void merge_legacy_tokens(json& config, const json& legacy, const std::string& legacy_name) {
  for (const auto& [key, value] : legacy.items()) {
    // transformers reads every object here as an AddedToken.
    const bool token = is_named_special(key) ? !value.is_null()
                                             : ends_with_token(key) && (value.is_string() || value.is_object());
    config[key] = token ? json(token_content(value, key, legacy_name)) : value;
  }
}

}  // namespace

TokenizerConfig parse_tokenizer_config(const std::optional<std::string>& config_text, const std::string& config_name,
                                       const std::optional<std::string>& legacy_text,
                                       const std::string& legacy_name) {
  json config = config_text ? object_file(*config_text, config_name) : json::object();
  std::string name = config_name;
  if (legacy_text && !config.contains("added_tokens_decoder")) {
    merge_legacy_tokens(config, object_file(*legacy_text, legacy_name), legacy_name);
    name = config_name + " (with " + legacy_name + ")";
  }
  TokenizerConfig parsed;
  parsed.special_tokens = special_tokens_of(config, name);
  parsed.chat_templates = chat_templates_of(config, config_name);
  return parsed;
}

}  // namespace algenta::prompt
