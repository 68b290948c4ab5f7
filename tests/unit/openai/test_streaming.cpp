#include <catch2/catch.hpp>

#include "openai/streaming.hpp"

using namespace algenta::openai;
using nlohmann::json;

namespace {

const AnswerMeta kMeta{"chatcmpl-s", 7, "m"};

// The JSON of every "data: " event; [DONE] as the string "[DONE]". Checks
// the framing of each: "data: " then one line then a blank line.
std::vector<json> events(const std::string& stream) {
  std::vector<json> out;
  std::size_t at = 0;
  while (at < stream.size()) {
    REQUIRE(stream.compare(at, 6, "data: ") == 0);
    const std::size_t end = stream.find("\n\n", at);
    REQUIRE(end != std::string::npos);
    const std::string payload = stream.substr(at + 6, end - at - 6);
    REQUIRE(payload.find('\n') == std::string::npos);
    out.push_back(payload == "[DONE]" ? json("[DONE]") : json::parse(payload));
    at = end + 2;
  }
  return out;
}

}  // namespace

TEST_CASE("sse framing") {
  CHECK(sse_event(json{{"a", 1}}) == "data: {\"a\":1}\n\n");
  CHECK(kSseDone == "data: [DONE]\n\n");
  // A newline inside a token is escaped by JSON, so an event stays one line.
  CHECK(sse_event(json{{"t", "a\nb"}}) == "data: {\"t\":\"a\\nb\"}\n\n");
}

TEST_CASE("a chat stream: role, content, finish, [DONE]") {
  const ChatStream s(kMeta, false, false);
  const auto e = events(s.start() + s.content("Hel") + s.content("lo") +
                        s.finish(FinishReason::stop, {3, 2}));
  REQUIRE(e.size() == 5);
  CHECK(e[0] == json::parse(R"({"id":"chatcmpl-s","object":"chat.completion.chunk","created":7,
      "model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},
      "logprobs":null,"finish_reason":null}]})"));
  CHECK(e[1]["choices"][0]["delta"] == json{{"content", "Hel"}});
  CHECK(e[2]["choices"][0]["delta"] == json{{"content", "lo"}});
  CHECK(e[3]["choices"][0]["delta"] == json::object());
  CHECK(e[3]["choices"][0]["finish_reason"] == "stop");
  CHECK_FALSE(e[3].contains("usage"));
  CHECK(e[4] == "[DONE]");
}

TEST_CASE("include_usage: usage null on each chunk, then a chunk with empty choices") {
  const ChatStream s(kMeta, true, false);
  const auto e = events(s.start() + s.content("x") + s.finish(FinishReason::length, {4, 1}));
  REQUIRE(e.size() == 5);
  for (int i = 0; i < 3; ++i) CHECK(e[i]["usage"].is_null());
  CHECK(e[2]["choices"][0]["finish_reason"] == "length");
  CHECK(e[3]["choices"] == json::array());
  CHECK(e[3]["usage"] == json::parse(R"({"prompt_tokens":4,"completion_tokens":1,"total_tokens":5})"));
  CHECK(e[4] == "[DONE]");
}

TEST_CASE("chat stream logprobs ride on their content chunk") {
  const ChatStream s(kMeta, false, true);
  const auto e = events(s.content("a", {{"a", -0.1, {}}}));
  CHECK(e[0]["choices"][0]["logprobs"]["content"][0]["token"] == "a");
}

TEST_CASE("a completion stream: text chunks, a finish chunk, usage, [DONE]") {
  CompletionStream s({"cmpl-s", 7, "m"}, true, true);
  const std::string first = s.content("ab", {{"ab", -1.0, {}}});
  const std::string second = s.content("c", {{"c", -1.0, {}}});
  const auto e = events(first + second + s.finish(FinishReason::stop, {1, 2}));
  REQUIRE(e.size() == 5);
  CHECK(e[0]["object"] == "text_completion");
  CHECK(e[0]["choices"][0]["text"] == "ab");
  CHECK(e[1]["choices"][0]["logprobs"]["text_offset"] == json::parse("[2]"));
  CHECK(e[2]["choices"][0]["text"] == "");
  CHECK(e[2]["choices"][0]["finish_reason"] == "stop");
  CHECK(e[3]["choices"] == json::array());
  CHECK(e[3]["usage"]["total_tokens"] == 3);
  CHECK(e[4] == "[DONE]");
}

TEST_CASE("a completion stream without text carries each token's id") {
  CompletionStream s({"cmpl-s", 7, "m"}, false, true);
  const std::string first = s.token_content("", {17}, {{"token_id:17", -0.5, {}}});
  const std::string second = s.token_content("", {3});
  const auto e = events(first + second + s.finish(FinishReason::length, {1, 2}));
  REQUIRE(e.size() == 4);
  CHECK(e[0]["choices"][0]["text"] == "");
  CHECK(e[0]["choices"][0]["token_ids"] == json::parse("[17]"));
  CHECK(e[0]["choices"][0]["logprobs"]["tokens"] == json::parse(R"(["token_id:17"])"));
  CHECK(e[1]["choices"][0]["token_ids"] == json::parse("[3]"));
  CHECK_FALSE(e[2]["choices"][0].contains("token_ids"));
  CHECK(e[2]["choices"][0]["finish_reason"] == "length");
}

TEST_CASE("an error after the stream began is an event, then [DONE]") {
  const auto e = events(ChatStream::error(R"({"error":{"message":"x"}})"));
  REQUIRE(e.size() == 2);
  CHECK(e[0]["error"]["message"] == "x");
  CHECK(e[1] == "[DONE]");
}
