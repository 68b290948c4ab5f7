// The paged KV cache's bookkeeping on the host: a pool of fixed-size blocks
// (kKvBlockTokens tokens each), a free list, and each live sequence's block
// list. Blocks are handed out from the free list's end, so blocks a freed
// sequence returns are reused out of order by the next ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "step_plan.hpp"

namespace algenta::cuda {

class PagedKvBlocks final : public decoder::LiveSequences {
 public:
  explicit PagedKvBlocks(std::size_t total_blocks);

  std::optional<std::size_t> cached_length(std::uint64_t id) const override;
  std::size_t live_count() const override { return sequences_.size(); }

  // Blocks the chunks of a step need beyond what their sequences hold.
  std::size_t blocks_needed(const std::vector<decoder::PlannedChunk>& chunks) const;

  // Creates new sequences and gives every chunk's sequence the blocks for its
  // positions. Refuses (OUT_OF_MEMORY, naming blocks needed and free) before
  // changing anything when the pool is short.
  void reserve(const std::vector<decoder::PlannedChunk>& chunks);
  // Undoes reserve() for a step that failed: new sequences go, others give
  // back the blocks past their (unchanged) lengths.
  void roll_back(const std::vector<decoder::PlannedChunk>& chunks);
  void set_length(std::uint64_t id, std::size_t length);

  void release(std::uint64_t id);

  const std::vector<std::int32_t>& blocks_of(std::uint64_t id) const;
  std::size_t free_blocks() const noexcept { return free_.size(); }
  std::size_t total_blocks() const noexcept { return total_; }

 private:
  struct Sequence {
    std::size_t length = 0;
    std::vector<std::int32_t> blocks;
  };
  static std::size_t blocks_for(std::size_t positions);
  void trim(Sequence& sequence);

  std::size_t total_;
  std::vector<std::int32_t> free_;
  std::map<std::uint64_t, Sequence> sequences_;
};

}  // namespace algenta::cuda
