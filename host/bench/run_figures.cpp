#include "bench/run_figures.hpp"

#include <stdexcept>

#include "bench/statistics.hpp"

namespace algenta::host::bench {

RunFigures figures_of(const RunTiming& run) {
  const std::vector<double>& t = run.token_seconds;
  if (run.prompt_tokens == 0 || run.sequences == 0 || t.size() < 2) {
    throw std::invalid_argument(
        "figures_of: needs a prompt, a sequence and at least two generated tokens");
  }
  std::vector<double> gaps;
  for (std::size_t i = 1; i < t.size(); ++i) gaps.push_back(t[i] - t[i - 1]);
  RunFigures figures;
  figures.ttft_s = t.front();
  const auto sequences = static_cast<double>(run.sequences);
  figures.prefill_tokens_per_s = static_cast<double>(run.prompt_tokens) * sequences / t.front();
  figures.decode_tokens_per_s =
      static_cast<double>(gaps.size()) * sequences / (t.back() - t.front());
  figures.inter_token_p50_s = percentile(gaps, 50.0);
  figures.inter_token_p95_s = percentile(gaps, 95.0);
  return figures;
}

}  // namespace algenta::host::bench
