// A model directory in a fresh temporary folder: a tiny character-level
// tokenizer.json with the usual special tokens, and helpers to add the other
// files ModelText reads.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

namespace algenta::prompt::test {

class ModelDir {
 public:
  ModelDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "algenta-prompt-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
    write("tokenizer.json", tokenizer_json().dump());
  }
  ~ModelDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ModelDir(const ModelDir&) = delete;
  ModelDir& operator=(const ModelDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream out(path_ / name, std::ios::binary | std::ios::trunc);
    out << bytes;
    if (!out) throw std::runtime_error("cannot write " + (path_ / name).string());
  }
  void write_json(const std::string& name, const nlohmann::json& value) const { write(name, value.dump()); }

  // Ids: the characters of kAlphabet in order, then the added tokens.
  static constexpr const char* kAlphabet = "abcdefghijklmnopqrstuvwxyz |:\n";
  static constexpr std::uint32_t kBos = 30, kEos = 31, kImEnd = 32, kPad = 33;

  // A BPE model without merges over single characters; encode_text puts <s> first.
  static nlohmann::json tokenizer_json() {
    nlohmann::json vocab = nlohmann::json::object();
    const std::string alphabet = kAlphabet;
    for (std::size_t i = 0; i < alphabet.size(); ++i) vocab[std::string(1, alphabet[i])] = i;
    const char* specials[] = {"<s>", "</s>", "<|im_end|>", "<pad>"};
    nlohmann::json added = nlohmann::json::array();
    for (std::uint32_t k = 0; k < 4; ++k) {
      vocab[specials[k]] = kBos + k;
      added.push_back({{"id", kBos + k}, {"content", specials[k]}, {"single_word", false}, {"lstrip", false},
                       {"rstrip", false}, {"normalized", false}, {"special", true}});
    }
    nlohmann::json post = {
        {"type", "TemplateProcessing"},
        {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
        {"pair", {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 1}}}}}},
        {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {kBos}}, {"tokens", {"<s>"}}}}}}};
    nlohmann::json model = {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"fuse_unk", false},
                            {"byte_fallback", false}, {"vocab", vocab}, {"merges", nlohmann::json::array()}};
    return {{"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}, {"added_tokens", added},
            {"normalizer", nullptr}, {"pre_tokenizer", nullptr}, {"post_processor", post},
            {"decoder", nullptr}, {"model", model}};
  }

 private:
  std::filesystem::path path_;
};

}  // namespace algenta::prompt::test
