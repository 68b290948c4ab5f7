// The measurement: for each prompt length L, generated-token count G and
// concurrency C (a cell), `warmup` untimed greedy runs, then `runs` timed
// ones (timed_run.hpp), each of C sequences decoded together. Prompts are
// seeded (bench_prompt_seed); every run frees its sequences.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include "bench/bench_arguments.hpp"
#include "bench/run_figures.hpp"
#include "engine/engine_session.hpp"

namespace algenta::host::bench {

// Device memory in use, from memory reports: device_total - device_free at
// the lowest free seen. nullopt for a plugin that reports no device (CPU).
class DevicePeak {
 public:
  void add(const MemoryReport& report);
  std::optional<std::uint64_t> bytes() const;

 private:
  std::uint64_t total_ = 0;
  std::optional<std::uint64_t> lowest_free_;
};

struct CellResult {
  std::size_t prompt_tokens = 0;
  std::size_t generated_tokens = 0;
  std::size_t concurrency = 1;
  std::vector<RunFigures> runs;  // the timed runs, in order
  DevicePeak device;             // read at the end of each timed run
  // Per timed run, the engine-reported device-to-host bytes per decode step
  // (timed_run.hpp); nullopt entries: the engine reported none.
  std::vector<std::optional<double>> decode_device_to_host_bytes;
};

struct CellsResult {
  std::vector<CellResult> cells;
  // When the first token of the first run (a warm-up one) was on the host.
  std::chrono::steady_clock::time_point first_token_at;
  DevicePeak device;  // after open and at the end of every run
};

// kBenchSeedBase + L * 65536 + run + sequence * 2^48: sequence 0 of a run
// gets the same prompt at every concurrency.
std::uint64_t bench_prompt_seed(std::size_t prompt_tokens, std::size_t run,
                                std::size_t sequence = 0);

// One line per cell on `progress` as it finishes.
CellsResult run_cells(EngineSession& session, const BenchArguments& arguments,
                      std::ostream& progress);

}  // namespace algenta::host::bench
