// algenta_tokenize TOKENIZER_JSON CASES_JSON OUT_JSON
// Runs the C++ tokenizer over test cases so a test can compare it with the
// Python `tokenizers` library. CASES_JSON: {"texts": [...], "id_lists": [[...]]}.
// OUT_JSON: per text its ids (with and without special tokens), and per text
// (its ids with special tokens) and per id list: decode with and without
// skip_special_tokens and the pieces the streaming decoder gave out.
#include "tokenizer/stream_decoder.hpp"
#include "tokenizer/tokenizer.hpp"
#include "tokenizer/utf8.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

namespace {

using algenta::tokenizer::StreamDecoder;
using algenta::tokenizer::Tokenizer;
using nlohmann::json;

json stream_pieces(const Tokenizer& tokenizer, const std::vector<std::uint32_t>& ids, bool skip) {
  StreamDecoder stream(tokenizer, skip);
  json pieces = json::array();
  const auto keep = [&](std::string piece) {
    if (piece.empty()) return;
    // A piece that is not whole UTF-8 is a failure the test must see.
    if (!algenta::tokenizer::utf8::is_valid(piece)) {
      throw std::runtime_error("the streaming decoder gave out invalid UTF-8");
    }
    pieces.push_back(std::move(piece));
  };
  for (const std::uint32_t id : ids) keep(stream.push(id));
  keep(stream.finish());
  return pieces;
}

json decode_record(const Tokenizer& tokenizer, const std::vector<std::uint32_t>& ids) {
  return json{{"decoded", tokenizer.decode(ids, false)},
              {"decoded_skip", tokenizer.decode(ids, true)},
              {"stream", stream_pieces(tokenizer, ids, false)},
              {"stream_skip", stream_pieces(tokenizer, ids, true)}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: algenta_tokenize TOKENIZER_JSON CASES_JSON OUT_JSON\n";
    return 2;
  }
  try {
    const Tokenizer tokenizer = Tokenizer::load(argv[1]);
    std::ifstream cases_file(argv[2]);
    std::stringstream buffer;
    buffer << cases_file.rdbuf();
    const json cases = json::parse(buffer.str());
    json out{{"texts", json::array()}, {"id_lists", json::array()}};
    for (const json& text : cases.at("texts")) {
      const std::string s = text.get<std::string>();
      const auto ids = tokenizer.encode(s, true);
      json record = decode_record(tokenizer, ids);
      record["ids"] = ids;
      record["ids_plain"] = tokenizer.encode(s, false);
      out["texts"].push_back(std::move(record));
    }
    for (const json& list : cases.at("id_lists")) {
      out["id_lists"].push_back(decode_record(tokenizer, list.get<std::vector<std::uint32_t>>()));
    }
    std::ofstream(argv[3]) << out.dump();
  } catch (const std::exception& e) {
    std::cerr << "algenta_tokenize: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
