// One sequence's row of a pass's block tables, as the kernels read it:
// block_tables[slot * max_blocks + position / kKvBlockTokens]. The row lists
// the sequence's blocks in position order, from the engine's own allocator
// or from the host's table (ABI 1.1), and is padded with block 0, which is
// never read: attention stops at each row's own position.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace algenta::cuda {

// Appends max_blocks entries to `tables`. INTERNAL when the blocks do not
// fit the row or an id is not a valid int32 (the planner's checks exclude both).
void append_table_row(std::vector<std::int32_t>& tables, std::span<const std::int32_t> blocks,
                      int max_blocks);
void append_table_row(std::vector<std::int32_t>& tables, std::span<const std::uint32_t> blocks,
                      int max_blocks);

}  // namespace algenta::cuda
