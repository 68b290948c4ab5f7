// What one bench run found, and its two renderings: a table for people and
// a JSON document (schema algenta.bench/2) for tools.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "bench/bench_arguments.hpp"
#include "bench/cell_summary.hpp"
#include "bench/decode_bytes.hpp"
#include "bench/stream_bandwidth.hpp"
#include "facts/model_facts.hpp"

namespace algenta::host::bench {

inline constexpr const char* kBenchSchema = "algenta.bench/2";

struct PluginIdentity {
  std::string name, sha256, target, role, bundle;
};

struct ColdStart {
  std::optional<double> seconds;  // process start to the first token of the first run
  std::string note;               // how it was measured, or why not
};

struct ByteModel {
  std::optional<DecodeBytes> bytes;  // nullopt: not available
  unsigned weight_element_bytes = 0;
  unsigned kv_element_bytes = 0;
  std::string reason;  // why not available
};

struct BenchReport {
  nlohmann::json host;  // host_info()
  PluginIdentity plugin;
  nlohmann::json verification;  // the record that cleared the build, or why none was needed
  std::string precision;
  nlohmann::json weights;  // where the weights came from
  facts::ModelFacts model;
  std::string weight_dtype;  // of the prepared checkpoint: "bf16", ...
  std::uint32_t served_context = 0;
  BenchArguments arguments;
  StreamBandwidth bandwidth;
  ByteModel byte_model;
  ColdStart cold_start;
  std::vector<CellSummary> cells;
  std::optional<std::uint64_t> peak_device_bytes;  // over the whole run
  // The engine's own split at open (sized to the cells: bench_arguments.hpp).
  struct EngineMemory {
    std::uint64_t weights = 0, kv_cache = 0, workspace = 0;
    std::uint32_t sequences = 0;  // the engine was opened for this many at once
  } engine_memory;
  std::string started;                             // RFC 3339 UTC
  double seconds = 0.0;                            // the whole command
};

nlohmann::json to_json(const BenchReport& report);

void print_table(std::ostream& out, const BenchReport& report);

}  // namespace algenta::host::bench
