#include "paged_kv.hpp"

#include <string>

#include "kernels/engine_layout.hpp"
#include "plugin_support/plugin_error.hpp"

namespace algenta::cuda {

PagedKvBlocks::PagedKvBlocks(std::size_t total_blocks) : total_(total_blocks) {
  free_.reserve(total_blocks);
  // Block 0 is handed out first.
  for (std::size_t i = total_blocks; i > 0; --i) free_.push_back(static_cast<std::int32_t>(i - 1));
}

std::size_t PagedKvBlocks::blocks_for(std::size_t positions) {
  return (positions + kKvBlockTokens - 1) / kKvBlockTokens;
}

std::optional<std::size_t> PagedKvBlocks::cached_length(std::uint64_t id) const {
  const auto found = sequences_.find(id);
  if (found == sequences_.end()) return std::nullopt;
  return found->second.length;
}

std::size_t PagedKvBlocks::blocks_needed(const std::vector<decoder::PlannedChunk>& chunks) const {
  std::size_t needed = 0;
  for (const decoder::PlannedChunk& chunk : chunks) {
    const auto found = sequences_.find(chunk.sequence_id);
    const std::size_t held = found == sequences_.end() ? 0 : found->second.blocks.size();
    const std::size_t wanted = blocks_for(chunk.start + chunk.tokens.size());
    if (wanted > held) needed += wanted - held;
  }
  return needed;
}

void PagedKvBlocks::reserve(const std::vector<decoder::PlannedChunk>& chunks) {
  const std::size_t needed = blocks_needed(chunks);
  if (needed > free_.size()) {
    throw plugin::StatusError{
        ALGENTA_STATUS_OUT_OF_MEMORY,
        "the KV cache is full: this step needs " + std::to_string(needed) + " more blocks of " +
            std::to_string(kKvBlockTokens) + " tokens but " + std::to_string(free_.size()) +
            " of " + std::to_string(total_) +
            " are free (free finished sequences, or open with a larger KV cache)"};
  }
  for (const decoder::PlannedChunk& chunk : chunks) {
    Sequence& sequence = sequences_[chunk.sequence_id];  // new sequences start empty
    const std::size_t wanted = blocks_for(chunk.start + chunk.tokens.size());
    while (sequence.blocks.size() < wanted) {
      sequence.blocks.push_back(free_.back());
      free_.pop_back();
    }
  }
}

void PagedKvBlocks::trim(Sequence& sequence) {
  while (sequence.blocks.size() > blocks_for(sequence.length)) {
    free_.push_back(sequence.blocks.back());
    sequence.blocks.pop_back();
  }
}

void PagedKvBlocks::roll_back(const std::vector<decoder::PlannedChunk>& chunks) {
  for (const decoder::PlannedChunk& chunk : chunks) {
    const auto found = sequences_.find(chunk.sequence_id);
    if (found == sequences_.end()) continue;
    if (chunk.starts_sequence) {
      release(chunk.sequence_id);
    } else {
      trim(found->second);
    }
  }
}

void PagedKvBlocks::set_length(std::uint64_t id, std::size_t length) {
  sequences_.at(id).length = length;
}

void PagedKvBlocks::release(std::uint64_t id) {
  const auto found = sequences_.find(id);
  if (found == sequences_.end()) return;
  // Returned in order, so the next sequence takes them back last-first.
  for (const std::int32_t block : found->second.blocks) free_.push_back(block);
  sequences_.erase(found);
}

const std::vector<std::int32_t>& PagedKvBlocks::blocks_of(std::uint64_t id) const {
  return sequences_.at(id).blocks;
}

}  // namespace algenta::cuda
