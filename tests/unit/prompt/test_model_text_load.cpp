// ModelText::load: which template wins, the special tokens tokenizer_config
// gives the template, the eos ids, and the refusals naming file and fact.
#include <catch2/catch.hpp>

#include "model_dir_fixture.hpp"
#include "prompt/model_text.hpp"

using algenta::prompt::ModelText;
using algenta::prompt::PromptError;
using algenta::prompt::test::ModelDir;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

const ordered_json kOneMessage = ordered_json::parse(R"([{"role": "user", "content": "hi"}])");

std::string render(const ModelText& text, const ordered_json& extra = ordered_json::object()) {
  return text.render_chat(kOneMessage, false, extra);
}

template <typename Error>
std::string load_error(const ModelDir& dir) {
  try {
    ModelText::load(dir.path());
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("the model directory was accepted");
  return {};
}

}  // namespace

TEST_CASE("special tokens reach the template as strings, from strings and AddedToken objects", "[prompt]") {
  ModelDir dir;
  dir.write_json("tokenizer_config.json",
                 {{"add_bos_token", true},
                  {"bos_token", "<s>"},
                  {"eos_token", {{"__type", "AddedToken"}, {"content", "</s>"}, {"lstrip", false}}},
                  {"pad_token", {{"content", "<pad>"}, {"special", true}}},
                  {"unk_token", nullptr},
                  {"image_token", "<img>"},
                  {"boi_token", {{"__type", "AddedToken"}, {"content", "<boi>"}}},
                  {"eoi_token", {{"content", "<eoi>"}}},  // a plain object: a setting, not a token
                  {"extra_special_tokens", {{"audio_token", "<aud>"}}},
                  {"chat_template",
                   "{{ bos_token }}|{{ eos_token }}|{{ pad_token }}|{{ unk_token is defined }}|"
                   "{{ image_token }}|{{ boi_token }}|{{ eoi_token is defined }}|{{ audio_token }}|"
                   "{{ add_bos_token is defined }}"}});
  const ModelText text = ModelText::load(dir.path());
  CHECK(render(text) == "<s>|</s>|<pad>|False|<img>|<boi>|False|<aud>|False");
  // transformers' order: the seven named ones first, then the model's own.
  CHECK(text.special_tokens().dump() ==
        R"({"bos_token":"<s>","eos_token":"</s>","pad_token":"<pad>","boi_token":"<boi>",)"
        R"("image_token":"<img>","audio_token":"<aud>"})");
  CHECK_THAT(text.chat_template_source(), EndsWith("tokenizer_config.json"));
}

TEST_CASE("a special token that is neither a string nor an AddedToken is refused, named", "[prompt]") {
  ModelDir dir;
  dir.write_json("tokenizer_config.json", {{"eos_token", 7}});
  const std::string error = load_error<PromptError>(dir);
  CHECK_THAT(error, Contains("tokenizer_config.json") && Contains("eos_token") && Contains("7"));
  dir.write_json("tokenizer_config.json", {{"bos_token", {{"lstrip", false}}}});
  CHECK_THAT(load_error<PromptError>(dir), Contains("bos_token") && Contains("\"content\""));
}

TEST_CASE("special_tokens_map.json counts, over the config, only when the config has no added_tokens_decoder",
          "[prompt]") {
  ModelDir dir;
  dir.write_json("special_tokens_map.json",
                 {{"bos_token", {{"content", "<s>"}, {"lstrip", false}}},
                  {"eos_token", "</s>"},
                  {"image_token", {{"content", "<img>"}}},
                  {"additional_special_tokens", {"<|im_end|>"}}});
  dir.write_json("tokenizer_config.json",
                 {{"eos_token", "<|im_end|>"}, {"pad_token", "<pad>"}, {"chat_template", "{{ eos_token }}"}});
  const ModelText legacy = ModelText::load(dir.path());
  CHECK(legacy.special_tokens().dump() ==
        R"({"bos_token":"<s>","eos_token":"</s>","pad_token":"<pad>","image_token":"<img>"})");
  CHECK(render(legacy) == "</s>");
  CHECK(legacy.eos_token_ids() == std::vector<std::int32_t>{ModelDir::kEos});

  dir.write_json("tokenizer_config.json", {{"eos_token", "<|im_end|>"},
                                           {"added_tokens_decoder", json::object()},
                                           {"chat_template", "{{ eos_token }}"}});
  const ModelText current = ModelText::load(dir.path());
  CHECK(current.special_tokens().dump() == R"({"eos_token":"<|im_end|>"})");
  CHECK(render(current) == "<|im_end|>");

  std::filesystem::remove(dir.path() / "tokenizer_config.json");  // the legacy file alone
  CHECK(ModelText::load(dir.path()).special_tokens().at("eos_token") == "</s>");
  dir.write_json("special_tokens_map.json", {{"pad_token", 3}});
  CHECK_THAT(load_error<PromptError>(dir), Contains("special_tokens_map.json: pad_token"));
}

