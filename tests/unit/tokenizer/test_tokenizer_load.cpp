#include "tokenizer_json_builder.hpp"

#include "tokenizer/tokenizer_error.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace algenta::tokenizer;
using namespace algenta::tokenizer::test;
using Catch::Matchers::Contains;

namespace {

nlohmann::json minimal() { return document(bpe_model({"a", "b", "ab"}, {"a b"})); }

std::string refusal(const nlohmann::json& doc) {
  try {
    load(doc);
  } catch (const TokenizerError& e) {
    return e.what();
  }
  FAIL("the tokenizer.json was accepted");
  return {};
}

std::string refusal_of_text(const std::string& text) {
  try {
    Tokenizer::from_json_text(text);
  } catch (const TokenizerError& e) {
    return e.what();
  }
  FAIL("the text was accepted");
  return {};
}

}  // namespace

TEST_CASE("Unsupported kinds are refused at load, named", "[tokenizer][load]") {
  nlohmann::json doc = minimal();
  doc["model"]["type"] = "Unigram";
  CHECK_THAT(refusal(doc), Contains("model type \"Unigram\" is not supported"));

  doc = minimal();
  doc["normalizer"] = {{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}, {{"type", "Lowercase"}}}}};
  CHECK_THAT(refusal(doc), Contains("normalizer.normalizers[1]") && Contains("\"Lowercase\" is not supported"));

  doc = minimal();
  doc["pre_tokenizer"] = {{"type", "Whitespace"}};
  CHECK_THAT(refusal(doc), Contains("pre_tokenizer type \"Whitespace\" is not supported"));

  doc = minimal();
  doc["decoder"] = {{"type", "WordPiece"}};
  CHECK_THAT(refusal(doc), Contains("decoder type \"WordPiece\" is not supported"));

  doc = minimal();
  doc["post_processor"] = {{"type", "BertProcessing"}};
  CHECK_THAT(refusal(doc), Contains("post_processor type \"BertProcessing\" is not supported"));

  doc = minimal();
  doc["truncation"] = {{"max_length", 8}};
  CHECK_THAT(refusal(doc), Contains("truncation: is set"));

  doc = minimal();
  doc["model"]["dropout"] = 0.1;
  CHECK_THAT(refusal(doc), Contains("model.dropout") && Contains("dropout is not supported"));

  doc = minimal();
  doc["model"]["continuing_subword_prefix"] = "##";
  CHECK_THAT(refusal(doc), Contains("model.continuing_subword_prefix: \"##\" is not supported"));

  doc = minimal();
  doc["extra"] = 1;
  CHECK_THAT(refusal(doc), Contains("extra: unknown top-level section"));

  doc = minimal();
  doc["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "a"}}}, {"behavior", "Sideways"}};
  CHECK_THAT(refusal(doc), Contains("pre_tokenizer.behavior") && Contains("\"Sideways\""));
}

TEST_CASE("Malformed tokenizer.json gets a clear error, never a crash", "[tokenizer][load]") {
  const std::string good = minimal().dump();
  CHECK_THAT(refusal_of_text(good.substr(0, good.size() / 2)), Contains("not valid JSON"));
  CHECK_THAT(refusal_of_text(""), Contains("not valid JSON"));
  CHECK_THAT(refusal_of_text("[1, 2]"), Contains("expected an object"));
  CHECK_THAT(refusal_of_text(R"({"model": {"type": "BPE", "type": "BPE"}})"), Contains("key \"type\""));
  CHECK_THAT(refusal_of_text("{\"model\": \"\xFF\"}"), Contains("not valid JSON"));
  CHECK_THAT(refusal_of_text("{}"), Contains("has no \"model\""));

  nlohmann::json doc = minimal();
  doc["model"]["vocab"]["a"] = -1;
  CHECK_THAT(refusal(doc), Contains("model.vocab.a") && Contains("token id"));

  doc = minimal();
  doc["model"]["vocab"]["c"] = 0;
  CHECK_THAT(refusal(doc), Contains("id 0 is given to both"));

  doc = minimal();
  doc["model"]["merges"] = {"a c"};
  CHECK_THAT(refusal(doc), Contains("model.merges[0]") && Contains("\"c\" is not in the vocab"));

  doc = minimal();
  doc["model"]["merges"] = {"a b c"};
  CHECK_THAT(refusal(doc), Contains("not two tokens separated by one space"));

  doc = minimal();
  doc["model"]["merges"] = {{"a"}};
  CHECK_THAT(refusal(doc), Contains("a merge must be"));

  doc = minimal();
  doc["model"].erase("vocab");
  CHECK_THAT(refusal(doc), Contains("model: has no \"vocab\""));

  doc = minimal();
  doc["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}};
  CHECK_THAT(refusal(doc), Contains("regex (unclosed does not compile"));

  doc = minimal();
  doc["added_tokens"] = {{{"id", 7}, {"content", ""}, {"special", true}}};
  CHECK_THAT(refusal(doc), Contains("added_tokens[0].content") && Contains("cannot be empty"));

  doc = minimal();
  doc["normalizer"] = {{"type", "NFC"}};
  doc["added_tokens"] = {{{"id", 7}, {"content", "\xC3\xA9"}, {"normalized", true}},
                         {{"id", 8}, {"content", "e\xCC\x81"}, {"normalized", true}}};
  CHECK_THAT(refusal(doc), Contains("added_tokens[1]") && Contains("like \"\xC3\xA9\""));

  doc = minimal();
  doc["post_processor"] = {{"type", "TemplateProcessing"},
                           {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}}},
                           {"special_tokens", nlohmann::json::object()}};
  CHECK_THAT(refusal(doc), Contains("special token \"<s>\" is not in special_tokens"));
}

