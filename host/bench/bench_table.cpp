// The human table: one row per cell, medians over the timed runs with the
// range [min..max] where it says most, then the yardsticks and notes.
#include <algorithm>
#include <cstdio>

#include "bench/bench_report.hpp"

namespace algenta::host::bench {
namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// "12.3 [12.1..12.9]"
std::string ranged(const Figure& figure, double scale, const char* pattern) {
  return format(pattern, figure.spread.median * scale) + " [" +
         format(pattern, figure.spread.min * scale) + ".." +
         format(pattern, figure.spread.max * scale) + "]";
}

std::string gib(std::uint64_t bytes) {
  return format("%.2f", static_cast<double>(bytes) / (1u << 30));
}

// "1.19 GB", "186.1 kB": decimal units, as bandwidths are given.
std::string decimal_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  std::size_t unit = 0;
  while (bytes >= 1000.0 && unit + 1 < std::size(units)) {
    bytes /= 1000.0;
    ++unit;
  }
  return format("%.4g", bytes) + " " + units[unit];
}

std::string padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

}  // namespace

void print_table(std::ostream& out, const BenchReport& r) {
  out << "bench: " << r.plugin.name << " (sha256 " << r.plugin.sha256.substr(0, 12)
      << "...), precision " << r.precision << ", "
      << std::string(facts::family_name(r.model.family)) << " " << r.weight_dtype << ", "
      << r.arguments.runs << " timed runs per cell after " << r.arguments.warmup
      << " warm-up; median [min..max]\n";
  const std::size_t w[] = {7, 7, 5, 24, 28, 28, 11, 11, 10, 12};
  const char* headers[] = {"L",          "G",          "C",          "TTFT ms",  "prefill tok/s",
                           "decode tok/s", "ITL p50 ms", "ITL p95 ms", "peak GiB", "BW fraction"};
  for (std::size_t i = 0; i < std::size(headers); ++i) out << padded(headers[i], w[i]);
  out << "\n";
  for (const CellSummary& c : r.cells) {
    out << padded(std::to_string(c.prompt_tokens), w[0])
        << padded(std::to_string(c.generated_tokens), w[1])
        << padded(std::to_string(c.concurrency), w[2])
        << padded(ranged(c.ttft_s, 1e3, "%.2f"), w[3])
        << padded(ranged(c.prefill_tokens_per_s, 1.0, "%.0f"), w[4])
        << padded(ranged(c.decode_tokens_per_s, 1.0, "%.1f"), w[5])
        << padded(format("%.3f", c.inter_token_p50_s.spread.median * 1e3), w[6])
        << padded(format("%.3f", c.inter_token_p95_s.spread.median * 1e3), w[7])
        << padded(c.peak_device_bytes ? gib(*c.peak_device_bytes) : "n/a", w[8])
        << (c.bandwidth_fraction ? format("%.3f", c.bandwidth_fraction->spread.median) : "n/a")
        << "\n";
  }
  out << "\n";
  if (std::any_of(r.cells.begin(), r.cells.end(),
                  [](const CellSummary& c) { return c.concurrency > 1; })) {
    out << "C sequences decoded together: their prompts are prefilled one after another, TTFT "
           "is until every one has its first token, and tok/s count the tokens of all C\n";
  }
  out << "device-to-host bytes per decode step (the engine's report):";
  for (std::size_t i = 0; i < r.cells.size(); ++i) {
    const CellSummary& c = r.cells[i];
    out << (i == 0 ? " " : "; ") << "L=" << c.prompt_tokens << " C=" << c.concurrency << ": "
        << (c.device_to_host_bytes_per_step
                ? format("%.0f B", c.device_to_host_bytes_per_step->spread.median)
                : std::string("not reported (an engine before ABI 1.3)"));
  }
  out << "\n";
  if (r.bandwidth.available) {
    out << "stream read bandwidth: " << format("%.1f", r.bandwidth.gbytes_per_s) << " GB/s ("
        << r.bandwidth.tool << ", " << gib(r.bandwidth.bytes) << " GiB read, best of "
        << r.bandwidth.runs << " runs); BW fraction = decode bytes per token x decode tok/s / it\n";
  } else {
    out << "stream read bandwidth: not available: " << r.bandwidth.reason
        << "; BW fraction not computed\n";
  }
  if (const auto& bytes = r.byte_model.bytes) {
    const double kv_per_position =
        static_cast<double>(bytes->kv_bytes_per_layer_position) * bytes->layer_windows.size();
    out << "decode bytes per token: weights "
        << decimal_bytes(static_cast<double>(bytes->weight_bytes)) << " ("
        << r.byte_model.weight_element_bytes << " B per element; the lm_head counted, the "
        << "embedding not; divided by C when C sequences share a step) + KV " << decimal_bytes(kv_per_position) << " per position of context ("
        << r.byte_model.kv_element_bytes << " B per element), at the mean context L + G/2 (the "
        << "formula is in the JSON)\n";
  } else {
    out << "decode bytes per token: not available: " << r.byte_model.reason << "\n";
  }
  out << "peak device memory: "
      << (r.peak_device_bytes ? gib(*r.peak_device_bytes) + " GiB (device total - lowest free seen)"
                              : std::string("n/a (the plugin reports no device memory)"))
      << "; the engine, opened for " << r.served_context << " tokens x "
      << r.engine_memory.sequences << " sequences: weights " << gib(r.engine_memory.weights)
      << " GiB, KV cache " << gib(r.engine_memory.kv_cache) << " GiB, workspace "
      << gib(r.engine_memory.workspace) << " GiB\n";
  out << "cold start: "
      << (r.cold_start.seconds ? format("%.3f", *r.cold_start.seconds) + " s; " : std::string())
      << r.cold_start.note << "\n";
}

}  // namespace algenta::host::bench
