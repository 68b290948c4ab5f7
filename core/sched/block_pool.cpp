#include "sched/block_pool.hpp"

#include <string>

#include "sched/scheduler_limits.hpp"

namespace algenta::sched {

BlockPool::BlockPool(std::uint32_t total_blocks) : refs_(total_blocks, 0) {
  // Lowest ids first, so a fresh pool hands out 0, 1, 2, ...
  free_.reserve(total_blocks);
  for (std::uint32_t b = total_blocks; b > 0; --b) free_.push_back(b - 1);
}

bool BlockPool::promise(std::uint32_t count) {
  if (count > available()) return false;
  promised_ += count;
  return true;
}

void BlockPool::withdraw(std::uint32_t count) {
  if (count > promised_) {
    throw SchedulerError("withdrawing " + std::to_string(count) + " block promises, but only " +
                         std::to_string(promised_) + " are outstanding");
  }
  promised_ -= count;
}

BlockId BlockPool::take_promised() {
  if (promised_ == 0) throw SchedulerError("a block was taken without a promise");
  const BlockId block = free_.back();
  free_.pop_back();
  --promised_;
  refs_[block] = 1;
  return block;
}

void BlockPool::check_held(BlockId block, const char* call) const {
  if (block >= refs_.size()) {
    throw SchedulerError(std::string(call) + " of block " + std::to_string(block) +
                         ", past the pool's " + std::to_string(refs_.size()) + " blocks");
  }
  if (refs_[block] == 0) {
    throw SchedulerError(std::string(call) + " of block " + std::to_string(block) +
                         ", which no sequence holds");
  }
}

void BlockPool::retain(BlockId block) {
  check_held(block, "retain");
  ++refs_[block];
}

void BlockPool::release(BlockId block) {
  check_held(block, "release");
  if (--refs_[block] == 0) free_.push_back(block);
}

std::uint32_t BlockPool::ref_count(BlockId block) const {
  return block < refs_.size() ? refs_[block] : 0;
}

}  // namespace algenta::sched