TEST_CASE("a list of named templates: default, and tool_use when tools are given", "[prompt]") {
  ModelDir dir;
  dir.write_json("tokenizer_config.json",
                 {{"chat_template", json::array({{{"name", "default"}, {"template", "D{{ tools is none }}"}},
                                                 {{"name", "tool_use"}, {"template", "T{{ tools | length }}"}},
                                                 {{"name", "rag"}, {"template", "R"}}})}});
  const ModelText text = ModelText::load(dir.path());
  CHECK(text.has_chat_template());
  CHECK(render(text) == "DTrue");
  CHECK(render(text, {{"tools", nullptr}}) == "DTrue");
  CHECK(render(text, {{"tools", ordered_json::array()}}) == "T0");  // not None: transformers picks tool_use
}

TEST_CASE("a list of templates without a default is refused, naming the names", "[prompt]") {
  ModelDir dir;
  dir.write_json("tokenizer_config.json",
                 {{"chat_template", json::array({{{"name", "rag"}, {"template", "R"}},
                                                 {{"name", "tool_use"}, {"template", "T"}}})}});
  const ModelText text = ModelText::load(dir.path());
  CHECK_FALSE(text.has_chat_template());
  REQUIRE_THROWS_AS(render(text), PromptError);
  CHECK_THROWS_WITH(render(text), Contains("\"rag\", \"tool_use\"") && Contains("\"default\""));
  CHECK(render(text, {{"tools", ordered_json::array({{{"type", "function"}}})}}) == "T");
}

TEST_CASE("malformed chat_template fields are refused, named", "[prompt]") {
  ModelDir dir;
  dir.write_json("tokenizer_config.json", {{"chat_template", json::array({{{"name", "default"}}})}});
  CHECK_THAT(load_error<PromptError>(dir), Contains("chat_template[0]") && Contains("\"template\""));
  dir.write_json("tokenizer_config.json", {{"chat_template", 3}});
  CHECK_THAT(load_error<PromptError>(dir), Contains("chat_template must be a string or a list"));
  dir.write_json("tokenizer_config.json",
                 {{"chat_template", json::array({{{"name", "a"}, {"template", "1"}}, {{"name", "a"}, {"template", "2"}}})}});
  CHECK_THAT(load_error<PromptError>(dir), Contains("names \"a\" twice"));
}

TEST_CASE("no template anywhere: has_chat_template is false and rendering says so", "[prompt]") {
  ModelDir dir;  // tokenizer.json alone
  const ModelText text = ModelText::load(dir.path());
  CHECK_FALSE(text.has_chat_template());
  CHECK(text.chat_template_source().empty());
  CHECK_THROWS_WITH(render(text), Contains("no chat template") && Contains("--chat-template"));
  dir.write_json("tokenizer_config.json", {{"chat_template", nullptr}, {"eos_token", "</s>"}});
  CHECK_FALSE(ModelText::load(dir.path()).has_chat_template());
  // Completion prompts need no template.
  CHECK(ModelText::load(dir.path()).encode_text("ab") == std::vector<std::int32_t>{ModelDir::kBos, 0, 1});
}

TEST_CASE("chat_template.jinja takes precedence over tokenizer_config; --chat-template over both", "[prompt]") {
  ModelDir dir;
  dir.write_json("tokenizer_config.json", {{"chat_template", "config"}});
  CHECK(render(ModelText::load(dir.path())) == "config");

  // Read as Python reads text files: universal newlines (and jinja2 drops
  // one trailing newline of the template).
  dir.write("chat_template.jinja", "jinja\r\nline\rend\r\n");
  const ModelText from_jinja = ModelText::load(dir.path());
  CHECK(render(from_jinja) == "jinja\nline\nend");
  CHECK(from_jinja.chat_template_source() == (dir.path() / "chat_template.jinja").string());

  dir.write("override.jinja", "override {{ messages | length }}");
  const ModelText overridden = ModelText::load(dir.path(), dir.path() / "override.jinja");
  CHECK(render(overridden) == "override 1");
  CHECK(overridden.chat_template_source() == "--chat-template " + (dir.path() / "override.jinja").string());

  // chat_template.jinja also replaces a list of named templates.
  dir.write_json("tokenizer_config.json",
                 {{"chat_template", json::array({{{"name", "tool_use"}, {"template", "T"}}})}});
  CHECK(render(ModelText::load(dir.path()), {{"tools", ordered_json::array()}}) == "jinja\nline\nend");
}

TEST_CASE("template files that cannot be used are refused, named", "[prompt]") {
  ModelDir dir;
  dir.write("chat_template.jinja", "ok \xff");
  CHECK_THAT(load_error<PromptError>(dir), Contains("chat_template.jinja is not UTF-8: byte 0xFF at offset 3"));
  dir.write("chat_template.jinja", "{% if %}");
  const std::string error = load_error<algenta::chat::TemplateError>(dir);
  CHECK_THAT(error, Contains("chat_template.jinja, line 1:"));
  CHECK_THROWS_WITH(ModelText::load(dir.path(), dir.path() / "absent.jinja"),
                    Contains("absent.jinja") && Contains("does not exist"));
}

