// POST /v1/chat/completions.
#include <array>

#include "json/strict_json.hpp"
#include "openai/request_common.hpp"

namespace algenta::openai {
namespace {

constexpr std::array<const char*, 4> kRoles{"system", "user", "assistant", "tool"};

// A string, or a list of {"type": "text", "text": ...} parts joined in order.
std::string read_content(FieldReader& message, const std::string& role) {
  const nlohmann::json* v = message.get("content");
  if (!v) {
    message.fail("content", "'" + message.name("content") + "' is required for a " + role +
                                " message (tool calls are not supported)");
  }
  if (v->is_string()) return v->get<std::string>();
  if (!v->is_array()) {
    message.wrong_type("content", "a string or a list of text parts", *v);
  }
  std::string text;
  for (std::size_t j = 0; j < v->size(); ++j) {
    const nlohmann::json& part = (*v)[j];
    const std::string prefix = message.name("content") + "[" + std::to_string(j) + "].";
    if (!part.is_object()) {
      message.wrong_type("content", ("a list of text parts (item " + std::to_string(j) +
                                     " is not an object)").c_str(),
                         part);
    }
    FieldReader fields(part, prefix);
    const auto type = fields.string("type");
    if (!type) fields.fail("type", "'" + fields.name("type") + "' is required");
    if (*type != "text") {
      fields.fail("type", "'" + fields.name("type") + "' is \"" + *type +
                              "\": this server accepts text parts only");
    }
    const auto part_text = fields.string("text");
    if (!part_text) fields.fail("text", "'" + fields.name("text") + "' is required");
    fields.refuse_unknown();
    text += *part_text;
  }
  return text;
}

ChatMessage read_message(const nlohmann::json& value, std::size_t i) {
  const std::string prefix = "messages[" + std::to_string(i) + "].";
  FieldReader fields(value, prefix);
  if (!value.is_object()) {
    throw ApiError(ErrorKind::invalid_request,
                   "'messages[" + std::to_string(i) + "]' must be an object, got " +
                       strict_json::type_name(value),
                   "messages[" + std::to_string(i) + "]");
  }
  ChatMessage m;
  const auto role = fields.string("role");
  if (!role) fields.fail("role", "'" + fields.name("role") + "' is required");
  bool known = false;
  for (const char* r : kRoles) known = known || *role == r;
  if (!known) {
    fields.fail("role", "'" + fields.name("role") + "' is \"" + *role +
                            "\"; it must be system, user, assistant or tool");
  }
  m.role = *role;
  m.content = read_content(fields, m.role);
  m.name = fields.string("name");
  m.tool_call_id = fields.string("tool_call_id");
  fields.refuse_unless_empty("tool_calls", "tool calls are not implemented");
  fields.refuse_unless("function_call", nullptr, "function calls are not implemented");
  fields.refuse_unknown();
  return m;
}

}  // namespace

ChatRequest parse_chat_request(std::string_view body, const RequestCaps& caps) {
  const nlohmann::json root = detail::parse_body(body);
  FieldReader fields(root, "");
  ChatRequest r;
  r.model = detail::read_model(fields);
  const nlohmann::json* messages = fields.get("messages");
  if (!messages) fields.fail("messages", "'messages' is required (a non-empty list)");
  if (!messages->is_array()) fields.wrong_type("messages", "a list of messages", *messages);
  if (messages->empty()) fields.fail("messages", "'messages' is empty");
  if (messages->size() > caps.max_messages) {
    fields.fail("messages", "'messages' has " + std::to_string(messages->size()) +
                                " messages, over the cap of " + std::to_string(caps.max_messages));
  }
  for (std::size_t i = 0; i < messages->size(); ++i) {
    r.messages.push_back(read_message((*messages)[i], i));
  }
  r.sampling = detail::read_sampling(fields, caps);
  r.streaming = detail::read_streaming(fields);
  r.logprobs = fields.boolean("logprobs").value_or(false);
  r.top_logprobs = static_cast<int>(fields.integer("top_logprobs", 0, caps.max_top_logprobs).value_or(0));
  if (r.top_logprobs > 0 && !r.logprobs) {
    fields.fail("top_logprobs", "'top_logprobs' needs 'logprobs': true");
  }
  r.return_token_ids = detail::read_return_token_ids(fields, r.streaming);
  detail::read_shared_refusals(fields);
  fields.refuse_unless_empty("tools", "tool calling is not implemented");
  fields.refuse_unless_empty("functions", "function calling is not implemented");
  fields.refuse_unless("tool_choice", "none", "tool calling is not implemented");
  fields.refuse_unless("function_call", "none", "function calling is not implemented");
  fields.refuse_unless("parallel_tool_calls", false, "tool calling is not implemented");
  fields.refuse_unless("response_format", nlohmann::json{{"type", "text"}},
                       "structured output is not implemented");
  fields.refuse_unknown();
  return r;
}

}  // namespace algenta::openai
