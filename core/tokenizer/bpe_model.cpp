#include "tokenizer/bpe_model.hpp"

#include "tokenizer/json_fields.hpp"
#include "tokenizer/utf8.hpp"

#include <cstdio>
#include <queue>

namespace algenta::tokenizer {

namespace jf = json_fields;

namespace {

constexpr std::size_t cache_capacity = 10000;
// Words this long are not cached: they are rare and would crowd the cache.
constexpr std::size_t max_cached_word_bytes = 256;

std::uint64_t pair_key(std::uint32_t left, std::uint32_t right) {
  return (static_cast<std::uint64_t>(left) << 32) | right;
}

struct MergeEntry {
  std::string left;
  std::string right;
  std::size_t json_index;  // where it is in the file, for messages
};

std::vector<MergeEntry> read_merges(const nlohmann::json& list, const std::string& path) {
  if (!list.is_array()) jf::refuse(path, "expected an array of merges");
  std::vector<MergeEntry> merges;
  merges.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& entry = list[i];
    const std::string entry_path = jf::index_path(path, i);
    if (entry.is_string()) {
      const std::string line = entry.get<std::string>();
      if (line.starts_with("#version")) continue;  // as tokenizers skips it
      const std::size_t space = line.find(' ');
      if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos) {
        jf::refuse(entry_path, "merge \"" + line + "\" is not two tokens separated by one space");
      }
      merges.push_back(MergeEntry{line.substr(0, space), line.substr(space + 1), i});
    } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() && entry[1].is_string()) {
      merges.push_back(MergeEntry{entry[0].get<std::string>(), entry[1].get<std::string>(), i});
    } else {
      jf::refuse(entry_path, "a merge must be \"a b\" or [\"a\", \"b\"]");
    }
  }
  return merges;
}

}  // namespace

BpeModel::BpeModel(BpeModel&& other) noexcept
    : vocab_(std::move(other.vocab_)),
      tokens_by_id_(std::move(other.tokens_by_id_)),
      merges_(std::move(other.merges_)),
      unk_id_(other.unk_id_),
      fuse_unk_(other.fuse_unk_),
      byte_fallback_(other.byte_fallback_),
      ignore_merges_(other.ignore_merges_) {
  std::copy(std::begin(other.byte_ids_), std::end(other.byte_ids_), byte_ids_);
  std::copy(std::begin(other.has_byte_id_), std::end(other.has_byte_id_), has_byte_id_);
}

BpeModel BpeModel::from_json(const nlohmann::json& section, std::string_view path_view) {
  const std::string path(path_view);
  const std::string type = jf::type_of(section, path);
  if (type != "BPE") {
    jf::refuse(jf::child_path(path, "type"), "model type \"" + type + "\" is not supported (supported: BPE)");
  }
  BpeModel model;
  if (const nlohmann::json* dropout = jf::optional(section, "dropout")) {
    if (!dropout->is_number() || dropout->get<double>() != 0.0) {
      jf::refuse(jf::child_path(path, "dropout"), "BPE dropout is not supported (it makes encoding random)");
    }
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (const auto value = jf::optional_string(section, key, path); value && !value->empty()) {
      jf::refuse(jf::child_path(path, key), "\"" + *value + "\" is not supported (only null or \"\")");
    }
  }
  model.fuse_unk_ = jf::bool_or(section, "fuse_unk", path, false);
  model.byte_fallback_ = jf::bool_or(section, "byte_fallback", path, false);
  model.ignore_merges_ = jf::bool_or(section, "ignore_merges", path, false);

  const std::string vocab_path = jf::child_path(path, "vocab");
  const nlohmann::json& vocab = jf::object_at(jf::required(section, "vocab", path), vocab_path);
  model.vocab_.reserve(vocab.size());
  for (const auto& [token, id_value] : vocab.items()) {
    const std::uint32_t id = jf::id_at(id_value, jf::child_path(vocab_path, token));
    if (!model.tokens_by_id_.emplace(id, token).second) {
      jf::refuse(vocab_path, "id " + std::to_string(id) + " is given to both \"" + model.tokens_by_id_[id] +
                                 "\" and \"" + token + "\"");
    }
    model.vocab_.emplace(token, id);
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    if (const auto it = model.vocab_.find(std::string_view(name)); it != model.vocab_.end()) {
      model.byte_ids_[b] = it->second;
      model.has_byte_id_[b] = true;
    }
  }
  if (const auto unk = jf::optional_string(section, "unk_token", path)) {
    const auto it = model.vocab_.find(*unk);
    // tokenizers fails only when the unknown token is needed; refusing at load is clearer.
    if (it == model.vocab_.end()) jf::refuse(jf::child_path(path, "unk_token"), "\"" + *unk + "\" is not in the vocab");
    model.unk_id_ = it->second;
  }

  const std::string merges_path = jf::child_path(path, "merges");
  const auto merges = read_merges(jf::required(section, "merges", path), merges_path);
  model.merges_.reserve(merges.size());
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [left, right, merge_index] = merges[rank];
    const std::size_t json_index = merge_index;  // clang 14 cannot capture a structured binding
    const auto find = [&](const std::string& token) {
      const auto it = model.vocab_.find(token);
      if (it == model.vocab_.end()) {
        jf::refuse(jf::index_path(merges_path, json_index), "merge token \"" + token + "\" is not in the vocab");
      }
      return it->second;
    };
    const std::uint32_t left_id = find(left);
    const std::uint32_t right_id = find(right);
    const std::uint32_t new_id = find(left + right);
    // A repeated pair keeps its last rank, as a Rust HashMap collect does.
    model.merges_[pair_key(left_id, right_id)] = Merge{static_cast<std::uint32_t>(rank), new_id};
  }
  return model;
}

