#include <catch2/catch.hpp>

#include "openai/responses.hpp"

using namespace algenta::openai;
using nlohmann::json;

namespace {
const AnswerMeta kMeta{"chatcmpl-abc", 1700000000, "m"};
}

TEST_CASE("a chat.completion in OpenAI's shape") {
  const json j = chat_completion(kMeta, "hello", FinishReason::length, {3, 2});
  CHECK(j == json::parse(R"({
    "id": "chatcmpl-abc", "object": "chat.completion", "created": 1700000000, "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello", "refusal": null},
                 "logprobs": null, "finish_reason": "length"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}})"));
}

TEST_CASE("chat logprobs: content entries with bytes and top_logprobs") {
  const std::vector<TokenLogprob> lps{{"hi", -0.25, {{"hi", -0.25}, {"yo", -2.0}}}};
  const json j = chat_completion(kMeta, "hi", FinishReason::stop, {1, 1}, &lps);
  CHECK(j["choices"][0]["logprobs"] == json::parse(R"({"content": [{"token": "hi", "logprob": -0.25,
      "bytes": [104, 105], "top_logprobs": [{"token": "hi", "logprob": -0.25, "bytes": [104, 105]},
      {"token": "yo", "logprob": -2.0, "bytes": [121, 111]}]}], "refusal": null})"));
}

TEST_CASE("a text_completion and its logprobs with text offsets") {
  const std::vector<TokenLogprob> lps{{"ab", -1.0, {{"ab", -1.0}}}, {"c", -0.5, {}}};
  const json j = text_completion({"cmpl-x", 5, "m"}, "abc", FinishReason::stop, {2, 2}, &lps);
  CHECK(j["object"] == "text_completion");
  CHECK(j["choices"][0]["text"] == "abc");
  CHECK(j["choices"][0]["finish_reason"] == "stop");
  CHECK(j["choices"][0]["logprobs"] == json::parse(R"({"tokens": ["ab", "c"],
      "token_logprobs": [-1.0, -0.5], "top_logprobs": [{"ab": -1.0}, {}], "text_offset": [0, 2]})"));
  CHECK(completion_logprobs(lps, 10)["text_offset"] == json::parse("[10, 12]"));
}

TEST_CASE("the model list marks the oracle") {
  const json engine = models_list("qwen", 0, false);
  CHECK(engine == json::parse(R"({"object": "list", "data": [{"id": "qwen", "object": "model",
      "created": 0, "owned_by": "algenta", "role": "engine"}]})"));
  const json oracle = models_list("qwen", 0, true);
  CHECK(oracle["data"][0]["owned_by"] == "algenta-oracle");
  CHECK(oracle["data"][0]["role"] == "verification_oracle");
}

TEST_CASE("ids are prefixed and random; half a UTF-8 character still dumps") {
  const std::string a = new_answer_id("chatcmpl-"), b = new_answer_id("chatcmpl-");
  CHECK(a.rfind("chatcmpl-", 0) == 0);
  CHECK(a.size() == 9 + 24);
  CHECK(a != b);
  const std::string half = "\xe4\xbd";  // the first two bytes of a three-byte character
  const std::string text = dump(chat_completion(kMeta, half, FinishReason::stop, {}));
  CHECK(text.find("\xef\xbf\xbd") != std::string::npos);  // U+FFFD
}
