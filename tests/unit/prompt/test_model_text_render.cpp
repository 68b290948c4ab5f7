// render_chat / encode_chat / encode_text: the context transformers renders
// with, the request checks apply_chat_template makes, and the encodings.
#include <catch2/catch.hpp>

#include "model_dir_fixture.hpp"
#include "prompt/model_text.hpp"

using algenta::prompt::ModelText;
using algenta::prompt::PromptError;
using algenta::prompt::test::ModelDir;
using Catch::Matchers::Contains;
using nlohmann::ordered_json;

namespace {

const ordered_json kMessages = ordered_json::parse(R"([{"role": "user", "content": "hi"},
                                                       {"role": "assistant", "content": "yo"}])");

ModelText with_template(const ModelDir& dir, const std::string& source,
                        const nlohmann::json& config = nlohmann::json::object()) {
  nlohmann::json full = config;
  full["chat_template"] = source;
  dir.write_json("tokenizer_config.json", full);
  return ModelText::load(dir.path());
}

}  // namespace

TEST_CASE("the context holds messages, tools, documents and add_generation_prompt as transformers passes them",
          "[prompt]") {
  ModelDir dir;
  const ModelText text = with_template(
      dir, "{{ messages | length }}|{{ tools is none }}|{{ documents is none }}|{{ add_generation_prompt }}");
  CHECK(text.render_chat(kMessages, false) == "2|True|True|False");
  CHECK(text.render_chat(kMessages, true) == "2|True|True|True");
  const ordered_json extra = {{"tools", ordered_json::array({{{"type", "function"}}})},
                              {"documents", ordered_json::array({{{"title", "t"}, {"text", "x"}}})}};
  CHECK(text.render_chat(kMessages, false, extra) == "2|False|False|False");
}

TEST_CASE("extra variables reach the template and override special tokens", "[prompt]") {
  ModelDir dir;
  const ModelText text = with_template(
      dir, "{{ bos_token }}|{% if enable_thinking is defined %}{{ enable_thinking }}{% else %}-{% endif %}",
      {{"bos_token", "<s>"}});
  CHECK(text.render_chat(kMessages, false) == "<s>|-");
  CHECK(text.render_chat(kMessages, false, {{"enable_thinking", false}}) == "<s>|False");
  CHECK(text.render_chat(kMessages, false, {{"bos_token", "B"}}) == "B|-");
}

TEST_CASE("requests apply_chat_template would not render are refused, naming the field", "[prompt]") {
  ModelDir dir;
  const ModelText text = with_template(dir, "x");
  CHECK_THROWS_WITH(text.render_chat(ordered_json::array(), false), Contains("messages is empty"));
  CHECK_THROWS_WITH(text.render_chat(ordered_json::object(), false), Contains("messages must be an array"));
  CHECK_THROWS_WITH(text.render_chat(ordered_json::parse(R"([{"role": "user"}, "hi"])"), false),
                    Contains("messages[1] must be a message object, not a string"));
  CHECK_THROWS_WITH(text.render_chat(ordered_json::parse(R"([[{"role": "user"}]])"), false),
                    Contains("messages[0]") && Contains("an array"));
  CHECK_THROWS_WITH(text.render_chat(kMessages, false, ordered_json::array()), Contains("must be an object"));
  for (const char* reserved : {"messages", "add_generation_prompt", "chat_template", "continue_final_message",
                               "tokenize", "return_assistant_tokens_mask"}) {
    CAPTURE(reserved);
    CHECK_THROWS_WITH(text.render_chat(kMessages, false, {{reserved, true}}),
                      Contains(std::string("\"") + reserved + "\" is a parameter of apply_chat_template"));
  }
  CHECK_THROWS_WITH(text.render_chat(kMessages, false, {{"tools", "get_weather"}}),
                    Contains("tools must be null or an array of objects, not a string"));
  CHECK_THROWS_WITH(text.render_chat(kMessages, false, {{"documents", ordered_json::array({1})}}),
                    Contains("documents[0] must be an object, not a number"));
  CHECK_THROWS_AS(text.render_chat(kMessages, false, {{"tools", 1}}), PromptError);
}

TEST_CASE("template errors come through as TemplateError with their kind", "[prompt]") {
  ModelDir dir;
  const ModelText text = with_template(
      dir, "{% if messages[0].role != 'system' %}{{ raise_exception('system first') }}{% endif %}ok");
  try {
    text.render_chat(kMessages, false);
    FAIL("rendered");
  } catch (const algenta::chat::TemplateError& e) {
    CHECK(e.kind() == algenta::chat::ErrorKind::raised);
    CHECK(e.bare_message() == "system first");
  }
  CHECK(text.render_chat(ordered_json::parse(R"([{"role": "system", "content": ""}])"), false) == "ok");
}

TEST_CASE("strftime_now reads the clock RenderOptions gives", "[prompt]") {
  ModelDir dir;
  const ModelText text = with_template(dir, "{{ strftime_now('%d %b %Y') }}");
  algenta::chat::RenderOptions options;
  options.frozen_now = 1733224200;  // 2024-12-03 11:10:00 UTC
  CHECK(text.render_chat(kMessages, false, ordered_json::object(), options) == "03 Dec 2024");
}

TEST_CASE("encode_chat adds no special tokens; encode_text does, as the tokenizer's post-processor says",
          "[prompt]") {
  ModelDir dir;
  const ModelText text = with_template(
      dir, "{{ bos_token }}{% for m in messages %}{{ m.role }}:{{ m.content }}<|im_end|>{% endfor %}",
      {{"bos_token", "<s>"}});
  const std::vector<std::int32_t> expected = {ModelDir::kBos, 20, 18, 4, 17, 28, 7, 8, ModelDir::kImEnd,
                                              0, 18, 18, 8, 18, 19, 0, 13, 19, 28, 24, 14, ModelDir::kImEnd};
  CHECK(text.render_chat(kMessages, false) == "<s>user:hi<|im_end|>assistant:yo<|im_end|>");
  CHECK(text.encode_chat(kMessages, false) == expected);  // one <s>, the template's
  CHECK(text.encode_text("hi") == std::vector<std::int32_t>{ModelDir::kBos, 7, 8});
  CHECK(text.encode_text("") == std::vector<std::int32_t>{ModelDir::kBos});
  CHECK_THROWS_AS(text.encode_text("\xc3"), algenta::tokenizer::TokenizerError);
}
