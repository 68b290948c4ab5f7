// The BPE `model`: vocab, ranked merges (both encodings: "a b" strings and
// [a, b] pairs), ignore_merges, byte_fallback (<0xNN> tokens), unk/fuse_unk.
// Merging follows tokenizers: a priority queue on (rank, position), lowest
// first, with stale entries skipped. Results are cached per word.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace algenta::tokenizer {

class BpeModel {
 public:
  static BpeModel from_json(const nlohmann::json& section, std::string_view path);

  BpeModel(BpeModel&& other) noexcept;
  BpeModel& operator=(BpeModel&&) = delete;
  BpeModel(const BpeModel&) = delete;

  // Appends the ids of one pre-tokenized word.
  void tokenize(std::string_view word, std::vector<std::uint32_t>& ids) const;

  std::optional<std::uint32_t> token_to_id(std::string_view token) const;
  const std::string* id_to_token(std::uint32_t id) const;
  std::size_t vocab_size() const { return vocab_.size(); }

 private:
  BpeModel() = default;
  std::vector<std::uint32_t> merge_word(std::string_view word) const;

  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Merge {
    std::uint32_t rank;
    std::uint32_t new_id;
  };

  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> vocab_;
  std::unordered_map<std::uint32_t, std::string> tokens_by_id_;
  std::unordered_map<std::uint64_t, Merge> merges_;
  std::optional<std::uint32_t> unk_id_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::uint32_t byte_ids_[256] = {};
  bool has_byte_id_[256] = {};

  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<std::uint32_t>, StringHash, std::equal_to<>> cache_;
};

}  // namespace algenta::tokenizer
