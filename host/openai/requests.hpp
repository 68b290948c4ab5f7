// POST /v1/chat/completions and /v1/completions bodies, parsed strictly: a
// wrong type, a value out of range, an unknown field, or a field that would
// change the output in a way this server does not implement is a 400
// naming the field. Nothing is silently ignored but `user`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace algenta::openai {

struct RequestCaps {
  std::int64_t max_tokens = 1 << 20;  // the largest max_tokens accepted
  std::size_t max_messages = 4096;
  std::size_t max_stop_sequences = 16;
  std::size_t max_stop_bytes = 256;  // per stop string
  std::size_t max_stop_token_ids = 256;
  std::size_t max_prompt_token_ids = 1 << 20;
  std::int64_t max_token_id = INT32_MAX;
  int max_top_logprobs = 20;
};

// What both endpoints share: everything that steers decoding.
struct Sampling {
  std::optional<std::int64_t> max_tokens;  // max_tokens or max_completion_tokens
  double temperature = 1.0;
  double top_p = 1.0;
  std::optional<std::int64_t> top_k;  // nullopt: off (0 and -1 also mean off)
  double min_p = 0.0;
  double presence_penalty = 0.0;
  double frequency_penalty = 0.0;
  double repetition_penalty = 1.0;
  std::optional<std::int64_t> seed;
  std::vector<std::string> stop;
  std::vector<std::int64_t> stop_token_ids;
  bool ignore_eos = false;
  std::int64_t min_tokens = 0;
};

struct Streaming {
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
};

struct ChatMessage {
  std::string role;  // system | user | assistant | tool
  std::string content;  // text parts joined in order
  std::optional<std::string> name;
  std::optional<std::string> tool_call_id;
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  Sampling sampling;
  Streaming streaming;
  bool logprobs = false;
  int top_logprobs = 0;
  bool return_token_ids = false;  // vLLM's extension: prompt and answer token ids
};

// A prompt as text or as token ids.
using Prompt = std::variant<std::string, std::vector<std::int64_t>>;

struct CompletionRequest {
  std::string model;
  Prompt prompt;
  Sampling sampling;
  Streaming streaming;
  std::optional<int> logprobs;  // how many alternatives per token; nullopt: none
  bool return_token_ids = false;  // vLLM's extension: prompt and answer token ids
};

// Throw ApiError (invalid_request) naming the field.
ChatRequest parse_chat_request(std::string_view body, const RequestCaps& caps = {});
CompletionRequest parse_completion_request(std::string_view body, const RequestCaps& caps = {});

// 404 model_not_found unless `requested` is the served model's id.
void check_model(const std::string& requested, const std::string& served);

}  // namespace algenta::openai
