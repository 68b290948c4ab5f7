#include "bench/cells.hpp"

#include <algorithm>

#include "bench/timed_run.hpp"
#include "verify/seeded_prompt.hpp"

namespace algenta::host::bench {

void DevicePeak::add(const MemoryReport& report) {
  if (report.device_total_bytes == 0) return;  // no device: a CPU plugin
  total_ = report.device_total_bytes;
  lowest_free_ =
      std::min(lowest_free_.value_or(report.device_free_bytes), report.device_free_bytes);
}

std::optional<std::uint64_t> DevicePeak::bytes() const {
  if (!lowest_free_) return std::nullopt;
  return total_ - std::min(total_, *lowest_free_);
}

std::uint64_t bench_prompt_seed(std::size_t prompt_tokens, std::size_t run, std::size_t sequence) {
  return kBenchSeedBase + static_cast<std::uint64_t>(prompt_tokens) * 65536 + run +
         (static_cast<std::uint64_t>(sequence) << 48);
}

CellsResult run_cells(EngineSession& session, const BenchArguments& arguments,
                      std::ostream& progress) {
  CellsResult result;
  result.device.add(session.memory_report());
  std::uint64_t sequence_id = 1;
  bool first = true;
  for (const std::size_t length : arguments.prompt_lengths) {
    for (const std::size_t generated : arguments.generated) {
      for (const std::size_t concurrency : arguments.concurrency) {
        CellResult cell;
        cell.prompt_tokens = length;
        cell.generated_tokens = generated;
        cell.concurrency = concurrency;
        for (std::size_t run = 0; run < arguments.warmup + arguments.runs; ++run) {
          std::vector<std::vector<std::int32_t>> prompts;
          for (std::size_t s = 0; s < concurrency; ++s) {
            prompts.push_back(
                seeded_prompt(bench_prompt_seed(length, run, s), length, session.vocab_size()));
          }
          const TimedRun timed = time_greedy_run(session, sequence_id, prompts, generated);
          sequence_id += concurrency;
          if (first) result.first_token_at = timed.first_token_at;
          first = false;
          result.device.add(timed.memory);
          if (run < arguments.warmup) continue;
          cell.runs.push_back(figures_of(timed.timing));
          cell.device.add(timed.memory);
          cell.decode_device_to_host_bytes.push_back(timed.decode_device_to_host_bytes);
        }
        progress << "bench: L=" << length << " G=" << generated << " C=" << concurrency << ": "
                 << arguments.warmup << " warm-up + " << arguments.runs << " timed runs done\n";
        result.cells.push_back(std::move(cell));
      }
    }
  }
  return result;
}

}  // namespace algenta::host::bench
