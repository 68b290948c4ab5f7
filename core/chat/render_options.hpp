#pragma once
// Limits and environment for one rendering.
#include <cstddef>
#include <ctime>
#include <optional>

namespace algenta::chat {

struct RenderLimits {
  std::size_t max_output_bytes = 16u << 20;     // any rendered text: the whole output, a macro call, a set block
  std::size_t max_loop_iterations = 1000000;    // for-loop iterations over the whole rendering
  std::size_t max_call_depth = 64;              // nested macro calls (recursion)
  std::size_t max_nesting = 128;                // nesting of blocks and expressions in the template text
  std::size_t max_range = 100000;               // jinja2's sandbox MAX_RANGE
};

struct RenderOptions {
  RenderLimits limits;
  // The clock strftime_now reads, as seconds since the epoch in UTC; unset:
  // the system clock (local time, as datetime.now() would).
  std::optional<std::time_t> frozen_now;
};

}  // namespace algenta::chat
