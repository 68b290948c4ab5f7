#include "bench/cell_summary.hpp"

#include <algorithm>
#include <functional>

namespace algenta::host::bench {
namespace {

Figure figure_of(const std::vector<RunFigures>& runs,
                 const std::function<double(const RunFigures&)>& pick) {
  Figure figure;
  for (const RunFigures& run : runs) figure.values.push_back(pick(run));
  figure.spread = spread_of(figure.values);
  return figure;
}

}  // namespace

CellSummary summarize(const CellResult& cell, const DecodeBytes* bytes,
                      const StreamBandwidth& bandwidth) {
  CellSummary s;
  s.prompt_tokens = cell.prompt_tokens;
  s.generated_tokens = cell.generated_tokens;
  s.concurrency = cell.concurrency;
  s.ttft_s = figure_of(cell.runs, [](const RunFigures& r) { return r.ttft_s; });
  s.prefill_tokens_per_s =
      figure_of(cell.runs, [](const RunFigures& r) { return r.prefill_tokens_per_s; });
  s.decode_tokens_per_s =
      figure_of(cell.runs, [](const RunFigures& r) { return r.decode_tokens_per_s; });
  s.inter_token_p50_s =
      figure_of(cell.runs, [](const RunFigures& r) { return r.inter_token_p50_s; });
  s.inter_token_p95_s =
      figure_of(cell.runs, [](const RunFigures& r) { return r.inter_token_p95_s; });
  s.peak_device_bytes = cell.device.bytes();
  s.mean_decode_context = mean_decode_context(cell.prompt_tokens, cell.generated_tokens);
  if (bytes != nullptr) {
    const double weights = static_cast<double>(bytes->weight_bytes);
    s.decode_bytes_per_token =
        mean_decode_bytes(*bytes, cell.prompt_tokens, cell.generated_tokens) - weights +
        weights / static_cast<double>(cell.concurrency);
  }
  // Only when every timed run had the engine's report.
  const auto& downloads = cell.decode_device_to_host_bytes;
  if (!downloads.empty() &&
      std::all_of(downloads.begin(), downloads.end(), [](const auto& v) { return v.has_value(); })) {
    Figure figure;
    for (const std::optional<double>& bytes_per_step : downloads) figure.values.push_back(*bytes_per_step);
    figure.spread = spread_of(figure.values);
    s.device_to_host_bytes_per_step = figure;
  }
  if (s.decode_bytes_per_token && bandwidth.available) {
    const double bytes_per_second = bandwidth.gbytes_per_s * 1e9;
    s.bandwidth_fraction = figure_of(cell.runs, [&](const RunFigures& r) {
      return *s.decode_bytes_per_token * r.decode_tokens_per_s / bytes_per_second;
    });
  }
  return s;
}

}  // namespace algenta::host::bench
