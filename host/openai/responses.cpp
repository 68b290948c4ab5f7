#include "openai/responses.hpp"

#include <chrono>
#include <random>

namespace algenta::openai {

const char* finish_reason_name(FinishReason reason) {
  return reason == FinishReason::length ? "length" : "stop";
}

std::string new_answer_id(std::string_view prefix) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 random{std::random_device{}()};
  std::uniform_int_distribution<std::size_t> pick(0, sizeof kAlphabet - 2);
  std::string id(prefix);
  for (int i = 0; i < 24; ++i) id += kAlphabet[pick(random)];
  return id;
}

std::int64_t unix_seconds_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string dump(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

nlohmann::ordered_json usage_json(const Usage& usage) {
  return {{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

namespace {

nlohmann::ordered_json token_bytes(const std::string& token) {
  nlohmann::ordered_json bytes = nlohmann::ordered_json::array();
  for (unsigned char c : token) bytes.push_back(static_cast<int>(c));
  return bytes;
}

}  // namespace

nlohmann::ordered_json chat_logprobs(const std::vector<TokenLogprob>& tokens) {
  nlohmann::ordered_json content = nlohmann::ordered_json::array();
  for (const TokenLogprob& t : tokens) {
    nlohmann::ordered_json top = nlohmann::ordered_json::array();
    for (const auto& [token, logprob] : t.top) {
      top.push_back({{"token", token}, {"logprob", logprob}, {"bytes", token_bytes(token)}});
    }
    content.push_back({{"token", t.token},
                       {"logprob", t.logprob},
                       {"bytes", token_bytes(t.token)},
                       {"top_logprobs", std::move(top)}});
  }
  return {{"content", std::move(content)}, {"refusal", nullptr}};
}

nlohmann::ordered_json completion_logprobs(const std::vector<TokenLogprob>& tokens,
                                   std::size_t first_offset) {
  nlohmann::ordered_json texts = nlohmann::ordered_json::array(), logprobs = nlohmann::ordered_json::array(),
                 tops = nlohmann::ordered_json::array(), offsets = nlohmann::ordered_json::array();
  std::size_t offset = first_offset;
  for (const TokenLogprob& t : tokens) {
    texts.push_back(t.token);
    logprobs.push_back(t.logprob);
    nlohmann::ordered_json top = nlohmann::ordered_json::object();
    for (const auto& [token, logprob] : t.top) top[token] = logprob;
    tops.push_back(std::move(top));
    offsets.push_back(offset);
    offset += t.token.size();
  }
  return {{"tokens", std::move(texts)},
          {"token_logprobs", std::move(logprobs)},
          {"top_logprobs", std::move(tops)},
          {"text_offset", std::move(offsets)}};
}

nlohmann::ordered_json chat_completion(const AnswerMeta& meta, const std::string& text,
                               FinishReason finish, const Usage& usage,
                               const std::vector<TokenLogprob>* logprobs) {
  nlohmann::ordered_json choice = {
      {"index", 0},
      {"message", {{"role", "assistant"}, {"content", text}, {"refusal", nullptr}}},
      {"logprobs", logprobs ? chat_logprobs(*logprobs) : nlohmann::ordered_json(nullptr)},
      {"finish_reason", finish_reason_name(finish)}};
  return {{"id", meta.id},
          {"object", "chat.completion"},
          {"created", meta.created},
          {"model", meta.model},
          {"choices", nlohmann::ordered_json::array({std::move(choice)})},
          {"usage", usage_json(usage)}};
}

nlohmann::ordered_json text_completion(const AnswerMeta& meta, const std::string& text,
                               FinishReason finish, const Usage& usage,
                               const std::vector<TokenLogprob>* logprobs) {
  nlohmann::ordered_json choice = {
      {"index", 0},
      {"text", text},
      {"logprobs", logprobs ? completion_logprobs(*logprobs) : nlohmann::ordered_json(nullptr)},
      {"finish_reason", finish_reason_name(finish)}};
  return {{"id", meta.id},
          {"object", "text_completion"},
          {"created", meta.created},
          {"model", meta.model},
          {"choices", nlohmann::ordered_json::array({std::move(choice)})},
          {"usage", usage_json(usage)}};
}

nlohmann::ordered_json models_list(const std::string& model_id, std::int64_t created, bool is_oracle) {
  nlohmann::ordered_json model = {{"id", model_id},
                          {"object", "model"},
                          {"created", created},
                          {"owned_by", is_oracle ? "algenta-oracle" : "algenta"},
                          {"role", is_oracle ? "verification_oracle" : "engine"}};
  return {{"object", "list"}, {"data", nlohmann::ordered_json::array({std::move(model)})}};
}

}  // namespace algenta::openai
