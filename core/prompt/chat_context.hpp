// The context transformers 5 renders a chat template with:
//   render(messages=..., tools=..., documents=..., add_generation_prompt=...,
//          **{**special_tokens_map, **kwargs})
// and the checks apply_chat_template makes on the request first.
#pragma once

#include <nlohmann/json.hpp>

namespace algenta::prompt {

// Throws PromptError naming the field: messages not a non-empty array of
// objects, extra not an object, an extra key that is one of
// apply_chat_template's own parameters, tools or documents not null or an
// array of objects.
nlohmann::ordered_json chat_context(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                                    const nlohmann::ordered_json& special_tokens,
                                    const nlohmann::ordered_json& extra);

// transformers picks a model's "tool_use" template when tools is not None.
bool has_tools(const nlohmann::ordered_json& extra);

}  // namespace algenta::prompt
