// What an engine that took the host's block tables (ABI 1.1) remembers of
// its live sequences: each one's cached length, for the step planner, and
// its latest block table, so that the memory report can count the blocks no
// live sequence lists. The blocks and their contents are the host's: forgetting
// a sequence frees nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "step_plan.hpp"

namespace algenta::decoder {

class HostSequences final : public LiveSequences {
 public:
  explicit HostSequences(std::size_t blocks_total) : blocks_total_(blocks_total) {}

  std::optional<std::size_t> cached_length(std::uint64_t id) const override;
  std::size_t live_count() const override { return sequences_.size(); }

  // After a step that succeeded: the chunk's sequence (new or not) holds its
  // positions up to the chunk's end, through the chunk's table.
  void commit(const PlannedChunk& chunk);
  // sequences_free: checks the request (check_free_request, nothing changes
  // on a refusal), then forgets the sequences. Their blocks stay the host's.
  void free(const AlgentaSequencesFree_Args& args);

  // Blocks no live sequence's latest table lists (the host may hold them still).
  std::size_t blocks_free() const;

 private:
  struct Sequence {
    std::size_t length = 0;
    std::vector<std::uint32_t> table;
  };
  std::size_t blocks_total_;
  std::map<std::uint64_t, Sequence> sequences_;
};

}  // namespace algenta::decoder
