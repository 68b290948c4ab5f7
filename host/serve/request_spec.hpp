// From a parsed OpenAI request to what the engine loop runs: the prompt's
// token ids (chat template or text, or ids as given) and the decoding rules,
// checked against the served context. Token ids arrive already bounded by
// the parser's RequestCaps::max_token_id. Every refusal is an ApiError (400)
// naming the field, the value and the allowed range. A model without a
// tokenizer (synthetic weights) takes token-id prompts only: chat, text
// prompts and stop strings are refused with a 400 that says so.
#pragma once

#include <cstdint>

#include "openai/requests.hpp"
#include "prompt/model_text.hpp"
#include "serve/generation.hpp"

namespace algenta::serve {

struct ContextLimits {
  std::uint32_t max_context = 0;       // tokens per sequence the engine serves
  std::uint32_t max_prompt_tokens = 0; // 0: max_context - 1
};

GenerationSpec chat_spec(const openai::ChatRequest& request, const prompt::ModelText& text,
                         const ContextLimits& limits);
GenerationSpec completion_spec(const openai::CompletionRequest& request,
                               const prompt::ModelText& text, const ContextLimits& limits);

}  // namespace algenta::serve