std::optional<std::uint32_t> BpeModel::token_to_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string* BpeModel::id_to_token(std::uint32_t id) const {
  const auto it = tokens_by_id_.find(id);
  return it == tokens_by_id_.end() ? nullptr : &it->second;
}

std::vector<std::uint32_t> BpeModel::merge_word(std::string_view word) const {
  struct Symbol {
    std::uint32_t id;
    int prev;
    int next;
    bool removed;
  };
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  const auto add = [&](std::uint32_t id) {
    const int index = static_cast<int>(symbols.size());
    symbols.push_back(Symbol{id, index - 1, index + 1, false});
  };
  std::optional<std::uint32_t> pending_unk;
  for (std::size_t pos = 0; pos < word.size();) {
    const std::size_t length = utf8::char_length(static_cast<unsigned char>(word[pos]));
    const std::string_view character = word.substr(pos, length);
    pos += length;
    if (const auto it = vocab_.find(character); it != vocab_.end()) {
      if (pending_unk) add(*pending_unk);
      pending_unk.reset();
      add(it->second);
      continue;
    }
    if (byte_fallback_) {
      bool all_bytes = true;
      for (const char c : character) all_bytes = all_bytes && has_byte_id_[static_cast<unsigned char>(c)];
      if (all_bytes) {
        // tokenizers leaves a pending unknown token pending across byte tokens.
        for (const char c : character) add(byte_ids_[static_cast<unsigned char>(c)]);
        continue;
      }
    }
    if (unk_id_) {
      if (pending_unk && !fuse_unk_) add(*pending_unk);
      pending_unk = unk_id_;
    }
  }
  if (pending_unk) add(*pending_unk);
  if (!symbols.empty()) symbols.back().next = -1;

  struct Candidate {
    std::uint32_t rank;
    int pos;
    std::uint32_t new_id;
    bool operator>(const Candidate& other) const {
      return rank != other.rank ? rank > other.rank : pos > other.pos;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  const auto merge_of = [&](std::uint32_t left, std::uint32_t right) -> const Merge* {
    const auto it = merges_.find(pair_key(left, right));
    return it == merges_.end() ? nullptr : &it->second;
  };
  for (int i = 0; i + 1 < static_cast<int>(symbols.size()); ++i) {
    if (const Merge* m = merge_of(symbols[i].id, symbols[i + 1].id)) queue.push(Candidate{m->rank, i, m->new_id});
  }
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& current = symbols[top.pos];
    if (current.removed || current.next == -1) continue;
    Symbol& right = symbols[current.next];
    const Merge* still = merge_of(current.id, right.id);
    if (still == nullptr || still->new_id != top.new_id) continue;  // stale entry
    current.id = top.new_id;
    right.removed = true;
    current.next = right.next;
    if (right.next != -1) symbols[right.next].prev = top.pos;
    if (current.prev >= 0) {
      if (const Merge* m = merge_of(symbols[current.prev].id, current.id)) {
        queue.push(Candidate{m->rank, current.prev, m->new_id});
      }
    }
    if (current.next != -1) {
      if (const Merge* m = merge_of(current.id, symbols[current.next].id)) {
        queue.push(Candidate{m->rank, top.pos, m->new_id});
      }
    }
  }
  std::vector<std::uint32_t> ids;
  for (const Symbol& s : symbols) {
    if (!s.removed) ids.push_back(s.id);
  }
  return ids;
}

void BpeModel::tokenize(std::string_view word, std::vector<std::uint32_t>& ids) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    if (const auto it = vocab_.find(word); it != vocab_.end()) {
      ids.push_back(it->second);
      return;
    }
  }
  const bool cacheable = word.size() <= max_cached_word_bytes;
  if (cacheable) {
    std::lock_guard lock(cache_mutex_);
    if (const auto it = cache_.find(word); it != cache_.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<std::uint32_t> merged = merge_word(word);
  ids.insert(ids.end(), merged.begin(), merged.end());
  if (cacheable) {
    std::lock_guard lock(cache_mutex_);
    if (cache_.size() >= cache_capacity) cache_.clear();
    cache_.emplace(std::string(word), std::move(merged));
  }
}

}  // namespace algenta::tokenizer