TEST_CASE("missing or damaged files are refused naming the file", "[prompt]") {
  ModelDir dir;
  std::filesystem::remove(dir.path() / "tokenizer.json");
  CHECK_THAT(load_error<PromptError>(dir), Contains("tokenizer.json does not exist"));
  dir.write("tokenizer.json", "{}");
  CHECK_THAT(load_error<algenta::tokenizer::TokenizerError>(dir), Contains("tokenizer.json"));
  dir.write_json("tokenizer.json", ModelDir::tokenizer_json());
  dir.write("tokenizer_config.json", R"({"bos_token": "<s>", "bos_token": "<t>"})");
  CHECK_THAT(load_error<PromptError>(dir), Contains("tokenizer_config.json is not valid JSON") && Contains("bos_token"));
  dir.write("tokenizer_config.json", "[]");
  CHECK_THAT(load_error<PromptError>(dir), Contains("tokenizer_config.json must hold a JSON object"));
  std::filesystem::remove(dir.path() / "tokenizer_config.json");
  std::filesystem::create_directory(dir.path() / "generation_config.json");
  CHECK_THAT(load_error<PromptError>(dir), Contains("generation_config.json") && Contains("directory"));
}

TEST_CASE("eos ids: generation_config's int or list and tokenizer_config's eos_token, sorted and unique",
          "[prompt]") {
  ModelDir dir;
  CHECK(ModelText::load(dir.path()).eos_token_ids().empty());

  dir.write_json("generation_config.json", {{"eos_token_id", 5}});
  CHECK(ModelText::load(dir.path()).eos_token_ids() == std::vector<std::int32_t>{5});

  dir.write_json("tokenizer_config.json", {{"eos_token", "</s>"}});
  CHECK(ModelText::load(dir.path()).eos_token_ids() == std::vector<std::int32_t>{5, ModelDir::kEos});

  dir.write_json("generation_config.json", {{"eos_token_id", {32, 31, 7, 32}}});
  CHECK(ModelText::load(dir.path()).eos_token_ids() == std::vector<std::int32_t>{7, 31, 32});

  dir.write_json("generation_config.json", {{"eos_token_id", nullptr}, {"bos_token_id", 1}});
  dir.write_json("tokenizer_config.json", {{"eos_token", {{"__type", "AddedToken"}, {"content", "<|im_end|>"}}}});
  CHECK(ModelText::load(dir.path()).eos_token_ids() == std::vector<std::int32_t>{ModelDir::kImEnd});

  // An eos_token the vocabulary lacks adds no id.
  dir.write_json("tokenizer_config.json", {{"eos_token", "<eot>"}});
  CHECK(ModelText::load(dir.path()).eos_token_ids().empty());
}

TEST_CASE("eos_token_id values that are not token ids are refused, named", "[prompt]") {
  ModelDir dir;
  dir.write_json("generation_config.json", {{"eos_token_id", "2"}});
  CHECK_THAT(load_error<PromptError>(dir), Contains("generation_config.json") && Contains("eos_token_id") &&
                                               Contains("a string \"2\""));
  dir.write_json("generation_config.json", {{"eos_token_id", {1, -3}}});
  CHECK_THAT(load_error<PromptError>(dir), Contains("eos_token_id[1]") && Contains("the integer -3"));
  dir.write_json("generation_config.json", {{"eos_token_id", {true}}});
  CHECK_THAT(load_error<PromptError>(dir), Contains("eos_token_id[0]") && Contains("a boolean"));
  dir.write_json("generation_config.json", {{"eos_token_id", 2147483648ull}});
  CHECK_THAT(load_error<PromptError>(dir), Contains("2147483648"));
}

TEST_CASE("ModelText copies share the parsed templates", "[prompt]") {
  ModelDir dir;
  dir.write_json("tokenizer_config.json", {{"chat_template", "x{{ messages[0].content }}"}});
  const ModelText original = ModelText::load(dir.path());
  const ModelText copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  CHECK(render(copy) == "xhi");
  CHECK(copy.tokenizer().token_to_id("</s>") == ModelDir::kEos);
}

TEST_CASE("A model without a tokenizer has no template and no end ids, and encodes nothing",
          "[prompt]") {
  const ModelText text = ModelText::without_tokenizer();
  CHECK_FALSE(text.has_tokenizer());
  CHECK_FALSE(text.has_chat_template());
  CHECK(text.eos_token_ids().empty());
  CHECK_THROWS_AS(text.encode_text("hi"), PromptError);
  CHECK_THROWS_AS(text.encode_chat(kOneMessage, true), PromptError);
  CHECK_THROWS_WITH(text.tokenizer(), Contains("no tokenizer"));

  ModelDir dir;
  CHECK(ModelText::load(dir.path()).has_tokenizer());
}
