#pragma once
// Chat templates rendered as Hugging Face transformers renders them: jinja2's
// ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
// extensions=[loopcontrols]) with transformers' tojson, raise_exception and
// strftime_now. Only the subset of Jinja real chat templates use is
// implemented; anything else is refused with a TemplateError naming it.
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "chat/render_options.hpp"
#include "chat/template_error.hpp"

namespace algenta::chat {

struct ParsedTemplate;

class ChatTemplate {
 public:
  // Parses once; throws TemplateError (syntax, unsupported or bound).
  explicit ChatTemplate(std::string_view source, const RenderLimits& limits = {});
  ~ChatTemplate();
  ChatTemplate(ChatTemplate&&) noexcept;
  ChatTemplate& operator=(ChatTemplate&&) noexcept;

  // `context` is a JSON object: messages, tools, add_generation_prompt,
  // bos_token, eos_token, ... (key order is kept, as Python dicts keep it).
  std::string render(const nlohmann::ordered_json& context, const RenderOptions& options = {}) const;

 private:
  std::unique_ptr<ParsedTemplate> parsed_;
};

}  // namespace algenta::chat
