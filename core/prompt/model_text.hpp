// A model's text side as Hugging Face transformers sees it: the tokenizer,
// the chat template with the special tokens it is rendered with, and the ids
// that end generation. Turns chat messages or prompt text into token ids the
// way apply_chat_template (transformers 5) and vLLM's /v1/completions do.
//
// Loaded once; every const member may be called from several threads at once
// (rendering and encoding keep no state between calls).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "chat/chat_template.hpp"
#include "prompt/prompt_error.hpp"
#include "tokenizer/tokenizer.hpp"
#include "tokenizer/tokenizer_error.hpp"

namespace algenta::prompt {

class ModelText {
 public:
  // Reads DIR/tokenizer.json (required), DIR/tokenizer_config.json (optional;
  // DIR/special_tokens_map.json too when the config has no
  // added_tokens_decoder, as transformers 5 does),
  // DIR/chat_template.jinja (optional; takes precedence over tokenizer_config's
  // chat_template as transformers 4.43+ does), DIR/generation_config.json
  // (optional, for eos ids). `template_override` (the --chat-template FILE)
  // replaces both. Every file is size-checked before it is read (caps in
  // prompt/prompt_files.hpp). Throws PromptError / tokenizer::TokenizerError /
  // chat::TemplateError (a template that does not parse).
  static ModelText load(const std::filesystem::path& model_dir,
                        const std::optional<std::filesystem::path>& template_override = std::nullopt);
  // A model served without text (synthetic weights have no tokenizer): no
  // chat template, no end ids; encode_chat and encode_text throw PromptError.
  static ModelText without_tokenizer();

  bool has_tokenizer() const { return tokenizer_ != nullptr; }
  // Only when has_tokenizer().
  const tokenizer::Tokenizer& tokenizer() const;

  // True when render_chat has a template for a request without tools: a
  // single template, or a list of named templates holding "default".
  bool has_chat_template() const;
  // Where the template came from, for logs ("DIR/chat_template.jinja",
  // "tokenizer_config.json", "--chat-template FILE"); empty when none.
  std::string chat_template_source() const;

  // transformers' apply_chat_template(messages, add_generation_prompt=...,
  // tokenize=False, **extra). The context, in transformers' order: messages,
  // tools (extra's, else null), documents (extra's, else null),
  // add_generation_prompt, the special tokens of tokenizer_config (bos_token,
  // eos_token, unk_token, sep_token, pad_token, cls_token, mask_token, then
  // the model's own *_token names, each as its content string; absent or
  // null ones left out), then the other keys of `extra` (e.g. enable_thinking;
  // a key equal to a special token's name replaces it).
  // `messages` must be a non-empty array (transformers refuses an empty
  // conversation); `extra` an object without apply_chat_template's own
  // parameters (messages, add_generation_prompt, chat_template, tokenize,
  // continue_final_message, ...), its tools and documents null or arrays of
  // objects. With a list of named templates, non-null tools pick "tool_use"
  // when there is one, as transformers does; otherwise "default".
  // Throws chat::TemplateError; PromptError for such a request or when there
  // is no template.
  std::string render_chat(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                          const nlohmann::ordered_json& extra = nlohmann::ordered_json::object(),
                          const chat::RenderOptions& options = {}) const;

  // apply_chat_template(tokenize=True): the rendered text encoded with
  // add_special_tokens=false (no second BOS). Also throws TokenizerError.
  std::vector<std::int32_t> encode_chat(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                                        const nlohmann::ordered_json& extra = nlohmann::ordered_json::object(),
                                        const chat::RenderOptions& options = {}) const;

  // A completion prompt: encode(text, add_special_tokens=true), as vLLM's
  // /v1/completions does. Throws TokenizerError (text that is not UTF-8).
  std::vector<std::int32_t> encode_text(std::string_view text) const;

  // Ids that end generation: generation_config.json eos_token_id (int or
  // list) plus tokenizer_config's eos_token id; sorted, unique; may be empty.
  // An eos_token the vocabulary lacks adds no id (transformers' eos_token_id
  // is None then).
  const std::vector<std::int32_t>& eos_token_ids() const;

  // The special tokens rendering passes, in order ({"bos_token": "<s>", ...}).
  const nlohmann::ordered_json& special_tokens() const;

 private:
  explicit ModelText(std::shared_ptr<const tokenizer::Tokenizer> tokenizer) : tokenizer_(std::move(tokenizer)) {}
  const chat::ChatTemplate& pick_template(const nlohmann::ordered_json& extra) const;

  // Shared, as the parsed templates are: a copy of ModelText costs little.
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer_;
  // Named templates ("default" for a single one).
  std::map<std::string, std::shared_ptr<const chat::ChatTemplate>> templates_;
  std::string template_source_;
  nlohmann::ordered_json special_tokens_ = nlohmann::ordered_json::object();
  std::vector<std::int32_t> eos_token_ids_;
};

}  // namespace algenta::prompt
