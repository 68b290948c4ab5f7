#include "table_rows.hpp"

#include <cstddef>
#include <limits>
#include <string>

#include "plugin_support/plugin_error.hpp"

namespace algenta::cuda {
namespace {

[[noreturn]] void internal(const std::string& message) {
  throw plugin::StatusError{ALGENTA_STATUS_INTERNAL, message};
}

template <typename Id>
void append_row(std::vector<std::int32_t>& tables, std::span<const Id> blocks, int max_blocks) {
  if (blocks.size() > static_cast<std::size_t>(max_blocks)) {
    internal("a block table of " + std::to_string(blocks.size()) + " blocks does not fit a row of " +
             std::to_string(max_blocks));
  }
  const std::size_t first = tables.size();
  tables.resize(first + static_cast<std::size_t>(max_blocks), 0);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const std::int64_t block = blocks[i];  // exact for int32 and uint32 ids
    if (block < 0 || block > std::numeric_limits<std::int32_t>::max()) {
      internal("KV block id " + std::to_string(block) + " is not an int32 the kernels can index");
    }
    tables[first + i] = static_cast<std::int32_t>(block);
  }
}

}  // namespace

void append_table_row(std::vector<std::int32_t>& tables, std::span<const std::int32_t> blocks,
                      int max_blocks) {
  append_row(tables, blocks, max_blocks);
}

void append_table_row(std::vector<std::int32_t>& tables, std::span<const std::uint32_t> blocks,
                      int max_blocks) {
  append_row(tables, blocks, max_blocks);
}

}  // namespace algenta::cuda
