#include "openai/streaming.hpp"

namespace algenta::openai {

std::string sse_event(const nlohmann::ordered_json& value) { return "data: " + dump(value) + "\n\n"; }

namespace {

nlohmann::ordered_json usage_chunk(const AnswerMeta& meta, const char* object, const Usage& usage) {
  return {{"id", meta.id},
          {"object", object},
          {"created", meta.created},
          {"model", meta.model},
          {"choices", nlohmann::ordered_json::array()},
          {"usage", usage_json(usage)}};
}

}  // namespace

nlohmann::ordered_json ChatStream::chunk(nlohmann::ordered_json delta, nlohmann::ordered_json logprobs,
                                 nlohmann::ordered_json finish_reason) const {
  nlohmann::ordered_json choice = {{"index", 0},
                           {"delta", std::move(delta)},
                           {"logprobs", std::move(logprobs)},
                           {"finish_reason", std::move(finish_reason)}};
  nlohmann::ordered_json c = {{"id", meta_.id},
                      {"object", "chat.completion.chunk"},
                      {"created", meta_.created},
                      {"model", meta_.model},
                      {"choices", nlohmann::ordered_json::array({std::move(choice)})}};
  if (include_usage_) c["usage"] = nullptr;
  return c;
}

std::string ChatStream::start() const {
  return sse_event(chunk({{"role", "assistant"}, {"content", ""}}, nullptr, nullptr));
}

std::string ChatStream::content(const std::string& text,
                                const std::vector<TokenLogprob>& logprobs) const {
  return sse_event(chunk({{"content", text}},
                         logprobs_ ? chat_logprobs(logprobs) : nlohmann::ordered_json(nullptr), nullptr));
}

std::string ChatStream::finish(FinishReason reason, const Usage& usage) const {
  std::string out =
      sse_event(chunk(nlohmann::ordered_json::object(), nullptr, finish_reason_name(reason)));
  if (include_usage_) out += sse_event(usage_chunk(meta_, "chat.completion.chunk", usage));
  out += kSseDone;
  return out;
}

std::string ChatStream::error(const std::string& error_json) {
  return "data: " + error_json + "\n\n" + std::string(kSseDone);
}

nlohmann::ordered_json CompletionStream::chunk(const std::string& text, nlohmann::ordered_json logprobs,
                                       nlohmann::ordered_json finish_reason) const {
  nlohmann::ordered_json choice = {{"index", 0},
                           {"text", text},
                           {"logprobs", std::move(logprobs)},
                           {"finish_reason", std::move(finish_reason)}};
  nlohmann::ordered_json c = {{"id", meta_.id},
                      {"object", "text_completion"},
                      {"created", meta_.created},
                      {"model", meta_.model},
                      {"choices", nlohmann::ordered_json::array({std::move(choice)})}};
  if (include_usage_) c["usage"] = nullptr;
  return c;
}

nlohmann::ordered_json CompletionStream::content_chunk(const std::string& text,
                                                      const std::vector<TokenLogprob>& logprobs) {
  nlohmann::ordered_json lp = logprobs_ ? completion_logprobs(logprobs, text_offset_) : nlohmann::ordered_json(nullptr);
  text_offset_ += text.size();
  return chunk(text, std::move(lp), nullptr);
}

std::string CompletionStream::content(const std::string& text,
                                      const std::vector<TokenLogprob>& logprobs) {
  return sse_event(content_chunk(text, logprobs));
}

std::string CompletionStream::token_content(const std::string& text,
                                            const std::vector<std::int32_t>& token_ids,
                                            const std::vector<TokenLogprob>& logprobs) {
  nlohmann::ordered_json c = content_chunk(text, logprobs);
  c["choices"][0]["token_ids"] = token_ids;
  return sse_event(c);
}

std::string CompletionStream::finish(FinishReason reason, const Usage& usage) const {
  std::string out = sse_event(chunk("", nullptr, finish_reason_name(reason)));
  if (include_usage_) out += sse_event(usage_chunk(meta_, "text_completion", usage));
  out += kSseDone;
  return out;
}

}  // namespace algenta::openai
