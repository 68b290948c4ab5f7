#include "tokenizer_json_builder.hpp"

#include "tokenizer/stream_decoder.hpp"

#include <catch2/catch.hpp>

using namespace algenta::tokenizer;
using namespace algenta::tokenizer::test;

namespace {

// Every piece the stream gives out, the held-back rest last.
std::vector<std::string> stream_pieces(const Tokenizer& tokenizer, const std::vector<std::uint32_t>& ids, bool skip) {
  StreamDecoder stream(tokenizer, skip);
  std::vector<std::string> pieces;
  for (const std::uint32_t id : ids) pieces.push_back(stream.push(id));
  pieces.push_back(stream.finish());
  return pieces;
}

Tokenizer byte_level_tokenizer() {
  // The alphabet characters of the bytes of "€" (E2 82 AC) and "a".
  nlohmann::json doc = document(bpe_model({"â", "Ĥ", "¬", "a", "<s>"}, nlohmann::json::array()));
  doc["added_tokens"] = {{{"id", 4}, {"content", "<s>"}, {"special", true}, {"normalized", false}}};
  doc["decoder"] = {{"type", "ByteLevel"}};
  return load(doc);
}

Tokenizer byte_fallback_tokenizer() {
  std::vector<std::string> vocab{"<unk>", "<s>", "▁a", "▁", "b"};
  for (const std::string& token : byte_tokens()) vocab.push_back(token);
  nlohmann::json doc = document(bpe_model(vocab, nlohmann::json::array()));
  doc["added_tokens"] = {{{"id", 1}, {"content", "<s>"}, {"special", true}, {"normalized", false}}};
  doc["decoder"] = {{"type", "Sequence"},
                    {"decoders", {{{"type", "Replace"}, {"pattern", {{"String", "▁"}}}, {"content", " "}},
                                  {{"type", "ByteFallback"}},
                                  {{"type", "Fuse"}},
                                  {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
  return load(doc);
}

constexpr std::uint32_t byte_id(int b) { return 5 + static_cast<std::uint32_t>(b); }

}  // namespace

TEST_CASE("The stream holds back a character until its last byte arrives (byte-level)", "[tokenizer][stream]") {
  const Tokenizer tokenizer = byte_level_tokenizer();
  const auto pieces = stream_pieces(tokenizer, {3, 0, 1, 2, 3}, false);
  CHECK(pieces == std::vector<std::string>{"a", "", "", "\xE2\x82\xAC", "a", ""});
}

TEST_CASE("The stream holds back byte tokens until the run ends (byte fallback)", "[tokenizer][stream]") {
  const Tokenizer tokenizer = byte_fallback_tokenizer();
  // <s> ▁a <E2> <82> <AC> b: the leading space of "▁a" is stripped, as in decode.
  const std::vector<std::uint32_t> ids{1, 2, byte_id(0xE2), byte_id(0x82), byte_id(0xAC), 4};
  CHECK(stream_pieces(tokenizer, ids, true) == std::vector<std::string>{"", "a", "", "", "", "\xE2\x82\xAC" "b", ""});
  CHECK(tokenizer.decode(ids, true) == "a\xE2\x82\xAC" "b");
}

TEST_CASE("A byte run that turns invalid becomes one U+FFFD per byte, as decode says", "[tokenizer][stream]") {
  const Tokenizer tokenizer = byte_fallback_tokenizer();
  // C3 A9 is "é", but C3 A9 80 is invalid: tokenizers then gives three U+FFFD.
  const std::vector<std::uint32_t> ids{2, byte_id(0xC3), byte_id(0xA9), byte_id(0x80)};
  std::string joined;
  for (const std::string& piece : stream_pieces(tokenizer, ids, false)) joined += piece;
  CHECK(joined == tokenizer.decode(ids, false));
  CHECK(joined == "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("A stream of a lone space token keeps the text decode gives", "[tokenizer][stream]") {
  const Tokenizer tokenizer = byte_fallback_tokenizer();
  for (const auto& ids : {std::vector<std::uint32_t>{3, 3, 2}, {3}, {1, 3, 4}, {4, 3, 3}}) {
    std::string joined;
    for (const std::string& piece : stream_pieces(tokenizer, ids, true)) joined += piece;
    CHECK(joined == tokenizer.decode(ids, true));
  }
}
