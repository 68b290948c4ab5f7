// What rendering needs from tokenizer_config.json, read as transformers 5
// reads it: the named special tokens and the chat_template field.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace algenta::prompt {

struct TokenizerConfig {
  // transformers' special_tokens_map: bos_token, eos_token, unk_token,
  // sep_token, pad_token, cls_token, mask_token (in that order, those set and
  // not null), then the model's own *_token names (e.g. Gemma-3's
  // image_token) and those of a dict extra_special_tokens, by name. Each
  // value is the token's content string.
  nlohmann::ordered_json special_tokens = nlohmann::ordered_json::object();
  // chat_template: a string is {"default": it}; a list of {"name",
  // "template"} (or an object of name -> template) is the named set.
  std::map<std::string, std::string> chat_templates;
};

// `config_text` is tokenizer_config.json (nullopt: absent), `legacy_text`
// special_tokens_map.json (nullopt: absent). As transformers 5 loads them,
// the legacy file counts only when the config has no added_tokens_decoder,
// and then its entries replace the config's. Names appear in errors
// (PromptError).
TokenizerConfig parse_tokenizer_config(const std::optional<std::string>& config_text, const std::string& config_name,
                                       const std::optional<std::string>& legacy_text,
                                       const std::string& legacy_name);

}  // namespace algenta::prompt
