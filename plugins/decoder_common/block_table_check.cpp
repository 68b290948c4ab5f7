#include "block_table_check.hpp"

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "plugin_support/plugin_error.hpp"

namespace algenta::decoder {
namespace {

[[noreturn]] void refuse(const std::string& message) {
  throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT, message};
}

std::string sequence_text(std::uint64_t id) { return "sequence " + std::to_string(id); }

}  // namespace

std::span<const std::uint32_t> checked_block_table(const AlgentaSequenceChunk& chunk,
                                                   const HostBlockGeometry& geometry) {
  const std::string who = sequence_text(chunk.sequence_id);
  if (!ALGENTA_STRUCT_HAS(&chunk, AlgentaSequenceChunk, block_count)) {
    refuse(who + ": the chunk's struct_size is " + std::to_string(chunk.struct_size) +
           " bytes; the engine took host block tables, which need an ABI 1.1 chunk of " +
           std::to_string(ALGENTA_SequenceChunk_STRUCT_SIZE_1_1) + " bytes");
  }
  const std::uint64_t end = std::uint64_t{chunk.start_position} + chunk.token_count;
  const std::uint64_t needed = (end + geometry.block_tokens - 1) / geometry.block_tokens;
  if (chunk.block_table == nullptr) {
    refuse(who + ": block_table is NULL; positions 0.." + std::to_string(end - 1) + " need " +
           std::to_string(needed) + " blocks of " + std::to_string(geometry.block_tokens) +
           " tokens");
  }
  if (chunk.block_count < needed) {
    refuse(who + ": the block table lists " + std::to_string(chunk.block_count) +
           " blocks; positions 0.." + std::to_string(end - 1) + " need " + std::to_string(needed) +
           " blocks of " + std::to_string(geometry.block_tokens) + " tokens");
  }
  std::unordered_set<std::uint32_t> listed;
  for (std::uint64_t i = 0; i < needed; ++i) {
    const std::uint32_t block = chunk.block_table[i];
    if (block >= geometry.blocks_total) {
      refuse(who + ": block table entry " + std::to_string(i) + " is block " +
             std::to_string(block) + "; the cache's blocks are 0.." +
             std::to_string(geometry.blocks_total - 1));
    }
    if (!listed.insert(block).second) {
      refuse(who + ": the block table lists block " + std::to_string(block) + " twice");
    }
  }
  return {chunk.block_table, static_cast<std::size_t>(needed)};
}

void refuse_shared_writes(std::span<const PlannedChunk> chunks, const HostBlockGeometry& geometry) {
  // The sequence that writes each block this step.
  std::unordered_map<std::uint32_t, std::uint64_t> writer;
  for (const PlannedChunk& chunk : chunks) {
    const std::size_t first = chunk.start / geometry.block_tokens;
    for (std::size_t i = first; i < chunk.block_table.size(); ++i) {
      writer.emplace(chunk.block_table[i], chunk.sequence_id);
    }
  }
  for (const PlannedChunk& chunk : chunks) {
    for (const std::uint32_t block : chunk.block_table) {
      const auto it = writer.find(block);
      if (it != writer.end() && it->second != chunk.sequence_id) {
        refuse(sequence_text(it->second) + " writes block " + std::to_string(block) + ", which " +
               sequence_text(chunk.sequence_id) + " also lists in this step; a shared block " +
               "must not be written");
      }
    }
  }
}

}  // namespace algenta::decoder
