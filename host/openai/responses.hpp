// Whole answers: chat.completion and text_completion objects, in OpenAI's
// shapes (logprobs differ per endpoint), and the GET /v1/models list.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace algenta::openai {

enum class FinishReason { stop, length };
const char* finish_reason_name(FinishReason reason);

struct Usage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
};

// One generated token's log-probability and the alternatives asked for.
struct TokenLogprob {
  std::string token;  // its text; may be part of a UTF-8 character
  double logprob = 0.0;
  std::vector<std::pair<std::string, double>> top;  // most likely first
};

// What every object of one answer shares.
struct AnswerMeta {
  std::string id;  // "chatcmpl-..." or "cmpl-..."
  std::int64_t created = 0;  // Unix seconds
  std::string model;
};

// "chatcmpl-" or "cmpl-" and 24 random letters and digits.
std::string new_answer_id(std::string_view prefix);
std::int64_t unix_seconds_now();

nlohmann::ordered_json usage_json(const Usage& usage);

// choices[0].logprobs for chat: {"content": [{token, logprob, bytes, top_logprobs}], "refusal": null}.
nlohmann::ordered_json chat_logprobs(const std::vector<TokenLogprob>& tokens);
// choices[0].logprobs for completions: {tokens, token_logprobs, top_logprobs, text_offset};
// offsets count bytes from `first_offset`.
nlohmann::ordered_json completion_logprobs(const std::vector<TokenLogprob>& tokens,
                                   std::size_t first_offset = 0);

nlohmann::ordered_json chat_completion(const AnswerMeta& meta, const std::string& text,
                               FinishReason finish, const Usage& usage,
                               const std::vector<TokenLogprob>* logprobs = nullptr);
nlohmann::ordered_json text_completion(const AnswerMeta& meta, const std::string& text,
                               FinishReason finish, const Usage& usage,
                               const std::vector<TokenLogprob>* logprobs = nullptr);

// GET /v1/models: one model, owned by algenta; the CPU oracle is marked as
// the verification oracle (owned_by "algenta-oracle", role "verification_oracle").
nlohmann::ordered_json models_list(const std::string& model_id, std::int64_t created, bool is_oracle);

// JSON text that never throws on bytes that are not UTF-8 (a token may be
// half a character): such bytes become U+FFFD.
std::string dump(const nlohmann::ordered_json& value);

}  // namespace algenta::openai
