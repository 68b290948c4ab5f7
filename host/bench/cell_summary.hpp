// A cell's timed runs summarised for the table and the JSON: the median and
// range of each figure over the runs, and decode held against the stream
// bandwidth (decode_bytes.hpp): bytes per token x tokens/s / bandwidth, where
// C sequences decoded together share one read of the weights per step:
// bytes per token = weight_bytes / C + the sequence's KV read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bench/cells.hpp"
#include "bench/decode_bytes.hpp"
#include "bench/statistics.hpp"
#include "bench/stream_bandwidth.hpp"

namespace algenta::host::bench {

struct Figure {
  Spread spread;
  std::vector<double> values;  // per timed run, in order
};

struct CellSummary {
  std::size_t prompt_tokens = 0;
  std::size_t generated_tokens = 0;
  std::size_t concurrency = 1;
  Figure ttft_s, prefill_tokens_per_s, decode_tokens_per_s, inter_token_p50_s, inter_token_p95_s;
  std::optional<std::uint64_t> peak_device_bytes;
  double mean_decode_context = 0.0;
  std::optional<double> decode_bytes_per_token;  // nullopt: no byte model
  std::optional<Figure> bandwidth_fraction;      // nullopt: bytes or bandwidth not available
  // What a decode step copied from the device to the host (every logits row,
  // token and logprob), as the engine reported it; nullopt: not reported.
  std::optional<Figure> device_to_host_bytes_per_step;
};

// `bytes` may be null (no byte model); `bandwidth` may be unavailable.
CellSummary summarize(const CellResult& cell, const DecodeBytes* bytes,
                      const StreamBandwidth& bandwidth);

}  // namespace algenta::host::bench
