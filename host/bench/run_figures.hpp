// One timed greedy run reduced to the figures bench reports. A token counts
// when its id is on the host, i.e. when the step that made it returned.
#pragma once

#include <cstddef>
#include <vector>

namespace algenta::host::bench {

struct RunTiming {
  std::size_t prompt_tokens = 0;  // per sequence
  std::size_t sequences = 1;      // each decode step yields one token of each
  // Seconds from the start of the first prefill call until each step's
  // token ids were on the host: [0] when the last sequence's first token (from
  // its prefill) was, [i] the i-th decode step's. Non-decreasing.
  std::vector<double> token_seconds;
};

struct RunFigures {
  double ttft_s = 0.0;                // until every sequence has its first token (the prefills)
  double prefill_tokens_per_s = 0.0;  // prompt tokens of every sequence / ttft
  double decode_tokens_per_s = 0.0;   // tokens after the first of every sequence / their time
  double inter_token_p50_s = 0.0;     // gaps between consecutive tokens (decode)
  double inter_token_p95_s = 0.0;
};

// Needs a prompt and at least two tokens (one decode step); throws
// std::invalid_argument otherwise.
RunFigures figures_of(const RunTiming& run);

}  // namespace algenta::host::bench
