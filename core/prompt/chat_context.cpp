#include "prompt/chat_context.hpp"

#include <array>
#include <string>
#include <string_view>

#include "prompt/prompt_error.hpp"

namespace algenta::prompt {
namespace {

using nlohmann::ordered_json;

// apply_chat_template's (and render_jinja_template's) own parameters: in
// Python they never reach the template as variables (messages and
// add_generation_prompt would even be passed twice).
constexpr std::array<std::string_view, 14> kReservedKeys = {
    "messages",  "conversation",   "conversations", "add_generation_prompt", "chat_template",
    "continue_final_message", "tokenize", "padding", "truncation", "max_length", "return_tensors",
    "return_dict", "return_assistant_tokens_mask", "tokenizer_kwargs"};

const char* type_name(const ordered_json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  return "a number";
}

void check_messages(const ordered_json& messages) {
  if (!messages.is_array()) {
    throw PromptError(std::string("messages must be an array of message objects, not ") + type_name(messages));
  }
  if (messages.empty()) {
    throw PromptError("messages is empty: a chat template needs at least one message");
  }
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (!messages[i].is_object()) {
      throw PromptError("messages[" + std::to_string(i) + "] must be a message object, not " +
                        type_name(messages[i]));
    }
  }
}

// transformers: tools are JSON schemas (dicts), documents dicts.
void check_list_of_objects(const ordered_json& extra, const char* key) {
  const auto it = extra.find(key);
  if (it == extra.end() || it->is_null()) return;
  if (!it->is_array()) {
    throw PromptError(std::string(key) + " must be null or an array of objects, not " + type_name(*it));
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_object()) {
      throw PromptError(std::string(key) + "[" + std::to_string(i) + "] must be an object, not " +
                        type_name((*it)[i]));
    }
  }
}

}  // namespace

bool has_tools(const ordered_json& extra) {
  if (!extra.is_object()) return false;
  const auto it = extra.find("tools");
  return it != extra.end() && !it->is_null();
}

ordered_json chat_context(const ordered_json& messages, bool add_generation_prompt,
                          const ordered_json& special_tokens, const ordered_json& extra) {
  check_messages(messages);
  if (!extra.is_object()) {
    throw PromptError(std::string("the extra template variables must be an object, not ") + type_name(extra));
  }
  for (std::string_view reserved : kReservedKeys) {
    if (extra.contains(reserved)) {
      throw PromptError("extra template variable \"" + std::string(reserved) +
                        "\" is a parameter of apply_chat_template, not a template variable");
    }
  }
  check_list_of_objects(extra, "tools");
  check_list_of_objects(extra, "documents");

  ordered_json context = ordered_json::object();
  context["messages"] = messages;
  context["tools"] = extra.value("tools", ordered_json());
  context["documents"] = extra.value("documents", ordered_json());
  context["add_generation_prompt"] = add_generation_prompt;
  for (const auto& [key, value] : special_tokens.items()) context[key] = value;
  // Later keys win in place, as {**special_tokens_map, **kwargs} does.
  for (const auto& [key, value] : extra.items()) {
    if (key != "tools" && key != "documents") context[key] = value;
  }
  return context;
}

}  // namespace algenta::prompt
