// Damaged tokenizer.json files and odd texts: each is refused with a
// TokenizerError or handled, never a crash (run under the asan preset too).
#include "tokenizer_json_builder.hpp"

#include "random/splitmix64.hpp"
#include "tokenizer/stream_decoder.hpp"
#include "tokenizer/tokenizer_error.hpp"

#include <catch2/catch.hpp>

using namespace algenta::tokenizer;
using namespace algenta::tokenizer::test;

namespace {

nlohmann::json rich_document() {
  std::vector<std::string> vocab{"<unk>", "<s>", "\xE2\x96\x81", "a", "b", "\xE2\x96\x81" "a", "ab"};
  for (const std::string& token : byte_tokens()) vocab.push_back(token);
  nlohmann::json doc = document(bpe_model(vocab, {"\xE2\x96\x81 a", "a b"}));
  doc["model"]["byte_fallback"] = true;
  doc["model"]["unk_token"] = "<unk>";
  doc["added_tokens"] = {{{"id", 1}, {"content", "<s>"}, {"special", true}, {"normalized", false}, {"lstrip", true}}};
  doc["normalizer"] = {{"type", "Sequence"},
                       {"normalizers", {{{"type", "NFC"}},
                                        {{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}},
                                        {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xE2\x96\x81"}}}}};
  doc["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "\\p{N}+"}}}, {"behavior", "Isolated"}};
  doc["post_processor"] = {{"type", "TemplateProcessing"},
                           {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                                       {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                           {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}};
  doc["decoder"] = {{"type", "Sequence"},
                    {"decoders", {{{"type", "Replace"}, {"pattern", {{"String", "\xE2\x96\x81"}}}, {"content", " "}},
                                  {{"type", "ByteFallback"}},
                                  {{"type", "Fuse"}},
                                  {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
  return doc;
}

}  // namespace

TEST_CASE("Truncated and byte-damaged tokenizer.json files never crash the loader", "[tokenizer][damaged]") {
  const std::string good = rich_document().dump();
  REQUIRE_NOTHROW(Tokenizer::from_json_text(good));
  algenta::SplitMix64 random(20261203);
  int refused = 0;
  for (int round = 0; round < 400; ++round) {
    std::string damaged = good;
    if (round % 2 == 0) {
      damaged.resize(random.next() % good.size());
    } else {
      for (int flips = 0; flips < 3; ++flips) {
        damaged[random.next() % damaged.size()] = static_cast<char>(random.next() & 0xFF);
      }
    }
    try {
      const Tokenizer tokenizer = Tokenizer::from_json_text(damaged);
      // Loaded: it must still encode and decode without failing.
      const auto ids = tokenizer.encode("a b 12 <s>ab", true);
      CHECK_NOTHROW(tokenizer.decode(ids, false));
    } catch (const TokenizerError&) {
      ++refused;
    }
  }
  CHECK(refused > 200);  // every truncation at least is refused
}

TEST_CASE("Odd ids and texts are handled", "[tokenizer][damaged]") {
  const Tokenizer tokenizer = load(rich_document());
  // Ids the tokenizer does not know are left out of decode, as tokenizers does.
  CHECK(tokenizer.decode({3, 999999, 4}, false) == "ab");
  // As tokenizers gives them: "▁a" <0x00> "b", and one "▁" per space plus the prepended one.
  CHECK(tokenizer.encode(std::string("a\0b", 3), false) == std::vector<std::uint32_t>{5, 7, 4});
  CHECK(tokenizer.encode(std::string(100000, ' '), false).size() == 100001);
  StreamDecoder stream(tokenizer, false);
  CHECK(stream.push(999999).empty());
  CHECK(stream.finish().empty());
}
