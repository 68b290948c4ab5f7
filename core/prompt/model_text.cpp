#include "prompt/model_text.hpp"

#include <algorithm>
#include <limits>

#include "prompt/chat_context.hpp"
#include "prompt/generation_config.hpp"
#include "prompt/prompt_files.hpp"
#include "prompt/tokenizer_config.hpp"

namespace algenta::prompt {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const tokenizer::Tokenizer> load_tokenizer(const fs::path& path) {
  const std::string text = read_model_file(path, kTokenizerJsonCap);
  try {
    return std::make_shared<const tokenizer::Tokenizer>(tokenizer::Tokenizer::from_json_text(text));
  } catch (const tokenizer::TokenizerError& e) {
    throw tokenizer::TokenizerError(path.string() + ": " + e.what());
  }
}

// A template that does not parse is refused at load, naming where it came from.
std::shared_ptr<const chat::ChatTemplate> parse_template(const std::string& text, const std::string& source,
                                                         const std::string& name) {
  try {
    return std::make_shared<const chat::ChatTemplate>(text);
  } catch (const chat::TemplateError& e) {
    const std::string label = name == "default" ? source : source + " (template \"" + name + "\")";
    const std::string at = e.where().line == 0 ? std::string()
                                               : ", line " + std::to_string(e.where().line) + ":" +
                                                     std::to_string(e.where().column);
    throw chat::TemplateError(e.kind(), label + at + ": " + e.bare_message());
  }
}

std::vector<std::int32_t> to_int32(const std::vector<std::uint32_t>& ids) {
  std::vector<std::int32_t> out;
  out.reserve(ids.size());
  for (std::uint32_t id : ids) {
    if (id > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())) {
      throw PromptError("token id " + std::to_string(id) + " does not fit the engine's 31-bit ids");
    }
    out.push_back(static_cast<std::int32_t>(id));
  }
  return out;
}

std::string template_names(const std::map<std::string, std::shared_ptr<const chat::ChatTemplate>>& templates) {
  std::string names;
  for (const auto& [name, _] : templates) names += (names.empty() ? "\"" : ", \"") + name + "\"";
  return names;
}

}  // namespace

ModelText ModelText::load(const fs::path& model_dir, const std::optional<fs::path>& template_override) {
  ModelText text(load_tokenizer(model_dir / "tokenizer.json"));

  const fs::path config_path = model_dir / "tokenizer_config.json";
  const fs::path legacy_path = model_dir / "special_tokens_map.json";
  const TokenizerConfig config = parse_tokenizer_config(
      read_model_file_if_present(config_path, kTokenizerConfigCap), config_path.string(),
      read_model_file_if_present(legacy_path, kSpecialTokensMapCap), legacy_path.string());
  text.special_tokens_ = config.special_tokens;

  // Precedence as transformers loads it: chat_template.jinja replaces the
  // config's field; the operator's file replaces both.
  std::map<std::string, std::string> sources;
  const fs::path jinja_path = model_dir / "chat_template.jinja";
  if (template_override) {
    text.template_source_ = "--chat-template " + template_override->string();
    sources["default"] = template_text(read_model_file(*template_override, kChatTemplateCap),
                                       template_override->string());
  } else if (auto bytes = read_model_file_if_present(jinja_path, kChatTemplateCap)) {
    text.template_source_ = jinja_path.string();
    sources["default"] = template_text(*bytes, jinja_path.string());
  } else if (!config.chat_templates.empty()) {
    text.template_source_ = config_path.string();
    sources = config.chat_templates;
  }
  for (const auto& [name, source] : sources) {
    text.templates_[name] = parse_template(source, text.template_source_, name);
  }

  const fs::path generation_path = model_dir / "generation_config.json";
  if (auto bytes = read_model_file_if_present(generation_path, kGenerationConfigCap)) {
    text.eos_token_ids_ = generation_eos_ids(*bytes, generation_path.string());
  }
  if (const auto eos = text.special_tokens_.find("eos_token"); eos != text.special_tokens_.end()) {
    if (const auto id = text.tokenizer_->token_to_id(eos->get<std::string>())) {
      if (*id <= static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())) {
        text.eos_token_ids_.push_back(static_cast<std::int32_t>(*id));
      }
    }
  }
  std::sort(text.eos_token_ids_.begin(), text.eos_token_ids_.end());
  text.eos_token_ids_.erase(std::unique(text.eos_token_ids_.begin(), text.eos_token_ids_.end()),
                            text.eos_token_ids_.end());
  return text;
}

ModelText ModelText::without_tokenizer() { return ModelText(nullptr); }

const tokenizer::Tokenizer& ModelText::tokenizer() const {
  if (!tokenizer_) throw PromptError("this model has no tokenizer");
  return *tokenizer_;
}

bool ModelText::has_chat_template() const { return templates_.contains("default"); }

std::string ModelText::chat_template_source() const { return template_source_; }

const chat::ChatTemplate& ModelText::pick_template(const nlohmann::ordered_json& extra) const {
  if (has_tools(extra)) {
    if (const auto it = templates_.find("tool_use"); it != templates_.end()) return *it->second;
  }
  if (const auto it = templates_.find("default"); it != templates_.end()) return *it->second;
  if (templates_.empty()) {
    throw PromptError("the model has no chat template (no chat_template.jinja, no chat_template in "
                      "tokenizer_config.json); name one with --chat-template");
  }
  throw PromptError(template_source_ + " holds chat templates named " + template_names(templates_) +
                    " but none named \"default\"" +
                    (templates_.contains("tool_use") ? " (\"tool_use\" serves requests with tools)" : ""));
}

std::string ModelText::render_chat(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                                   const nlohmann::ordered_json& extra, const chat::RenderOptions& options) const {
  const nlohmann::ordered_json context = chat_context(messages, add_generation_prompt, special_tokens_, extra);
  return pick_template(extra).render(context, options);
}

std::vector<std::int32_t> ModelText::encode_chat(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                                                 const nlohmann::ordered_json& extra,
                                                 const chat::RenderOptions& options) const {
  return to_int32(tokenizer().encode(render_chat(messages, add_generation_prompt, extra, options), false));
}

std::vector<std::int32_t> ModelText::encode_text(std::string_view text) const {
  return to_int32(tokenizer().encode(text, true));
}

const std::vector<std::int32_t>& ModelText::eos_token_ids() const { return eos_token_ids_; }

const nlohmann::ordered_json& ModelText::special_tokens() const { return special_tokens_; }

}  // namespace algenta::prompt
