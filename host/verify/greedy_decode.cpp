#include "verify/greedy_decode.hpp"

#include <limits>

namespace algenta::host {

GreedyRun greedy_decode(EngineSession& session, std::uint64_t sequence_id,
                        const std::vector<std::int32_t>& prompt, std::size_t count,
                        bool keep_logits) {
  const AlgentaLogitsRequest want = keep_logits ? ALGENTA_LOGITS_LAST : ALGENTA_LOGITS_NONE;
  GreedyRun run;
  try {
    StepResult step = session.step({{sequence_id, prompt, 0, want}});
    while (true) {
      run.tokens.push_back(step.next_tokens[0]);
      run.logits.insert(run.logits.end(), step.logits.begin(), step.logits.end());
      if (run.tokens.size() >= count) break;
      const auto position = static_cast<std::uint32_t>(prompt.size() + run.tokens.size() - 1);
      step = session.step({{sequence_id, {run.tokens.back()}, position, want}});
    }
  } catch (...) {
    // The engine's error is what matters; a failed free would only hide it.
    try {
      session.free_sequences({sequence_id});
    } catch (...) {
    }
    throw;
  }
  session.free_sequences({sequence_id});
  return run;
}

RowTop row_top(std::span<const float> row) {
  float first = -std::numeric_limits<float>::infinity();
  float second = -std::numeric_limits<float>::infinity();
  RowTop top;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const float value = row[i];
    if (value > first) {
      second = first;
      first = value;
      top.token = static_cast<std::int32_t>(i);
    } else if (value > second) {
      second = value;
    }
  }
  top.margin = row.size() < 2 ? 0.0f : first - second;
  return top;
}

float top_margin(std::span<const float> row) { return row_top(row).margin; }

}  // namespace algenta::host
