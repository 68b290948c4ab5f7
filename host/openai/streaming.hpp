// Server-sent events for stream: true, in the order OpenAI sends them.
//   chat:        a chunk with delta {role: assistant, content: ""}, content
//                chunks, a chunk with delta {} and the finish_reason, then
//                (include_usage) a chunk with empty choices and the usage,
//                then "data: [DONE]".
//   completions: text chunks, a chunk with "" and the finish_reason, the
//                usage chunk (include_usage), "data: [DONE]". A server
//                without a tokenizer sends a chunk per token instead, its
//                text "" and its id in "token_ids" (as vLLM's chunks carry
//                them with return_token_ids).
// With include_usage every chunk before the last carries "usage": null.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "openai/responses.hpp"

namespace algenta::openai {

// "data: <json>\n\n"
std::string sse_event(const nlohmann::ordered_json& value);
inline constexpr std::string_view kSseDone = "data: [DONE]\n\n";
inline constexpr std::string_view kSseContentType = "text/event-stream";

class ChatStream {
 public:
  ChatStream(AnswerMeta meta, bool include_usage, bool logprobs)
      : meta_(std::move(meta)), include_usage_(include_usage), logprobs_(logprobs) {}
  std::string start() const;
  // `logprobs` is used only when the request asked for them.
  std::string content(const std::string& text, const std::vector<TokenLogprob>& logprobs = {}) const;
  // The finish chunk, the usage chunk when asked, and [DONE].
  std::string finish(FinishReason reason, const Usage& usage) const;
  // An error after the stream began: OpenAI's error object as an event, then [DONE].
  static std::string error(const std::string& error_json);

 private:
  nlohmann::ordered_json chunk(nlohmann::ordered_json delta, nlohmann::ordered_json logprobs,
                       nlohmann::ordered_json finish_reason) const;
  AnswerMeta meta_;
  bool include_usage_;
  bool logprobs_;
};

class CompletionStream {
 public:
  CompletionStream(AnswerMeta meta, bool include_usage, bool logprobs)
      : meta_(std::move(meta)), include_usage_(include_usage), logprobs_(logprobs) {}
  std::string content(const std::string& text, const std::vector<TokenLogprob>& logprobs = {});
  // A chunk that carries token ids beside its text.
  std::string token_content(const std::string& text, const std::vector<std::int32_t>& token_ids,
                            const std::vector<TokenLogprob>& logprobs = {});
  std::string finish(FinishReason reason, const Usage& usage) const;

 private:
  nlohmann::ordered_json chunk(const std::string& text, nlohmann::ordered_json logprobs,
                       nlohmann::ordered_json finish_reason) const;
  nlohmann::ordered_json content_chunk(const std::string& text,
                                       const std::vector<TokenLogprob>& logprobs);
  AnswerMeta meta_;
  bool include_usage_;
  bool logprobs_;
  std::size_t text_offset_ = 0;  // bytes of text sent so far, for text_offset
};

}  // namespace algenta::openai
