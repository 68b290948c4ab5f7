#include "serve/request_spec.hpp"

#include <algorithm>
#include <random>
#include <string>

#include "chat/template_error.hpp"
#include "openai/errors.hpp"
#include "sampling/sampling_params.hpp"
#include "tokenizer/tokenizer_error.hpp"

namespace algenta::serve {
namespace {

using openai::ApiError;
using openai::ErrorKind;

// OpenAI's (and vLLM's) default max_tokens for /v1/completions.
constexpr std::uint64_t kCompletionDefaultMaxTokens = 16;

// A model without a tokenizer is served only from synthetic weights.
constexpr const char* kNoTokenizer =
    "this server has no tokenizer: it serves synthetic weights (--synthetic-weights)";

void need_tokenizer(const prompt::ModelText& text, const std::string& what, const char* param) {
  if (!text.has_tokenizer()) {
    throw ApiError(ErrorKind::invalid_request, std::string(kNoTokenizer) + "; " + what, param);
  }
}

std::uint64_t fresh_seed() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) | device();
}

sampling::SamplingParams sampling_params(const openai::Sampling& s, bool logprobs, int top_logprobs) {
  sampling::SamplingParams p;
  p.temperature = s.temperature;
  p.top_p = s.top_p;
  p.top_k = s.top_k.value_or(-1);
  p.min_p = s.min_p;
  p.presence_penalty = s.presence_penalty;
  p.frequency_penalty = s.frequency_penalty;
  p.repetition_penalty = s.repetition_penalty;
  p.logprobs = logprobs;
  p.top_logprobs = logprobs ? top_logprobs : 0;
  try {
    sampling::validate(p);
  } catch (const sampling::SamplingError& e) {
    throw ApiError(ErrorKind::invalid_request, e.what());
  }
  return p;
}

// The rules shared by both endpoints, with the prompt's length checked
// against the context and max_tokens fitted to what is left.
// `default_max_tokens`: when the request names none (0: the rest of the context).
GenerationSpec decoding_spec(std::vector<std::int32_t> prompt, const openai::Sampling& s,
                             bool logprobs, int top_logprobs, const prompt::ModelText& text,
                             const ContextLimits& limits, std::uint64_t default_max_tokens) {
  const std::uint64_t context = limits.max_context;
  const std::uint64_t prompt_cap = limits.max_prompt_tokens ? limits.max_prompt_tokens : context - 1;
  if (prompt.empty()) {
    throw ApiError(ErrorKind::invalid_request, "the prompt is empty (it needs at least one token)",
                   "prompt");
  }
  if (prompt.size() > prompt_cap || prompt.size() >= context) {
    throw ApiError(ErrorKind::invalid_request,
                   "the prompt has " + std::to_string(prompt.size()) +
                       " tokens; this server takes at most " +
                       std::to_string(std::min<std::uint64_t>(prompt_cap, context - 1)) +
                       " (the model's context is " + std::to_string(context) +
                       " tokens, and at least one must be left to generate)");
  }
  if (!s.stop.empty()) {
    need_tokenizer(text, "stop strings cannot be matched, use stop_token_ids", "stop");
  }
  const std::uint64_t room = context - prompt.size();
  if (s.max_tokens && std::uint64_t(*s.max_tokens) > room) {
    throw ApiError(ErrorKind::invalid_request,
                   "max_tokens is " + std::to_string(*s.max_tokens) + ", but the context is " +
                       std::to_string(context) + " tokens and the prompt uses " +
                       std::to_string(prompt.size()) + ", so at most " + std::to_string(room) +
                       " can be generated",
                   "max_tokens");
  }
  GenerationSpec spec;
  spec.prompt = std::move(prompt);
  spec.params = sampling_params(s, logprobs, top_logprobs);
  spec.seed = s.seed ? static_cast<std::uint64_t>(*s.seed) : fresh_seed();
  const std::uint64_t unnamed = default_max_tokens ? std::min(default_max_tokens, room) : room;
  spec.max_tokens = static_cast<std::uint32_t>(s.max_tokens ? std::uint64_t(*s.max_tokens) : unnamed);
  spec.min_tokens = static_cast<std::uint32_t>(s.min_tokens);
  spec.stop_strings = s.stop;
  for (std::int64_t id : s.stop_token_ids) spec.stop_token_ids.push_back(static_cast<std::int32_t>(id));
  spec.eos_token_ids = text.eos_token_ids();
  spec.ignore_eos = s.ignore_eos;
  return spec;
}

nlohmann::ordered_json template_messages(const std::vector<openai::ChatMessage>& messages) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const openai::ChatMessage& m : messages) {
    nlohmann::ordered_json message = {{"role", m.role}, {"content", m.content}};
    if (m.name) message["name"] = *m.name;
    if (m.tool_call_id) message["tool_call_id"] = *m.tool_call_id;
    out.push_back(std::move(message));
  }
  return out;
}

}  // namespace

GenerationSpec chat_spec(const openai::ChatRequest& request, const prompt::ModelText& text,
                         const ContextLimits& limits) {
  need_tokenizer(text, "send the prompt as a list of token ids to /v1/completions", "messages");
  if (!text.has_chat_template()) {
    throw ApiError(ErrorKind::invalid_request,
                   "this model has no chat template (none in tokenizer_config.json or "
                   "chat_template.jinja, and no --chat-template was given); use /v1/completions",
                   "messages");
  }
  std::vector<std::int32_t> prompt;
  try {
    prompt = text.encode_chat(template_messages(request.messages), /*add_generation_prompt=*/true);
  } catch (const chat::TemplateError& e) {
    // A template's own raise_exception is the model's refusal of the
    // conversation: its message goes to the client as jinja2 words it.
    const bool raised = e.kind() == chat::ErrorKind::raised;
    throw ApiError(ErrorKind::invalid_request,
                   raised ? e.bare_message()
                          : std::string("the chat template could not render these messages: ") + e.what(),
                   "messages");
  } catch (const tokenizer::TokenizerError& e) {
    throw ApiError(ErrorKind::invalid_request, e.what(), "messages");
  } catch (const prompt::PromptError& e) {
    throw ApiError(ErrorKind::invalid_request, e.what(), "messages");
  }
  // Chat answers run to their end by default, as OpenAI's do.
  return decoding_spec(std::move(prompt), request.sampling, request.logprobs, request.top_logprobs,
                       text, limits, 0);
}

GenerationSpec completion_spec(const openai::CompletionRequest& request,
                               const prompt::ModelText& text, const ContextLimits& limits) {
  std::vector<std::int32_t> prompt;
  if (const auto* words = std::get_if<std::string>(&request.prompt)) {
    need_tokenizer(text, "send the prompt as a list of token ids", "prompt");
    try {
      prompt = text.encode_text(*words);
    } catch (const tokenizer::TokenizerError& e) {
      throw ApiError(ErrorKind::invalid_request, e.what(), "prompt");
    }
  } else {
    // The parser has bounded each id by RequestCaps::max_token_id (the
    // vocabulary's last id), naming the index of one outside it.
    for (const std::int64_t id : std::get<std::vector<std::int64_t>>(request.prompt)) {
      prompt.push_back(static_cast<std::int32_t>(id));
    }
  }
  const int top = request.logprobs.value_or(0);
  return decoding_spec(std::move(prompt), request.sampling, request.logprobs.has_value(), top, text,
                       limits, kCompletionDefaultMaxTokens);
}

}  // namespace algenta::serve
