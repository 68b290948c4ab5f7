// What the engine checks share: the plugin's table, PASS/FAIL lines, and the
// ABI calls wrapped for tests (open, one step of chunks, free, memory).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algenta/plugin_abi.h"

namespace engine_checks {

extern const AlgentaPluginV1* plugin;

// One line "name PASS|FAIL detail"; a FAIL is counted.
void report(const std::string& name, bool passed, const std::string& detail);
int failure_count();

// Status and message of a call; the error is destroyed.
struct Outcome {
  AlgentaStatusCode code = ALGENTA_STATUS_OK;
  std::string message;
  bool ok() const { return code == ALGENTA_STATUS_OK; }
};
Outcome outcome_of(AlgentaError* error);

struct Engine {
  AlgentaEngine* handle = nullptr;
  std::uint32_t vocab = 0;
  // ABI 1.1: the engine's answer to host block tables.
  bool accepted = false;
  std::uint32_t tokens_per_block = 0;
  std::uint32_t blocks_total = 0;
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  ~Engine();
};

struct OpenOptions {
  std::uint32_t context = 4096;
  std::uint64_t kv_bytes = 0;
  bool host_block_tables = false;
};
Outcome open_engine(Engine& engine, const std::string& dir, const OpenOptions& options);

// One chunk of a step. `table` is passed only when non-empty (host block tables).
struct ChunkSpec {
  std::uint64_t id = 0;
  std::vector<std::int32_t> tokens;
  std::uint32_t start = 0;
  std::vector<std::uint32_t> table;
  AlgentaLogitsRequest logits = ALGENTA_LOGITS_LAST;
};
struct StepOutput {
  Outcome outcome;
  std::vector<std::int32_t> next;  // one per chunk
  std::vector<float> logits;       // the requested rows, in chunk order
};
StepOutput run_step(Engine& engine, const std::vector<ChunkSpec>& chunks);

// One chunk; returns its LOGITS_LAST logits (empty on failure, with `outcome`).
std::vector<float> run_chunk(Engine& engine, std::uint64_t id, const std::vector<std::int32_t>& tokens,
                             std::uint32_t start, std::int32_t* next, Outcome* outcome = nullptr);

Outcome free_sequence(Engine& engine, std::uint64_t id);
AlgentaMemoryReport_Args memory_of(Engine& engine);

// `length` pseudo-random token ids below `vocab`, the same for the same seed.
std::vector<std::int32_t> prompt(std::size_t length, std::uint32_t seed, std::uint32_t vocab);

// Prefill `tokens` (in chunks of the given sizes, then the rest), then
// `steps` greedy tokens; the logits of the prefill's last position and every
// step. With a non-empty `table` (host block tables) every chunk carries it:
// it must cover tokens.size() + steps positions.
std::vector<float> generate(Engine& engine, std::uint64_t id, const std::vector<std::int32_t>& tokens,
                            int steps, const std::vector<std::size_t>& chunks = {},
                            const std::vector<std::uint32_t>& table = {});

// Bytes of one 32-token KV block of the prepared checkpoint in `dir`.
std::uint64_t kv_block_bytes(const std::string& dir);

// Reports whether two runs' logits are the same bits.
void report_identical(const std::string& name, const std::vector<float>& a,
                      const std::vector<float>& b, std::uint32_t vocab, const std::string& what);

std::string mib(std::uint64_t bytes);

}  // namespace engine_checks
