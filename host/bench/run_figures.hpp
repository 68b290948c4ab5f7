// One timed greedy run reduced to the figures bench reports. A token counts
// when its id is on the host, i.e. when the step that made it returned.
#pragma once

#include <cstddef>
#include <vector>

namespace algenta::host::bench {

struct RunTiming {
  std::size_t prompt_tokens = 0;
  // Seconds from the start of the prefill call until each generated token's
  // id was on the host: [0] is the first token (from prefill), [i] the i-th
  // decode step's. Non-decreasing.
  std::vector<double> token_seconds;
};

struct RunFigures {
  double ttft_s = 0.0;                // time to first token: the prefill call
  double prefill_tokens_per_s = 0.0;  // prompt tokens / ttft
  double decode_tokens_per_s = 0.0;   // tokens after the first / the time they took
  double inter_token_p50_s = 0.0;     // gaps between consecutive tokens (decode)
  double inter_token_p95_s = 0.0;
};

// Needs a prompt and at least two tokens (one decode step); throws
// std::invalid_argument otherwise.
RunFigures figures_of(const RunTiming& run);

}  // namespace algenta::host::bench
