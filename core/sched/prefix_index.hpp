// The prefix cache's index: which full KV blocks hold which token prefixes,
// so that a new sequence can list blocks another sequence computed instead
// of computing them again (SCHEDULER.md, "Prefix caching").
//
// A block's key is SHA-256 over (its parent's key, the precision policy, its
// token ids as little-endian int32): equal keys mean the same
// tokens at the same positions after the same prefix, under the same
// policy, so the KV the block holds is the same bits. The index keeps one
// reference (BlockPool::retain) on every block it lists; a block only the
// index holds is evictable, least recently used first. A prompt's blocks are
// used together, the first most recently, so eviction takes a chain from its
// end and what stays listed stays reachable from a prompt's start.
#pragma once

#include <array>
#include <cstdint>
#include <list>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sched/block_pool.hpp"

namespace algenta::sched {

using BlockKey = std::array<std::uint8_t, 32>;

// The key of the block holding `tokens` (one block's worth) after `parent`
// (all zeros for the first block of a sequence).
BlockKey block_key(const BlockKey& parent, std::string_view policy,
                   std::span<const std::int32_t> tokens);

class PrefixIndex {
 public:
  PrefixIndex(std::uint32_t block_tokens, std::string policy);

  // The blocks holding the longest cached run of whole blocks that starts
  // `prompt`, backed off block by block until at least two prompt tokens are
  // left to prefill: the last prompt position must be computed for its
  // logits, and a one-token prefill chunk would take the decode path, whose
  // bits differ. Marks them used (for eviction order); takes no reference.
  std::vector<BlockId> match(std::span<const std::int32_t> prompt);
  // The same, given keys(prompt) and the prompt's token count.
  std::vector<BlockId> match(std::span<const BlockKey> keys, std::size_t prompt_tokens);

  // The keys of the whole blocks of `prompt`, in order.
  std::vector<BlockKey> keys(std::span<const std::int32_t> prompt) const;

  // How many whole blocks of a prompt of `prompt_tokens` tokens a hit may
  // serve: the back-off of match() leaves at least two tokens to compute.
  std::size_t servable_blocks(std::size_t prompt_tokens) const;

  // Lists the whole blocks of a sequence whose tokens [0, tokens.size())
  // are computed: block i of `blocks` holds tokens [i B, (i + 1) B). Blocks
  // already listed under the same key are left as they are (the sequence
  // keeps its own copy); new ones get the index's reference in `pool`.
  void insert(std::span<const std::int32_t> tokens, std::span<const BlockId> blocks, BlockPool& pool);

  // Drops up to `count` blocks that only the index holds, least recently
  // used first, releasing them to `pool`; the number dropped.
  std::uint32_t evict(std::uint32_t count, BlockPool& pool);

  // Blocks listed, and how many of them only the index holds.
  std::size_t size() const noexcept { return entries_.size(); }
  std::uint32_t evictable(const BlockPool& pool) const;

 private:
  struct KeyHash {
    std::size_t operator()(const BlockKey& key) const noexcept;
  };
  struct Entry {
    BlockId block;
    std::list<BlockKey>::iterator recency;  // position in recency_
  };
  void touch(Entry& entry);
  void touch_chain(std::span<Entry* const> chain);

  std::uint32_t block_tokens_;
  std::string policy_;
  std::unordered_map<BlockKey, Entry, KeyHash> entries_;
  std::list<BlockKey> recency_;  // least recently used first
};

}  // namespace algenta::sched
