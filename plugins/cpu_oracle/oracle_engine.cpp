#include "oracle_engine.hpp"

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "chunk_sampling.hpp"
#include "engine_open.hpp"
#include "weight_precision.hpp"
#include "ops.hpp"
#include "plugin_support/plugin_error.hpp"

namespace algenta::oracle {
namespace {

// The planted sampling bug draws with the noise of the next position.
#if ALGENTA_ORACLE_PLANTED_BUG == 5
constexpr std::size_t kDrawPositionShift = 1;
#else
constexpr std::size_t kDrawPositionShift = 0;
#endif

[[noreturn]] void fail(AlgentaStatusCode code, const std::string& message) {
  throw plugin::StatusError{code, message};
}

// The cache as the step planner sees it.
class CachedSequences final : public decoder::LiveSequences {
 public:
  explicit CachedSequences(const KvCache& cache) : cache_(cache) {}
  std::optional<std::size_t> cached_length(std::uint64_t id) const override {
    const SequenceKv* kv = cache_.find(id);
    if (kv == nullptr) return std::nullopt;
    return kv->length();
  }
  std::size_t live_count() const override { return cache_.live(); }

 private:
  const KvCache& cache_;
};

std::size_t workers_from_environment() {
  try {
    return configured_worker_count();
  } catch (const std::invalid_argument& e) {
    fail(ALGENTA_STATUS_INVALID_ARGUMENT, e.what());
  }
}

// ALGENTA_ORACLE_ISA=generic|avx2|avx512 picks that build of the loop where
// the CPU runs it (same bits; for tests and comparisons); anything else, or
// a build the CPU lacks, uses the widest the CPU has.
Isa chosen_isa() {
  const char* forced = std::getenv("ALGENTA_ORACLE_ISA");
  for (const Isa isa : available_isas()) {
    if (forced != nullptr && isa_name(isa) == forced) return isa;
  }
  return detect_isa();
}

}  // namespace

OracleEngine::OracleEngine(checkpoint::ResidentCheckpoint checkpoint, const ModelShape& shape,
                           const FamilyDescription& family, const EngineLimits& limits,
                           checkpoint::Dtype matrix_dtype, std::size_t workers, Isa isa)
    : checkpoint_(std::move(checkpoint)),
      shape_(shape),
      family_(family),
      weights_(bind_weights(checkpoint_, shape_, family_, matrix_dtype)),
      limits_(limits),
      isa_(isa),
      pool_(workers),
      cache_(shape_.layers, shape_.kv_dim()),
      forward_(shape_, family_, weights_, pool_, isa_) {
  if (limits_.host_blocks.accepted()) {
    host_blocks_.emplace(shape_.layers, shape_.kv_dim());
    host_sequences_.emplace(limits_.host_blocks.blocks_total);
  }
}

std::unique_ptr<OracleEngine> OracleEngine::open(AlgentaEngineOpen_Args& args,
                                                 const AlgentaDescriptor& descriptor) {
  decoder::OpenedModel model = decoder::open_model(args, descriptor, kDefaultMaxSequences);
  if (model.host_offers_block_tables) {
    model.limits.host_blocks = host_block_geometry(args.kv_cache_bytes, model.shape.layers,
                                                   model.shape.kv_dim(), model.limits);
  }
  // The oracle draws sampled tokens with the host's own sampler, from the
  // logits row it computes anyway.
  model.limits.engine_sampling = model.host_offers_sampling;
  const decoder::WeightHolding holding =
      decoder::settle_reference_weights(args, descriptor, model.checkpoint);
  std::unique_ptr<OracleEngine> engine(
      new OracleEngine(std::move(model.checkpoint), model.shape, model.family, model.limits,
                       holding.matrix_dtype, workers_from_environment(), chosen_isa()));
  decoder::report_opened(args, model.limits);
  decoder::report_rounding(args, holding);
  return engine;
}

void OracleEngine::step(AlgentaEngineStep_Args& args) {
  std::lock_guard lock(mutex_);
  if (host_blocks_) {
    step_host_blocks(args);
  } else {
    step_own_cache(args);
  }
}

void OracleEngine::step_own_cache(AlgentaEngineStep_Args& args) {
  const StepPlan plan = decoder::plan_step(args, CachedSequences(cache_), limits_);
  if (plan.chunks.empty()) return;

  // Nothing has changed yet. New sequences are created and every sequence's
  // slots reserved before computing; if anything throws from here on, the
  // new sequences are dropped and no length moves, so the step leaves no
  // trace but spare capacity.
  std::vector<std::uint64_t> created;
  try {
    std::vector<KvSlots*> slots;
    for (const PlannedChunk& chunk : plan.chunks) {
      SequenceKv* kv = cache_.find(chunk.sequence_id);
      if (kv == nullptr) {
        kv = &cache_.create(chunk.sequence_id);
        created.push_back(chunk.sequence_id);
      }
      kv->reserve(chunk.start + chunk.tokens.size(), limits_.max_context);
      slots.push_back(kv);
    }
    execute(plan, slots, args);
  } catch (...) {
    for (const std::uint64_t id : created) cache_.erase(id);
    throw;
  }
  for (const PlannedChunk& chunk : plan.chunks) {
    cache_.find(chunk.sequence_id)->set_length(chunk.start + chunk.tokens.size());
  }
}

// The host's blocks hold the cache: positions are reached through each
// chunk's table. Reads of uncomputed positions are refused and the written
// blocks made before computing; lengths, tables and written positions are
// recorded only after, so a failed step leaves no trace but block storage.
void OracleEngine::step_host_blocks(AlgentaEngineStep_Args& args) {
  const StepPlan plan = decoder::plan_step(args, *host_sequences_, limits_);
  if (plan.chunks.empty()) return;
  for (const PlannedChunk& chunk : plan.chunks) host_blocks_->check_reads(chunk);
  std::vector<TableSlots> tables;
  tables.reserve(plan.chunks.size());  // the pointers below stay valid
  std::vector<KvSlots*> slots;
  for (const PlannedChunk& chunk : plan.chunks) {
    host_blocks_->reserve(chunk);
    slots.push_back(&tables.emplace_back(*host_blocks_, chunk.block_table));
  }
  execute(plan, slots, args);
  for (const PlannedChunk& chunk : plan.chunks) {
    host_blocks_->mark_written(chunk);
    host_sequences_->commit(chunk);
  }
}

// One row per token, chunk after chunk. Requested logits go straight into
// the caller's buffer; a chunk that asked for none still needs its last
// row's logits for its next token, so those land in a spare buffer.
void OracleEngine::execute(const StepPlan& plan, std::span<KvSlots* const> slots,
                           AlgentaEngineStep_Args& args) {
  const std::size_t vocab = shape_.vocab;
  std::size_t without_logits = 0;
  for (const PlannedChunk& chunk : plan.chunks) {
    if (chunk.logits == ALGENTA_LOGITS_NONE) ++without_logits;
  }
  std::vector<float> spare(without_logits * vocab);
  float* next_spare = spare.data();

  std::vector<BatchRow> rows;
  rows.reserve(plan.total_tokens);
  std::vector<LogitsRow> logits;
  std::vector<const float*> last_logits;  // per chunk
  for (std::size_t c = 0; c < plan.chunks.size(); ++c) {
    const PlannedChunk& chunk = plan.chunks[c];
    KvSlots* kv = slots[c];
    const std::size_t first_row = rows.size();
    for (std::size_t i = 0; i < chunk.tokens.size(); ++i) {
      rows.push_back({kv, chunk.start + i, chunk.tokens[i]});
    }
    const std::size_t last_row = rows.size() - 1;
    switch (chunk.logits) {
      case ALGENTA_LOGITS_ALL:
        for (std::size_t r = first_row; r <= last_row; ++r) {
          logits.push_back({r, args.logits + chunk.logits_offset + (r - first_row) * vocab});
        }
        break;
      case ALGENTA_LOGITS_LAST:
        logits.push_back({last_row, args.logits + chunk.logits_offset});
        break;
      case ALGENTA_LOGITS_NONE:
        logits.push_back({last_row, next_spare});
        next_spare += vocab;
        break;
    }
    last_logits.push_back(logits.back().out);
  }

  forward_.run(rows, logits);
  for (std::size_t i = 0; i < plan.chunks.size(); ++i) {
    const PlannedChunk& chunk = plan.chunks[i];
    args.next_tokens[i] =
        chunk.sampling == nullptr
            ? argmax_lowest(last_logits[i], vocab)
            : decoder::draw_token(*chunk.sampling, {last_logits[i], vocab},
                                  chunk.start + chunk.tokens.size() + kDrawPositionShift,
                                  chunk.sequence_id);
  }
}

void OracleEngine::free_sequences(const AlgentaSequencesFree_Args& args) {
  std::lock_guard lock(mutex_);
  if (host_blocks_) {
    // The blocks are the host's: only the sequences' own state goes.
    host_sequences_->free(args);
    return;
  }
  decoder::check_free_request(args, CachedSequences(cache_));
  for (std::size_t i = 0; i < args.sequence_count; ++i) cache_.erase(args.sequence_ids[i]);
}

void OracleEngine::report_memory(AlgentaMemoryReport_Args& args) {
  std::lock_guard lock(mutex_);
  args.weight_bytes = weights_.bytes;
  args.workspace_bytes = forward_.workspace_bytes();
  args.device_free_bytes = 0;
  args.device_total_bytes = 0;
  if (host_blocks_) {
    args.kv_cache_bytes = host_blocks_->bytes();
    args.kv_tokens_per_block = static_cast<std::uint32_t>(limits_.host_blocks.block_tokens);
    args.kv_blocks_total = static_cast<std::uint32_t>(limits_.host_blocks.blocks_total);
    args.kv_blocks_free = static_cast<std::uint32_t>(host_sequences_->blocks_free());
    return;
  }
  args.kv_cache_bytes = cache_.bytes();
  // The oracle's own cache grows per sequence; it has no block geometry.
  args.kv_tokens_per_block = 0;
  args.kv_blocks_total = 0;
  args.kv_blocks_free = 0;
}

void OracleEngine::close() {}

}  // namespace algenta::oracle