TEST_CASE("load checks the file size against the cap before reading", "[tokenizer][load]") {
  const auto dir = std::filesystem::temp_directory_path() / ("algenta-tokenizer-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "tokenizer.json";
  const std::string text = minimal().dump();
  std::ofstream(path) << text;

  CHECK(Tokenizer::load(path).encode("ab", false) == std::vector<std::uint32_t>{2});
  try {
    Tokenizer::load(path, text.size() - 1);
    FAIL("a file over the cap was read");
  } catch (const TokenizerError& e) {
    CHECK_THAT(e.what(), Contains(path.string()) && Contains(std::to_string(text.size()) + " bytes is more than the cap of " +
                                                             std::to_string(text.size() - 1) + " bytes"));
  }
  CHECK_NOTHROW(Tokenizer::load(path, text.size()));
  CHECK(default_max_file_bytes == 64ull * 1024 * 1024);

  try {
    Tokenizer::load(dir / "missing.json");
    FAIL("a missing file was read");
  } catch (const TokenizerError& e) {
    CHECK_THAT(e.what(), Contains("missing.json"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("Added tokens split out of the text honour lstrip, rstrip and single_word", "[tokenizer][added]") {
  nlohmann::json doc = document(bpe_model({" ", "a", "x"}, nlohmann::json::array()));
  doc["added_tokens"] = {
      {{"id", 10}, {"content", "<L>"}, {"special", true}, {"lstrip", true}, {"normalized", false}},
      {{"id", 11}, {"content", "<R>"}, {"special", true}, {"rstrip", true}, {"normalized", false}},
      {{"id", 12}, {"content", "ax"}, {"special", false}, {"single_word", true}, {"normalized", true}},
      {{"id", 13}, {"content", "<LL>"}, {"special", true}, {"normalized", false}}};
  doc["post_processor"] = {{"type", "TemplateProcessing"},
                           {"single", {{{"SpecialToken", {{"id", "<L>"}, {"type_id", 0}}}},
                                       {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                           {"special_tokens", {{"<L>", {{"id", "<L>"}, {"ids", {10}}, {"tokens", {"<L>"}}}}}}};
  const Tokenizer tokenizer = load(doc);
  using Ids = std::vector<std::uint32_t>;
  CHECK(tokenizer.encode("a  <L>a", false) == Ids{1, 10, 1});
  CHECK(tokenizer.encode("a<R>  a", false) == Ids{1, 11, 1});
  CHECK(tokenizer.encode("a ax a", false) == Ids{1, 0, 12, 0, 1});
  CHECK(tokenizer.encode("aax", false) == Ids{1, 1, 2});  // not a single word
  CHECK(tokenizer.encode("<LL>", false) == Ids{13});      // the longest match wins
  CHECK(tokenizer.encode("a", true) == Ids{10, 1});
  CHECK(tokenizer.decode({10, 1, 12}, false) == "<L> a ax");
  CHECK(tokenizer.decode({10, 1, 12}, true) == "a ax");
}

TEST_CASE("Text that is not UTF-8 is refused, naming the byte", "[tokenizer][encode]") {
  const Tokenizer tokenizer = load(minimal());
  try {
    tokenizer.encode("ab\xC3(", false);
    FAIL("invalid UTF-8 was encoded");
  } catch (const TokenizerError& e) {
    CHECK_THAT(e.what(), Contains("byte 0xC3 at offset 2 of 4"));
  }
}

TEST_CASE("Normalization uses Unicode 9.0 data, as tokenizers does", "[tokenizer][normalizer]") {
  nlohmann::json doc = document(bpe_model({"a"}, nlohmann::json::array()));
  doc["normalizer"] = {{"type", "NFC"}};
  doc["decoder"] = nullptr;
  doc["model"]["unk_token"] = nullptr;
  // The ids do not show the normalized text; the added token does: it is
  // found only where the normalized text holds its (normalized) form.
  doc["added_tokens"] = {{{"id", 5}, {"content", "\xE0\xB9\x88\xF0\x91\xB5\x84"}, {"normalized", true}},
                         {{"id", 6}, {"content", "e\xCC\x81"}, {"normalized", true}}};
  const Tokenizer tokenizer = load(doc);
  // U+0E48 (ccc 107) before U+11D44 (ccc 9, Unicode 10): current data would swap them.
  CHECK(tokenizer.encode("\xE0\xB9\x88\xF0\x91\xB5\x84", false) == std::vector<std::uint32_t>{5});
  // e + U+0301 composes to U+00E9 under any version; the token was normalized too.
  CHECK(tokenizer.encode("e\xCC\x81", false) == std::vector<std::uint32_t>{6});
  CHECK(tokenizer.encode("\xC3\xA9", false) == std::vector<std::uint32_t>{6});
}
