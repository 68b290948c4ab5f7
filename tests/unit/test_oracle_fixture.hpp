// Shared by the oracle tests: tiny seeded checkpoints of each family, an
// independent double-precision reference forward pass, and a thin RAII
// wrapper that drives an oracle plugin (real or mutant) through the ABI.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algenta/plugin_abi.h"
#include "checkpoint/dtype.hpp"

namespace algenta::test::oracle {

namespace fs = std::filesystem;

// ---- tiny models ----------------------------------------------------------

// "llama" (llama3 rope scaling, attention_bias, untied), "mistral" (family
// llama, derived head_dim), "qwen2" (q/k/v bias, linear scaling, tied),
// "qwen3" (q/k norm, head_dim apart from hidden/heads, tied).
const std::vector<std::string>& tiny_families();
nlohmann::json tiny_config(std::string_view family);

struct Tensor {
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

// Every value is a small integer times a power of two, so f32, bf16 and f16
// checkpoints of the model hold exactly the same numbers.
struct TinyModel {
  nlohmann::json config;
  std::map<std::string, Tensor> tensors;
};

TinyModel make_tiny_model(const nlohmann::json& config, std::uint64_t seed);

// A resident checkpoint with config.json next to it.
void write_checkpoint(const TinyModel& model, const fs::path& dir, checkpoint::Dtype dtype);

std::vector<std::int32_t> random_tokens(std::size_t count, std::int64_t vocab, std::uint64_t seed);

// Logits of every position of one sequence, from the formulas in double
// (no cache, no batching): what the oracle must agree with to rounding.
std::vector<std::vector<double>> reference_logits(const TinyModel& model,
                                                  const std::vector<std::int32_t>& tokens);

// ---- driving a plugin ------------------------------------------------------

fs::path oracle_plugin_path();
fs::path mutant_plugin_path(std::string_view name);  // "cpu_oracle_mutant_rope", ...

class Plugin {
 public:
  explicit Plugin(const fs::path& file);
  ~Plugin();
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;
  const AlgentaPluginV1& table() const { return *table_; }

 private:
  void* library_ = nullptr;
  const AlgentaPluginV1* table_ = nullptr;
};

struct Outcome {
  AlgentaStatusCode code = ALGENTA_STATUS_OK;
  std::string message;
  bool ok() const { return code == ALGENTA_STATUS_OK; }
};

struct ChunkSpec {
  std::uint64_t sequence_id = 0;
  std::vector<std::int32_t> tokens;
  std::uint32_t start_position = 0;
  std::uint32_t want_logits = ALGENTA_LOGITS_ALL;
  std::vector<std::uint32_t> block_table;  // read by an engine that took host block tables
  const AlgentaSampling* sampling = nullptr;  // read by an engine that took engine sampling
};

struct StepOutput {
  Outcome outcome;
  std::vector<std::int32_t> next_tokens;
  std::vector<float> logits;  // concatenated in chunk order
};

struct EngineOptions {
  AlgentaPrecision precision = ALGENTA_PRECISION_EXACT;
  std::uint32_t max_context = 0;
  std::uint32_t max_sequences = 0;
  AlgentaDtype round_weights_to = ALGENTA_DTYPE_NONE;
  std::string threads;  // ALGENTA_ORACLE_THREADS during open, unset when empty
  std::string isa;      // ALGENTA_ORACLE_ISA during open, unset when empty
  bool host_block_tables = false;  // offered at open (ABI 1.1)
  std::uint64_t kv_cache_bytes = 0;
  bool engine_sampling = false;  // offered at open (ABI 1.2)
};

class Engine {
 public:
  // Throws std::runtime_error with the plugin's message when open fails.
  Engine(const Plugin& plugin, const fs::path& checkpoint, const EngineOptions& options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // The open call alone; `args` receives what the plugin wrote back. A
  // successful open's engine is closed again.
  static Outcome try_open(const Plugin& plugin, const fs::path& checkpoint,
                          const EngineOptions& options, AlgentaEngineOpen_Args* args = nullptr);

  // Logits buffer of exactly the floats requested, or `logits_capacity`.
  StepOutput step(const std::vector<ChunkSpec>& chunks,
                  std::optional<std::size_t> logits_capacity = std::nullopt);
  Outcome free(const std::vector<std::uint64_t>& ids);
  AlgentaMemoryReport_Args memory();

  std::uint32_t vocab() const { return vocab_; }
  std::uint32_t max_context() const { return max_context_; }

 private:
  const Plugin& plugin_;
  AlgentaEngine* engine_ = nullptr;
  std::uint32_t vocab_ = 0;
  std::uint32_t max_context_ = 0;
};

Outcome outcome_of(const AlgentaPluginV1& table, AlgentaError* error);

bool same_bits(const std::vector<float>& a, const std::vector<float>& b);

// ---- checks shared by the real plugin's tests and the mutant tests -------

struct Verdict {
  bool ok = true;
  std::string detail;  // what differed, for the failure message
};

// Logits of `tokens` fed in chunks of `chunk_sizes` agree with
// reference_logits to 1e-4 (relative to the logits' scale).
Verdict matches_reference(const Plugin& plugin, const TinyModel& model, const fs::path& checkpoint,
                          const std::vector<std::int32_t>& tokens,
                          const std::vector<std::size_t>& chunk_sizes);

// One chunk, three chunks and one token at a time give the same bits
// (every position's logits and every next token).
Verdict chunking_is_invisible(const Plugin& plugin, const fs::path& checkpoint,
                              const std::vector<std::int32_t>& tokens);

}  // namespace algenta::test::oracle
