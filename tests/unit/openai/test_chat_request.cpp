#include <catch2/catch.hpp>

#include "openai/requests.hpp"
#include "openai/errors.hpp"

using namespace algenta::openai;

namespace {

// The 400 a body gets: its message and param.
ApiError refusal(const std::string& body) {
  try {
    parse_chat_request(body);
  } catch (const ApiError& e) {
    return e;
  }
  FAIL("accepted: " << body);
  throw;
}

std::string with(const std::string& extra) {
  return R"({"model":"m","messages":[{"role":"user","content":"hi"}])" +
         (extra.empty() ? "" : "," + extra) + "}";
}

}  // namespace

TEST_CASE("a chat request with every supported field") {
  const ChatRequest r = parse_chat_request(R"({
    "model": "m",
    "messages": [
      {"role": "system", "content": "be brief"},
      {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "name": "ann"},
      {"role": "assistant", "content": "ok"},
      {"role": "tool", "content": "42", "tool_call_id": "c1"}],
    "max_completion_tokens": 32, "temperature": 0, "top_p": 0.9, "top_k": 40, "min_p": 0.05,
    "presence_penalty": 0.5, "frequency_penalty": -0.5, "repetition_penalty": 1.1, "seed": -7,
    "stop": ["\n\n", "END"], "stop_token_ids": [2, 3], "logprobs": true, "top_logprobs": 5,
    "n": 1, "stream": true, "stream_options": {"include_usage": true}, "user": "u-1",
    "ignore_eos": true, "min_tokens": 4})");
  REQUIRE(r.messages.size() == 4);
  CHECK(r.messages[1].content == "ab");
  CHECK(r.messages[1].name == "ann");
  CHECK(r.messages[3].tool_call_id == "c1");
  CHECK(r.sampling.max_tokens == 32);
  CHECK(r.sampling.temperature == 0.0);
  CHECK(r.sampling.top_k == 40);
  CHECK(r.sampling.seed == -7);
  CHECK(r.sampling.stop == std::vector<std::string>{"\n\n", "END"});
  CHECK(r.sampling.stop_token_ids == std::vector<std::int64_t>{2, 3});
  CHECK(r.sampling.ignore_eos);
  CHECK(r.sampling.min_tokens == 4);
  CHECK(r.logprobs);
  CHECK(r.top_logprobs == 5);
  CHECK(r.streaming.stream);
  CHECK(r.streaming.include_usage);
}

TEST_CASE("defaults when optional fields are absent or null") {
  const ChatRequest r = parse_chat_request(with(R"("temperature": null, "stop": null)"));
  CHECK_FALSE(r.sampling.max_tokens);
  CHECK(r.sampling.temperature == 1.0);
  CHECK(r.sampling.top_p == 1.0);
  CHECK_FALSE(r.sampling.top_k);
  CHECK(r.sampling.stop.empty());
  CHECK_FALSE(r.streaming.stream);
  CHECK(parse_chat_request(with(R"("stop": "x")")).sampling.stop == std::vector<std::string>{"x"});
  CHECK_FALSE(parse_chat_request(with(R"("top_k": -1)")).sampling.top_k);
  CHECK(parse_chat_request(with(R"("max_tokens": 9)")).sampling.max_tokens == 9);
}

TEST_CASE("a wrong type is a 400 naming the field and the type expected") {
  auto e = refusal(with(R"("temperature": "hot")"));
  CHECK(e.kind == ErrorKind::invalid_request);
  CHECK(e.param == "temperature");
  CHECK_THAT(e.what(), Catch::Contains("'temperature' must be a number, got a string"));
  e = refusal(with(R"("max_tokens": 1.5)"));
  CHECK(e.param == "max_tokens");
  CHECK_THAT(e.what(), Catch::Contains("must be an integer"));
  CHECK(refusal(with(R"("stream": "yes")")).param == "stream");
  CHECK(refusal(with(R"("stop": [1])")).param == "stop");
  CHECK(refusal(with(R"("logprobs": 1)")).param == "logprobs");
  CHECK(refusal(R"({"model":"m","messages":"hi"})").param == "messages");
  CHECK(refusal(R"({"model":7,"messages":[]})").param == "model");
  e = refusal(R"({"model":"m","messages":[{"role":"user","content":5}]})");
  CHECK(e.param == "messages[0].content");
  CHECK_THAT(e.what(), Catch::Contains("a string or a list of text parts"));
}

