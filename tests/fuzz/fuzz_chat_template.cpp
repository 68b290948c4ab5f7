// Fuzzes the chat template parser and renderer: the input is a template,
// optionally followed by a NUL byte and a JSON context. Only TemplateError may
// escape; the limits keep every input finite.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "chat/chat_template.hpp"

namespace {

const nlohmann::ordered_json& default_context() {
  static const auto ctx = nlohmann::ordered_json::parse(R"({
    "messages": [{"role": "system", "content": "sys"},
                 {"role": "user", "content": [{"type": "text", "text": "h\u00e9"}, {"type": "image"}]},
                 {"role": "assistant", "content": "<think>r</think>a",
                  "tool_calls": [{"id": "abcdefghi", "type": "function",
                                  "function": {"name": "f", "arguments": {"x": 1.5, "y": [null, true]}}}]},
                 {"role": "tool", "content": "out", "tool_call_id": "abcdefghi"}],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>", "enable_thinking": false})");
  return ctx;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view source = input;
  nlohmann::ordered_json context = default_context();
  if (auto nul = input.find('\0'); nul != std::string_view::npos) {
    source = input.substr(0, nul);
    auto parsed = nlohmann::ordered_json::parse(input.substr(nul + 1), nullptr, false);
    if (!parsed.is_discarded() && parsed.is_object()) context = std::move(parsed);
  }
  algenta::chat::RenderOptions options;
  options.frozen_now = 0;
  options.limits.max_output_bytes = 1 << 20;
  options.limits.max_loop_iterations = 20000;
  options.limits.max_call_depth = 32;
  options.limits.max_nesting = 64;
  options.limits.max_range = 10000;
  try {
    algenta::chat::ChatTemplate tmpl(source, options.limits);
    (void)tmpl.render(context, options);
  } catch (const algenta::chat::TemplateError&) {
  }
  return 0;
}
