#include "sched/prefix_index.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>

#include "sched/scheduler_limits.hpp"

namespace algenta::sched {
namespace {

void append_u32(std::string& bytes, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((value >> (8 * i)) & 0xffu));
}

}  // namespace

BlockKey block_key(const BlockKey& parent, std::string_view policy,
                   std::span<const std::int32_t> tokens) {
  // Lengths go in before their fields, so no two inputs share bytes.
  std::string bytes(reinterpret_cast<const char*>(parent.data()), parent.size());
  append_u32(bytes, static_cast<std::uint32_t>(policy.size()));
  bytes.append(policy);
  append_u32(bytes, static_cast<std::uint32_t>(tokens.size()));
  for (const std::int32_t token : tokens) append_u32(bytes, static_cast<std::uint32_t>(token));

  BlockKey key{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), key.data(), &length, EVP_sha256(), nullptr) != 1 ||
      length != key.size()) {
    throw SchedulerError("SHA-256 of a KV block's key failed");
  }
  return key;
}

std::size_t PrefixIndex::KeyHash::operator()(const BlockKey& key) const noexcept {
  std::size_t h = 0;
  std::memcpy(&h, key.data(), sizeof h);  // already uniformly spread
  return h;
}

PrefixIndex::PrefixIndex(std::uint32_t block_tokens, std::string policy)
    : block_tokens_(block_tokens), policy_(std::move(policy)) {
  if (block_tokens_ == 0) throw SchedulerError("a prefix index needs blocks of at least one token");
}

void PrefixIndex::touch(Entry& entry) {
  recency_.splice(recency_.end(), recency_, entry.recency);  // most recent last
}

std::vector<BlockKey> PrefixIndex::keys(std::span<const std::int32_t> prompt) const {
  std::vector<BlockKey> keys;
  keys.reserve(prompt.size() / block_tokens_);
  BlockKey parent{};
  for (std::size_t start = 0; start + block_tokens_ <= prompt.size(); start += block_tokens_) {
    parent = block_key(parent, policy_, prompt.subspan(start, block_tokens_));
    keys.push_back(parent);
  }
  return keys;
}

std::size_t PrefixIndex::servable_blocks(std::size_t prompt_tokens) const {
  return prompt_tokens < 2 ? 0 : (prompt_tokens - 2) / block_tokens_;
}

std::vector<BlockId> PrefixIndex::match(std::span<const std::int32_t> prompt) {
  return match(keys(prompt), prompt.size());
}

std::vector<BlockId> PrefixIndex::match(std::span<const BlockKey> keys, std::size_t prompt_tokens) {
  std::vector<BlockId> found;
  std::vector<Entry*> entries;
  const std::size_t servable = std::min(keys.size(), servable_blocks(prompt_tokens));
  for (std::size_t i = 0; i < servable; ++i) {
    const auto it = entries_.find(keys[i]);
    if (it == entries_.end()) break;
    found.push_back(it->second.block);
    entries.push_back(&it->second);
  }
  touch_chain(entries);
  return found;
}

void PrefixIndex::touch_chain(std::span<Entry* const> chain) {
  // Deepest first, so the chain's first block is the most recent: eviction
  // takes a chain from its end, and what stays is still reachable.
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) touch(**it);
}

void PrefixIndex::insert(std::span<const std::int32_t> tokens, std::span<const BlockId> blocks,
                         BlockPool& pool) {
  BlockKey parent{};
  const std::size_t whole = std::min(tokens.size() / block_tokens_, blocks.size());
  std::vector<Entry*> chain;
  for (std::size_t i = 0; i < whole; ++i) {
    parent = block_key(parent, policy_, tokens.subspan(i * block_tokens_, block_tokens_));
    auto it = entries_.find(parent);
    if (it == entries_.end()) {
      pool.retain(blocks[i]);
      recency_.push_back(parent);
      it = entries_.emplace(parent, Entry{blocks[i], std::prev(recency_.end())}).first;
    }
    chain.push_back(&it->second);
  }
  touch_chain(chain);
}

std::uint32_t PrefixIndex::evict(std::uint32_t count, BlockPool& pool) {
  std::uint32_t dropped = 0;
  for (auto it = recency_.begin(); it != recency_.end() && dropped < count;) {
    const auto entry = entries_.find(*it);
    const BlockId block = entry->second.block;
    if (pool.ref_count(block) != 1) {  // a sequence still lists it
      ++it;
      continue;
    }
    pool.release(block);
    entries_.erase(entry);
    it = recency_.erase(it);
    ++dropped;
  }
  return dropped;
}

std::uint32_t PrefixIndex::evictable(const BlockPool& pool) const {
  std::uint32_t count = 0;
  for (const auto& [key, entry] : entries_) count += pool.ref_count(entry.block) == 1 ? 1 : 0;
  return count;
}

}  // namespace algenta::sched
