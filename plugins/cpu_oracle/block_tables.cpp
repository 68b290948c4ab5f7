#include "block_tables.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "plugin_support/plugin_error.hpp"

namespace algenta::oracle {
namespace {

[[noreturn]] void refuse(const std::string& message) {
  throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT, message};
}

std::size_t block_of(std::size_t position) { return position / kHostBlockTokens; }
std::size_t offset_of(std::size_t position) { return position % kHostBlockTokens; }

}  // namespace

decoder::HostBlockGeometry host_block_geometry(std::uint64_t kv_cache_bytes, std::size_t layers,
                                               std::size_t kv_dim,
                                               const decoder::EngineLimits& limits) {
  const std::uint64_t block_bytes =
      std::uint64_t{2} * layers * kHostBlockTokens * kv_dim * sizeof(float);
  const std::uint64_t per_sequence = (limits.max_context + kHostBlockTokens - 1) / kHostBlockTokens;
  const std::uint64_t blocks =
      kv_cache_bytes > 0 ? kv_cache_bytes / block_bytes : per_sequence * limits.max_sequences;
  if (blocks == 0) {
    refuse("kv_cache_bytes " + std::to_string(kv_cache_bytes) +
           " holds no KV block; one block of " + std::to_string(kHostBlockTokens) +
           " tokens takes " + std::to_string(block_bytes) + " bytes");
  }
  // Block ids are 32-bit, and storage is only made for blocks written.
  const std::uint64_t most = std::numeric_limits<std::uint32_t>::max();
  return {kHostBlockTokens, static_cast<std::size_t>(std::min(blocks, most))};
}

float* TableSlots::key_slot(std::size_t layer, std::size_t position) {
  return kv_.key(table_[block_of(position)], layer, offset_of(position));
}

float* TableSlots::value_slot(std::size_t layer, std::size_t position) {
  return kv_.value(table_[block_of(position)], layer, offset_of(position));
}

void TableSlots::runs(std::size_t layer, std::size_t positions, std::vector<KvRun>& runs) const {
  for (std::size_t first = 0; first < positions; first += kHostBlockTokens) {
    const std::uint32_t block = table_[block_of(first)];
    runs.push_back({kv_.key(block, layer, 0), kv_.value(block, layer, 0),
                    std::min(kHostBlockTokens, positions - first)});
  }
}

HostBlockKv::HostBlockKv(std::size_t layers, std::size_t kv_dim)
    : layers_(layers), kv_dim_(kv_dim) {}

void HostBlockKv::check_reads(const decoder::PlannedChunk& chunk) const {
  for (std::size_t p = 0; p < chunk.start; ++p) {
    const std::uint32_t block = chunk.block_table[block_of(p)];
    const auto it = blocks_.find(block);
    if (it == blocks_.end() || (it->second.written >> offset_of(p) & 1u) == 0) {
      refuse("sequence " + std::to_string(chunk.sequence_id) + " reads position " +
             std::to_string(p) + " from block " + std::to_string(block) + " (offset " +
             std::to_string(offset_of(p)) + "), which no chunk has computed");
    }
  }
}

void HostBlockKv::reserve(const decoder::PlannedChunk& chunk) {
  const std::size_t end = chunk.start + chunk.tokens.size();
  for (std::size_t i = block_of(chunk.start); i < block_of(end - 1) + 1; ++i) {
    if (blocks_.count(chunk.block_table[i])) continue;
    Block block;
    block.floats.assign(block_floats(), 0.0f);  // may throw: then nothing changed
    blocks_.emplace(chunk.block_table[i], std::move(block));
  }
}

void HostBlockKv::mark_written(const decoder::PlannedChunk& chunk) {
  const std::size_t end = chunk.start + chunk.tokens.size();
  for (std::size_t p = chunk.start; p < end; ++p) {
    made(chunk.block_table[block_of(p)]).written |= 1u << offset_of(p);
  }
}

HostBlockKv::Block& HostBlockKv::made(std::uint32_t block) {
  const auto it = blocks_.find(block);
  // check_reads() and reserve() run first, so this is a bug, not bad input.
  if (it == blocks_.end()) {
    throw std::logic_error("KV block " + std::to_string(block) + " was never made");
  }
  return it->second;
}

float* HostBlockKv::key(std::uint32_t block, std::size_t layer, std::size_t offset) {
  return made(block).floats.data() + (2 * layer * kHostBlockTokens + offset) * kv_dim_;
}

float* HostBlockKv::value(std::uint32_t block, std::size_t layer, std::size_t offset) {
  return made(block).floats.data() + ((2 * layer + 1) * kHostBlockTokens + offset) * kv_dim_;
}

std::uint64_t HostBlockKv::bytes() const noexcept {
  return std::uint64_t{blocks_.size()} * block_floats() * sizeof(float);
}

}  // namespace algenta::oracle
