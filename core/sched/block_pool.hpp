// The KV blocks the scheduler hands out: a free list, a reference count per
// block and a count of blocks promised to admitted sequences but not yet
// taken. Promises are what make admission safe: a sequence is admitted only
// with every block it can ever need promised, so taking one never fails.
// Reference counts let a later prefix cache share one block between
// sequences (retain) without changing how blocks are given back (release).
#pragma once

#include <cstdint>
#include <vector>

namespace algenta::sched {

using BlockId = std::uint32_t;

class BlockPool {
 public:
  explicit BlockPool(std::uint32_t total_blocks);

  std::uint32_t total() const noexcept { return static_cast<std::uint32_t>(refs_.size()); }
  // Blocks no sequence holds (promised ones included).
  std::uint32_t free_count() const noexcept { return static_cast<std::uint32_t>(free_.size()); }
  std::uint32_t promised() const noexcept { return promised_; }
  // Blocks neither held nor promised: what admission may promise.
  std::uint32_t available() const noexcept { return free_count() - promised_; }

  // Promises `count` blocks; false (nothing promised) when fewer are available.
  bool promise(std::uint32_t count);
  // Gives back promises that will not be taken (a sequence that ended early).
  void withdraw(std::uint32_t count);
  // One promised block, now held once. Throws SchedulerError without a promise.
  BlockId take_promised();
  // One more holder of a held block.
  void retain(BlockId block);
  // One holder fewer; the block is free again when none is left.
  void release(BlockId block);
  std::uint32_t ref_count(BlockId block) const;

 private:
  void check_held(BlockId block, const char* call) const;

  std::vector<std::uint32_t> refs_;  // per block
  std::vector<BlockId> free_;        // taken from the back
  std::uint32_t promised_ = 0;
};

}  // namespace algenta::sched
