// A cell's runs summarised, and decode held against the stream bandwidth.
#include <catch2/catch.hpp>

#include "bench/cell_summary.hpp"

using namespace algenta::host;
using namespace algenta::host::bench;

namespace {

CellResult cell_of(const std::vector<double>& decode_rates) {
  CellResult cell;
  cell.prompt_tokens = 100;
  cell.generated_tokens = 5;
  for (const double rate : decode_rates) {
    RunFigures f;
    f.ttft_s = 0.01;
    f.prefill_tokens_per_s = 10000;
    f.decode_tokens_per_s = rate;
    f.inter_token_p50_s = 1.0 / rate;
    f.inter_token_p95_s = 1.0 / rate;
    cell.runs.push_back(f);
  }
  return cell;
}

}  // namespace

TEST_CASE("cell summary: medians and ranges over the runs", "[bench]") {
  const CellSummary s = summarize(cell_of({100, 300, 200}), nullptr, stream_not_available("none"));
  CHECK(s.decode_tokens_per_s.spread.median == 200);
  CHECK(s.decode_tokens_per_s.spread.min == 100);
  CHECK(s.decode_tokens_per_s.spread.max == 300);
  CHECK(s.decode_tokens_per_s.values == std::vector<double>{100, 300, 200});
  CHECK(s.mean_decode_context == 102.5);
  CHECK_FALSE(s.decode_bytes_per_token.has_value());
  CHECK_FALSE(s.bandwidth_fraction.has_value());
  CHECK_FALSE(s.peak_device_bytes.has_value());
}

TEST_CASE("cell summary: bandwidth fraction = bytes per token x tokens/s / bandwidth", "[bench]") {
  DecodeBytes bytes;
  bytes.weight_bytes = 1'000'000'000;  // 1 GB a token, no KV
  StreamBandwidth bandwidth;
  bandwidth.available = true;
  bandwidth.gbytes_per_s = 400.0;
  const CellSummary s = summarize(cell_of({100, 200}), &bytes, bandwidth);
  REQUIRE(s.decode_bytes_per_token.has_value());
  CHECK(*s.decode_bytes_per_token == 1e9);
  REQUIRE(s.bandwidth_fraction.has_value());
  CHECK(s.bandwidth_fraction->spread.min == Approx(0.25));
  CHECK(s.bandwidth_fraction->spread.max == Approx(0.5));
  CHECK(s.bandwidth_fraction->spread.median == Approx(0.375));
  // Without the bandwidth there is no fraction, whatever the bytes.
  CHECK_FALSE(summarize(cell_of({100}), &bytes, stream_not_available("x")).bandwidth_fraction);
}

TEST_CASE("cell summary: C sequences share one read of the weights per step", "[bench]") {
  DecodeBytes bytes;
  bytes.weight_bytes = 1'000'000'000;
  bytes.kv_bytes_per_layer_position = 1000;
  bytes.layer_windows = {std::nullopt, std::nullopt};  // two layers: 2000 bytes per position
  CellResult cell = cell_of({800});
  const CellSummary alone = summarize(cell, &bytes, stream_not_available("x"));
  cell.concurrency = 8;
  const CellSummary eight = summarize(cell, &bytes, stream_not_available("x"));
  CHECK(eight.concurrency == 8);
  REQUIRE(alone.decode_bytes_per_token.has_value());
  REQUIRE(eight.decode_bytes_per_token.has_value());
  const double kv = 2000.0 * 102.5;  // at the mean context L + G/2
  CHECK(*alone.decode_bytes_per_token == Approx(1e9 + kv));
  CHECK(*eight.decode_bytes_per_token == Approx(1e9 / 8 + kv));
}

TEST_CASE("device peak: total minus the lowest free; none for a CPU plugin", "[bench]") {
  DevicePeak peak;
  CHECK_FALSE(peak.bytes().has_value());
  MemoryReport cpu;  // device bytes 0
  peak.add(cpu);
  CHECK_FALSE(peak.bytes().has_value());
  MemoryReport report;
  report.device_total_bytes = 1000;
  report.device_free_bytes = 700;
  peak.add(report);
  report.device_free_bytes = 400;
  peak.add(report);
  report.device_free_bytes = 900;
  peak.add(report);
  CHECK(peak.bytes() == 600u);
}
