// Where the forward pass writes a sequence's keys and values and reads them
// back: the engine's own growing storage (kv_cache.hpp) or blocks the host
// hands out (block_tables.hpp). Attention reads positions as runs, so both
// give the same bits.
#pragma once

#include <cstddef>
#include <vector>

namespace algenta::oracle {

// Consecutive positions of keys and values (`positions` of them, kv_dim
// floats apart, every kv head side by side), as a paged cache holds them
// block by block.
struct KvRun {
  const float* keys = nullptr;
  const float* values = nullptr;
  std::size_t positions = 0;
};

class KvSlots {
 public:
  virtual ~KvSlots() = default;
  // Where position `position`'s key / value of `layer` is written.
  virtual float* key_slot(std::size_t layer, std::size_t position) = 0;
  virtual float* value_slot(std::size_t layer, std::size_t position) = 0;
  // Appends positions 0 .. positions - 1 of `layer` to `runs`, in position order.
  virtual void runs(std::size_t layer, std::size_t positions, std::vector<KvRun>& runs) const = 0;
};

}  // namespace algenta::oracle
