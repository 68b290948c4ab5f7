// The oracle engine behind the ABI calls: opens a resident checkpoint the
// oracle declares support for, runs ragged steps, frees sequences and
// reports memory. Errors are plugin::StatusError with the ABI status.
// Its KV cache is its own (kv_cache.hpp), or the host's blocks when the host
// offers block tables at open (block_tables.hpp); the arithmetic is the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "algenta/plugin_abi.h"
#include "block_tables.hpp"
#include "checkpoint/resident_reader.hpp"
#include "forward_pass.hpp"
#include "host_sequences.hpp"
#include "kv_cache.hpp"
#include "matmul.hpp"
#include "model_weights.hpp"
#include "step_plan.hpp"
#include "thread_pool.hpp"

namespace algenta::oracle {

using decoder::EngineLimits;
using decoder::PlannedChunk;
using decoder::StepPlan;

// Sequences live at once when the caller leaves max_sequences at 0.
inline constexpr std::uint32_t kDefaultMaxSequences = 64;

class OracleEngine {
 public:
  // Reads args->checkpoint_dir, refuses what `descriptor` does not declare
  // (UNSUPPORTED, naming each fact), checks every tensor (INVALID_ARGUMENT
  // naming it), rounds matrices when round_weights_to asks, takes host
  // block tables when offered, and writes back served_max_context,
  // vocab_size, what rounding changed and the block tables' geometry.
  static std::unique_ptr<OracleEngine> open(AlgentaEngineOpen_Args& args,
                                            const AlgentaDescriptor& descriptor);

  void step(AlgentaEngineStep_Args& args);
  // ABI 1.3: no device, so a step copies nothing from one.
  std::uint64_t device_to_host_bytes() const noexcept { return 0; }
  void free_sequences(const AlgentaSequencesFree_Args& args);
  void report_memory(AlgentaMemoryReport_Args& args);
  void close();  // nothing can fail: plain host memory

  std::size_t worker_count() const noexcept { return pool_.size(); }
  Isa isa() const noexcept { return isa_; }

 private:
  OracleEngine(checkpoint::ResidentCheckpoint checkpoint, const ModelShape& shape,
               const FamilyDescription& family, const EngineLimits& limits,
               checkpoint::Dtype matrix_dtype, std::size_t workers, Isa isa);

  void step_own_cache(AlgentaEngineStep_Args& args);
  void step_host_blocks(AlgentaEngineStep_Args& args);
  // Computes the planned chunks, chunk i through slots[i].
  void execute(const StepPlan& plan, std::span<KvSlots* const> slots, AlgentaEngineStep_Args& args);

  checkpoint::ResidentCheckpoint checkpoint_;  // keeps the weights mapped
  ModelShape shape_;
  FamilyDescription family_;
  ModelWeights weights_;
  EngineLimits limits_;
  Isa isa_;
  ThreadPool pool_;
  KvCache cache_;                          // without host block tables
  std::optional<HostBlockKv> host_blocks_;  // with them: the blocks' contents,
  std::optional<decoder::HostSequences> host_sequences_;  // and the sequences' lengths and tables
  ForwardPass forward_;
  std::mutex mutex_;  // one call at a time per engine
};

}  // namespace algenta::oracle
