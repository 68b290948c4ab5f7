#include "chat/chat_template.hpp"

#include "chat/ast.hpp"
#include "chat/json_value.hpp"
#include "chat/parser.hpp"
#include "chat/renderer.hpp"

namespace algenta::chat {

ChatTemplate::ChatTemplate(std::string_view source, const RenderLimits& limits)
    : parsed_(std::make_unique<ParsedTemplate>(parse_template(source, ParseLimits{limits.max_nesting}))) {}

ChatTemplate::~ChatTemplate() = default;
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;
ChatTemplate& ChatTemplate::operator=(ChatTemplate&&) noexcept = default;

std::string ChatTemplate::render(const nlohmann::ordered_json& context, const RenderOptions& options) const {
  if (!context.is_object()) fail(ErrorKind::runtime, "the render context must be a JSON object");
  Value ctx = value_from_json(context, options.limits.max_nesting);
  Renderer renderer(options, std::move(ctx));
  return renderer.render(*parsed_);
}

}  // namespace algenta::chat
