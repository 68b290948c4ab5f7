#include "tokenizer_json_builder.hpp"

#include <catch2/catch.hpp>

using namespace algenta::tokenizer;
using namespace algenta::tokenizer::test;
using Ids = std::vector<std::uint32_t>;

TEST_CASE("BPE applies the lowest-ranked merge first", "[tokenizer][bpe]") {
  const std::vector<std::string> vocab{"a", "b", "c", "ab", "bc", "abc"};
  // "b c" outranks "a b": a + bc, then "a bc".
  const Tokenizer bc_first = load(document(bpe_model(vocab, {"b c", "a b", "a bc"})));
  CHECK(bc_first.encode("abc", false) == Ids{5});
  CHECK(bc_first.encode("ab", false) == Ids{3});
  // Without "a bc" the word stops at a + bc.
  const Tokenizer no_final = load(document(bpe_model(vocab, {"b c", "a b"})));
  CHECK(no_final.encode("abc", false) == Ids{0, 4});
  // "a b" first: ab + c, then "ab c".
  const Tokenizer ab_first = load(document(bpe_model(vocab, {"a b", "b c", "ab c"})));
  CHECK(ab_first.encode("abc", false) == Ids{5});
  const Tokenizer ab_only = load(document(bpe_model(vocab, {"a b", "b c"})));
  CHECK(ab_only.encode("abc", false) == Ids{3, 2});
}

TEST_CASE("BPE merges at equal rank go left to right", "[tokenizer][bpe]") {
  const Tokenizer tokenizer = load(document(bpe_model({"a", "aa"}, {"a a"})));
  CHECK(tokenizer.encode("aaa", false) == Ids{1, 0});
  CHECK(tokenizer.encode("aaaa", false) == Ids{1, 1});
}

TEST_CASE("Both merge encodings give the same ids; #version lines are skipped", "[tokenizer][bpe]") {
  const std::vector<std::string> vocab{"x", "y", "z", "xy", "xyz"};
  const Tokenizer strings = load(document(bpe_model(vocab, {"#version: 0.2", "x y", "xy z"})));
  const nlohmann::json pair_list = nlohmann::json::array({nlohmann::json::array({"x", "y"}), nlohmann::json::array({"xy", "z"})});
  const Tokenizer pairs = load(document(bpe_model(vocab, pair_list)));
  CHECK(strings.encode("xyzxy", false) == Ids{4, 3});
  CHECK(pairs.encode("xyzxy", false) == Ids{4, 3});
}

TEST_CASE("ignore_merges takes a whole word found in the vocab", "[tokenizer][bpe]") {
  // "abc" is in the vocab but no merge reaches it.
  nlohmann::json model = bpe_model({"a", "b", "c", "ab", "abc"}, {"a b"});
  CHECK(load(document(model)).encode("abc", false) == Ids{3, 2});
  model["ignore_merges"] = true;
  CHECK(load(document(model)).encode("abc", false) == Ids{4});
}

TEST_CASE("byte_fallback spells characters outside the vocab as <0xNN> tokens", "[tokenizer][bpe]") {
  std::vector<std::string> vocab{"<unk>", "a"};
  for (const std::string& token : byte_tokens()) vocab.push_back(token);
  nlohmann::json model = bpe_model(vocab, nlohmann::json::array());
  model["byte_fallback"] = true;
  model["unk_token"] = "<unk>";
  const Tokenizer tokenizer = load(document(model));
  // "€" is E2 82 AC; token "<0xNN>" has id 2 + NN.
  CHECK(tokenizer.encode("a\xE2\x82\xAC", false) == Ids{1, 2 + 0xE2, 2 + 0x82, 2 + 0xAC});
}

TEST_CASE("Without byte tokens unknown characters become <unk>, fused when fuse_unk", "[tokenizer][bpe]") {
  nlohmann::json model = bpe_model({"<unk>", "a"}, nlohmann::json::array());
  model["unk_token"] = "<unk>";
  CHECK(load(document(model)).encode("xya", false) == Ids{0, 0, 1});
  model["fuse_unk"] = true;
  CHECK(load(document(model)).encode("xya", false) == Ids{0, 1});
  // No unk token and no byte tokens: the character is dropped, as tokenizers does.
  CHECK(load(document(bpe_model({"a"}, nlohmann::json::array()))).encode("xa", false) == Ids{0});
}

TEST_CASE("Byte-level BPE sees bytes as GPT-2's alphabet", "[tokenizer][bpe]") {
  // "Ġ" is the space byte, "Ã" and "©" the bytes of "é".
  nlohmann::json doc = document(bpe_model({"Ġ", "h", "i", "Ġh", "Ġhi", "Ã", "©"}, {"Ġ h", "Ġh i"}));
  doc["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}};
  doc["decoder"] = {{"type", "ByteLevel"}};
  const Tokenizer tokenizer = load(doc);
  CHECK(tokenizer.encode("hi", false) == Ids{4});
  CHECK(tokenizer.encode("hi \xC3\xA9", false) == Ids{4, 0, 5, 6});
  CHECK(tokenizer.decode({4, 0, 5, 6}, false) == " hi \xC3\xA9");
  // Half a character decodes to U+FFFD, as String::from_utf8_lossy does.
  CHECK(tokenizer.decode({4, 5}, false) == " hi\xEF\xBF\xBD");
}
