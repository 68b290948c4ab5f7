// The oracle's KV cache when the host owns the blocks (ABI 1.1 host block
// tables): a pool of 16-token blocks the host hands out by id (what it
// remembers per sequence is decoder::HostSequences). A chunk reaches its
// positions through its own table, so a block the host lists in several
// tables (a shared prefix) is read by all of them.
//
// A block's storage is made on its first write (zeros until written), and
// which of its positions were ever written is kept: a chunk that would read
// a position no chunk computed is refused instead of reading zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <span>
#include <vector>

#include "kv_slots.hpp"
#include "step_plan.hpp"

namespace algenta::oracle {

inline constexpr std::size_t kHostBlockTokens = 16;
static_assert(kHostBlockTokens <= 32, "a block's written positions are bits of a uint32_t");

// The geometry the oracle offers when the host asks for block tables:
// kv_cache_bytes worth of blocks, or (0) enough for every sequence to reach
// the context. INVALID_ARGUMENT when kv_cache_bytes holds no block.
decoder::HostBlockGeometry host_block_geometry(std::uint64_t kv_cache_bytes, std::size_t layers,
                                               std::size_t kv_dim,
                                               const decoder::EngineLimits& limits);

class HostBlockKv;

// One chunk's positions through its block table.
class TableSlots final : public KvSlots {
 public:
  TableSlots(HostBlockKv& kv, std::span<const std::uint32_t> table) : kv_(kv), table_(table) {}
  float* key_slot(std::size_t layer, std::size_t position) override;
  float* value_slot(std::size_t layer, std::size_t position) override;
  // One run per block.
  void runs(std::size_t layer, std::size_t positions, std::vector<KvRun>& runs) const override;

 private:
  HostBlockKv& kv_;
  std::span<const std::uint32_t> table_;
};

class HostBlockKv final {
 public:
  HostBlockKv(std::size_t layers, std::size_t kv_dim);

  // Refuses (INVALID_ARGUMENT) a chunk that reads a position, before its
  // start, that no chunk has written.
  void check_reads(const decoder::PlannedChunk& chunk) const;
  // Makes storage for the blocks the chunk writes. Changes nothing else.
  void reserve(const decoder::PlannedChunk& chunk);
  // After a step that succeeded: the positions the chunk wrote.
  void mark_written(const decoder::PlannedChunk& chunk);

  float* key(std::uint32_t block, std::size_t layer, std::size_t offset);
  float* value(std::uint32_t block, std::size_t layer, std::size_t offset);

  std::uint64_t bytes() const noexcept;  // block storage made so far

 private:
  struct Block {
    std::vector<float> floats;  // per layer: keys, then values, kHostBlockTokens x kv_dim each
    std::uint32_t written = 0;  // bit i: position i was computed
  };
  std::size_t block_floats() const noexcept { return layers_ * 2 * kHostBlockTokens * kv_dim_; }
  Block& made(std::uint32_t block);  // a block reserve() made

  std::size_t layers_;
  std::size_t kv_dim_;
  std::unordered_map<std::uint32_t, Block> blocks_;  // those written so far
};

}  // namespace algenta::oracle
