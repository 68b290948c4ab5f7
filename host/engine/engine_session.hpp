// A loaded plugin's open engine, driven through the ABI with C++ types.
// Plugin errors become EngineError (code + message); the engine is closed
// when the session goes away.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "loader/verified_loader.hpp"
#include "sampling/logprobs.hpp"
#include "sampling/sampling_params.hpp"

namespace algenta::host {

struct EngineError : std::runtime_error {
  EngineError(AlgentaStatusCode code, const std::string& message)
      : std::runtime_error(message), code(code) {}
  AlgentaStatusCode code;
};

// How an engine that took engine sampling (ABI 1.2) draws a chunk's next
// token: core/sampling's pipeline with these inputs. The spans are the
// caller's and must outlive the step.
struct ChunkSampling {
  sampling::SamplingParams params;  // logprobs / top_logprobs: what to report
  std::uint64_t seed = 0;
  std::span<const std::int32_t> prompt_tokens;
  std::span<const std::int32_t> output_tokens;
  std::span<const std::int32_t> banned_tokens;  // never drawn (min_tokens)
};

struct ChunkRequest {
  std::uint64_t sequence_id = 0;
  std::vector<std::int32_t> tokens;
  std::uint32_t start_position = 0;
  AlgentaLogitsRequest logits = ALGENTA_LOGITS_NONE;
  // With host block tables: the sequence's blocks covering positions
  // 0 .. start_position + tokens.size() - 1. Empty otherwise.
  std::vector<std::uint32_t> block_table;
  // With engine sampling: how the next token is drawn; none = greedy.
  std::optional<ChunkSampling> sampling;
};

// What the engine reported with a token it drew (as the chunk asked).
struct DrawnLogprobs {
  std::optional<double> logprob;
  std::vector<sampling::TokenLogprob> top;
};

struct StepResult {
  std::vector<std::int32_t> next_tokens;  // one per chunk
  std::vector<float> logits;              // requested logits, in chunk order
  std::vector<DrawnLogprobs> drawn;       // one per chunk (empty for greedy chunks)
  // Bytes the step copied from device to host memory, as the engine reports
  // it (ABI 1.3; 0 for a CPU engine); nullopt from an engine before 1.3.
  std::optional<std::uint64_t> device_to_host_bytes;
};

// What the host asks of an engine at open.
struct EngineOpenOptions {
  std::string checkpoint_dir;          // prepared checkpoint
  std::uint32_t max_context = 0;       // 0 = the model's maximum
  std::string precision = "exact";     // a policy name the plugin declares
  // The operator's consent to rounding weights the policy cannot hold
  // exactly: to the one weight type the policy holds (`allow_weight_rounding`)
  // or, for a reference, to a named type (`round_weights_to`).
  bool allow_weight_rounding = false;
  AlgentaDtype round_weights_to = ALGENTA_DTYPE_NONE;
  std::uint32_t max_sequences = 0;  // resident at once; 0 = the engine's default
  std::uint64_t kv_cache_bytes = 0;  // the KV cache's size; 0 = the engine's choice
  // Offer to own the KV blocks and pass a block table with every chunk
  // (ABI 1.1); the engine may decline (host_block_geometry() then says so).
  bool host_block_tables = false;
  // Offer to send sampling parameters instead of asking for logits (ABI
  // 1.2); the engine may decline (engine_samples() then says so).
  bool engine_sampling = false;
};

// The engine's paged cache when it took the host's block tables.
struct HostBlockGeometry {
  std::uint32_t tokens_per_block = 0;
  std::uint32_t blocks_total = 0;
};

// What rounding the engine did at open (nothing without consent).
struct WeightRounding {
  AlgentaDtype held = ALGENTA_DTYPE_NONE;  // the type the rounded weights are in
  std::uint64_t changed_values = 0;
  double max_relative = 0.0;
};

struct MemoryReport {
  std::uint64_t weight_bytes = 0, kv_cache_bytes = 0, workspace_bytes = 0;
  std::uint64_t device_free_bytes = 0, device_total_bytes = 0;
  std::uint32_t kv_tokens_per_block = 0, kv_blocks_total = 0, kv_blocks_free = 0;
};

class EngineSession {
 public:
  EngineSession(std::unique_ptr<loader::LoadedPlugin> plugin, const EngineOpenOptions& options);
  ~EngineSession();
  EngineSession(const EngineSession&) = delete;
  EngineSession& operator=(const EngineSession&) = delete;

  std::uint32_t vocab_size() const { return vocab_size_; }
  std::uint32_t max_context() const { return max_context_; }
  const std::string& precision() const { return precision_; }
  const WeightRounding& weight_rounding() const { return rounding_; }
  // Set when the host offered block tables and the engine took them; the
  // host then allocates blocks and every chunk must carry its table.
  const std::optional<HostBlockGeometry>& host_block_geometry() const { return host_blocks_; }
  // True when the host offered engine sampling and the engine took it:
  // chunks may then carry ChunkSampling.
  bool engine_samples() const { return engine_samples_; }
  const loader::LoadedPlugin& plugin() const { return *plugin_; }

  StepResult step(const std::vector<ChunkRequest>& chunks);
  void free_sequences(const std::vector<std::uint64_t>& ids);
  MemoryReport memory_report();

 private:
  void check(AlgentaError* error) const;

  std::unique_ptr<loader::LoadedPlugin> plugin_;
  AlgentaEngine* engine_ = nullptr;
  std::uint32_t vocab_size_ = 0;
  std::uint32_t max_context_ = 0;
  std::string precision_;
  WeightRounding rounding_;
  std::optional<HostBlockGeometry> host_blocks_;
  bool engine_samples_ = false;
};

// The policy `name` among those the plugin declares; UNSUPPORTED listing
// them otherwise.
const AlgentaPrecisionPolicy& precision_policy(const loader::LoadedPlugin& plugin,
                                               const std::string& name);

// "exact, bf16": the policies a plugin declares.
std::string precision_names(const loader::LoadedPlugin& plugin);

// Bytes per element a policy keeps on the device, for byte accounting
// (bench): weights in the one type the policy holds them in (0 when it holds
// several: then they stay as prepared), the KV cache in fp32 under exact and
// bf16 under bf16 (DESIGN.md, "Precision policies"); 0 when not known.
struct PolicyElementBytes {
  unsigned weights = 0;
  unsigned kv = 0;
};
PolicyElementBytes policy_element_bytes(const AlgentaPrecisionPolicy& policy);

// "bf16" for ALGENTA_DTYPE_BF16, ...
std::string dtype_text(AlgentaDtype dtype);

// One sentence on what rounding the engine did with consent; empty when none.
std::string describe_weight_rounding(const EngineSession& session);

// Prints describe_weight_rounding() as "<command>: <sentence>" when not empty.
void report_weight_rounding(std::ostream& out, const std::string& command,
                            const EngineSession& session);

// The exit code of a command whose engine raised `error`: 2 when the engine
// refused the checkpoint or the request, 3 when it failed.
int exit_code_for(const EngineError& error);

// Empty when `dir` holds a prepared checkpoint; otherwise the sentence that
// tells the user how to make one.
std::string unprepared_checkpoint(const std::string& dir);

}  // namespace algenta::host