TEST_CASE("out-of-range values are a 400 naming the range") {
  auto e = refusal(with(R"("max_tokens": -5)"));
  CHECK(e.param == "max_tokens");
  CHECK_THAT(e.what(), Catch::Contains("must be from 1 to 1048576, got -5"));
  e = refusal(with(R"("max_tokens": 18446744073709551615)"));
  CHECK_THAT(e.what(), Catch::Contains("must be from 1 to 1048576"));
  CHECK(refusal(with(R"("max_tokens": 0)")).param == "max_tokens");
  CHECK(refusal(with(R"("temperature": 2.5)")).param == "temperature");
  CHECK(refusal(with(R"("top_p": 0)")).param == "top_p");
  CHECK(refusal(with(R"("min_p": 1.5)")).param == "min_p");
  CHECK(refusal(with(R"("presence_penalty": -3)")).param == "presence_penalty");
  CHECK(refusal(with(R"("repetition_penalty": 0)")).param == "repetition_penalty");
  e = refusal(with(R"("logprobs": true, "top_logprobs": 21)"));
  CHECK(e.param == "top_logprobs");
  CHECK_THAT(e.what(), Catch::Contains("from 0 to 20"));
  CHECK(refusal(with(R"("top_logprobs": 2)")).param == "top_logprobs");  // needs logprobs
  CHECK(refusal(with(R"("stop_token_ids": [-1])")).param == "stop_token_ids");
  CHECK(refusal(with(R"("max_tokens": 4, "min_tokens": 5)")).param == "min_tokens");
  CHECK(refusal(with(R"("max_tokens": 4, "max_completion_tokens": 5)")).param ==
        "max_completion_tokens");
  CHECK(refusal(with(R"("stop": ["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q"])"))
            .param == "stop");
  CHECK(refusal(with(R"("stop": [""])")).param == "stop");
}

TEST_CASE("fields that would change the output unhonoured are refused, never ignored") {
  for (const char* field :
       {R"("tools": [{"type":"function","function":{"name":"f"}}])", R"("tool_choice": "auto")",
        R"("response_format": {"type":"json_object"})", R"("logit_bias": {"50256": -100})",
        R"("n": 2)", R"("functions": [{"name":"f"}])", R"("parallel_tool_calls": true)"}) {
    CAPTURE(field);
    const ApiError e = refusal(with(field));
    CHECK(e.kind == ErrorKind::invalid_request);
    REQUIRE(e.param);
    CHECK(std::string(field).find("\"" + *e.param + "\"") == 0);
  }
  // Their no-effect values pass.
  CHECK_NOTHROW(parse_chat_request(with(
      R"("tools": [], "tool_choice": "none", "response_format": {"type":"text"}, "logit_bias": {}, "n": 1)")));
}

TEST_CASE("unknown fields are refused by name, at any depth") {
  auto e = refusal(with(R"("temprature": 0.5)"));
  CHECK(e.param == "temprature");
  CHECK_THAT(e.what(), Catch::Contains("unknown field 'temprature'"));
  e = refusal(R"({"model":"m","messages":[{"role":"user","content":"x","mood":"happy"}]})");
  CHECK(e.param == "messages[0].mood");
  e = refusal(with(R"("stream": true, "stream_options": {"include_usage": true, "extra": 1})"));
  CHECK(e.param == "stream_options.extra");
}

TEST_CASE("messages: roles, parts and the required fields") {
  auto e = refusal(R"({"model":"m","messages":[{"role":"wizard","content":"x"}]})");
  CHECK(e.param == "messages[0].role");
  CHECK_THAT(e.what(), Catch::Contains("system, user, assistant or tool"));
  e = refusal(R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]})");
  CHECK(e.param == "messages[0].content[0].type");
  CHECK(refusal(R"({"model":"m","messages":[]})").param == "messages");
  CHECK(refusal(R"({"model":"m"})").param == "messages");
  CHECK(refusal(R"({"messages":[{"role":"user","content":"x"}]})").param == "model");
  CHECK(refusal(R"({"model":"m","messages":[{"content":"x"}]})").param == "messages[0].role");
  CHECK(refusal(R"({"model":"m","messages":[{"role":"assistant","content":null}]})").param ==
        "messages[0].content");
  CHECK(refusal(R"({"model":"m","messages":[{"role":"assistant","content":"","tool_calls":[{"id":"1"}]}]})")
            .param == "messages[0].tool_calls");
  CHECK(refusal(R"({"model":"m","messages":["hi"]})").param == "messages[0]");
}

TEST_CASE("stream_options needs stream; the body must be one JSON object") {
  CHECK(refusal(with(R"("stream_options": {"include_usage": true})")).param == "stream_options");
  auto e = refusal("[1]");
  CHECK_THAT(e.what(), Catch::Contains("must be a JSON object, got an array"));
  e = refusal(R"({"model":"m",)");
  CHECK_THAT(e.what(), Catch::Contains("not valid JSON"));
  e = refusal(R"({"model":"m","model":"n","messages":[{"role":"user","content":"x"}]})");
  CHECK_THAT(e.what(), Catch::Contains("not valid JSON"));
  CHECK_FALSE(e.param);
}

TEST_CASE("the model must be the one served") {
  CHECK_NOTHROW(check_model("m", "m"));
  try {
    check_model("gpt-4", "m");
    FAIL("accepted");
  } catch (const ApiError& e) {
    CHECK(e.kind == ErrorKind::model_not_found);
    CHECK(e.param == "model");
    CHECK_THAT(e.what(), Catch::Contains("'gpt-4' does not exist"));
  }
}

TEST_CASE("top_k may name the whole vocabulary, one more than the last token id") {
  RequestCaps caps;
  caps.max_token_id = 99;  // a vocabulary of 100
  const std::string base = R"({"model":"m","messages":[{"role":"user","content":"a"}],"top_k":)";
  CHECK(parse_chat_request(base + "100}", caps).sampling.top_k == 100);
  CHECK_THROWS_AS(parse_chat_request(base + "101}", caps), ApiError);
}
