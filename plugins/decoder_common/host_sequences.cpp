#include "host_sequences.hpp"

#include <unordered_set>

namespace algenta::decoder {

std::optional<std::size_t> HostSequences::cached_length(std::uint64_t id) const {
  const auto it = sequences_.find(id);
  if (it == sequences_.end()) return std::nullopt;
  return it->second.length;
}

void HostSequences::commit(const PlannedChunk& chunk) {
  Sequence& sequence = sequences_[chunk.sequence_id];
  sequence.length = chunk.start + chunk.tokens.size();
  sequence.table.assign(chunk.block_table.begin(), chunk.block_table.end());
}

void HostSequences::free(const AlgentaSequencesFree_Args& args) {
  check_free_request(args, *this);
  for (std::size_t i = 0; i < args.sequence_count; ++i) sequences_.erase(args.sequence_ids[i]);
}

std::size_t HostSequences::blocks_free() const {
  std::unordered_set<std::uint32_t> listed;
  for (const auto& [id, sequence] : sequences_) {
    listed.insert(sequence.table.begin(), sequence.table.end());
  }
  return blocks_total_ - listed.size();
}

}  // namespace algenta::decoder
