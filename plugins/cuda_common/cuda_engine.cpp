#include "cuda_engine.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "engine_open.hpp"
#include "kernels/engine_settings.hpp"
#include "plugin_support/plugin_error.hpp"
#include "rope.hpp"
#include "table_rows.hpp"
#include "target_policy.hpp"
#include "weight_precision.hpp"

namespace algenta::cuda {
namespace {

[[noreturn]] void fail(AlgentaStatusCode code, const std::string& message) {
  throw plugin::StatusError{code, message};
}

checkpoint::Dtype element_dtype() {
  return TargetPolicy::kWeightDtype == ALGENTA_DTYPE_F16 ? checkpoint::Dtype::F16
                                                         : checkpoint::Dtype::BF16;
}

cudaDataType_t element_cuda_type() {
  return element_dtype() == checkpoint::Dtype::F16 ? CUDA_R_16F : CUDA_R_16BF;
}

void select_device(std::uint32_t ordinal) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    fail(ALGENTA_STATUS_DEVICE, std::string(TargetPolicy::kPluginName) +
                                    ": no CUDA device is usable (" + cudaGetErrorString(status) +
                                    ")");
  }
  if (ordinal >= static_cast<std::uint32_t>(count)) {
    fail(ALGENTA_STATUS_INVALID_ARGUMENT, "device_ordinal " + std::to_string(ordinal) +
                                              " does not exist; devices: 0.." +
                                              std::to_string(count - 1));
  }
  check_cuda(cudaSetDevice(static_cast<int>(ordinal)), "selecting device " + std::to_string(ordinal));
}

PassLimits pass_limits_for(std::size_t max_context) {
  PassLimits limits;
  limits.max_blocks = static_cast<int>((max_context + kKvBlockTokens - 1) / kKvBlockTokens);
  limits.max_rows = std::max(kMaxPrefillRows, kMaxDecodeRows);
  limits.max_slots = limits.max_rows;
  limits.max_decode_rows = kMaxDecodeRows;
  limits.max_splits = (limits.max_blocks + kDecodeSplitBlocks - 1) / kDecodeSplitBlocks;
  limits.logits_rows = std::max(kLogitsRowsAtOnce, kMaxDecodeRows);
  limits.rope_positions = static_cast<int>(max_context) + 1;  // +1: see the planted RoPE bug
  limits.gemm_workspace = kGemmWorkspaceBytes;
  return limits;
}

std::uint64_t kv_block_bytes(const decoder::ModelShape& shape) {
  return std::uint64_t{2} * shape.layers * shape.kv_heads * kKvBlockTokens * shape.head_dim *
         sizeof(float);
}

// KV blocks: what kv_cache_bytes asks for, or 90% of what the device has left
// after weights and workspace, capped at what max_sequences full-length
// sequences could ever use. At least one full-context sequence must fit.
std::size_t plan_kv_blocks(std::uint64_t requested_bytes, std::uint64_t weight_bytes,
                           std::uint64_t workspace_bytes, const decoder::ModelShape& shape,
                           const decoder::EngineLimits& limits, const PassLimits& pass) {
  const DeviceMemoryInfo memory = device_memory_info();
  const std::uint64_t block_bytes = kv_block_bytes(shape);
  const std::uint64_t one_sequence = std::uint64_t(pass.max_blocks) * block_bytes;
  const std::uint64_t fixed = weight_bytes + workspace_bytes + kDeviceHeadroomBytes;
  const std::string needs = "weights " + byte_text(weight_bytes) + ", workspace " +
                            byte_text(workspace_bytes) + ", headroom " +
                            byte_text(kDeviceHeadroomBytes);
  if (fixed + one_sequence > memory.free_bytes) {
    fail(ALGENTA_STATUS_OUT_OF_MEMORY,
         "the model needs " + byte_text(fixed + one_sequence) + " of device memory (" + needs +
             ", KV cache for one sequence of " + std::to_string(limits.max_context) + " tokens " +
             byte_text(one_sequence) + ") but the device has " + byte_text(memory.free_bytes) +
             " free of " + byte_text(memory.total_bytes) +
             " (lower max_context, or free the device)");
  }
  const std::uint64_t available = memory.free_bytes - fixed;
  if (requested_bytes != 0) {
    if (requested_bytes < one_sequence) {
      fail(ALGENTA_STATUS_INVALID_ARGUMENT,
           "kv_cache_bytes " + std::to_string(requested_bytes) + " holds less than one sequence of " +
               std::to_string(limits.max_context) + " tokens, which needs " +
               byte_text(one_sequence));
    }
    if (requested_bytes > available) {
      fail(ALGENTA_STATUS_OUT_OF_MEMORY,
           "kv_cache_bytes asks for " + byte_text(requested_bytes) + " but only " +
               byte_text(available) + " are left after " + needs + " (device free " +
               byte_text(memory.free_bytes) + ")");
    }
    return static_cast<std::size_t>(requested_bytes / block_bytes);
  }
  const std::uint64_t most_useful = std::uint64_t(limits.max_sequences) * pass.max_blocks;
  const std::uint64_t affordable = available / 10 * 9 / block_bytes;
  return static_cast<std::size_t>(std::max<std::uint64_t>(std::min(most_useful, affordable),
                                                          pass.max_blocks));
}

// The CUDA engines take the host's block tables when offered (checked on a
// card by tests/gpu/engine_checks and the prefix-cache test);
// ALGENTA_CUDA_HOST_BLOCKS=0 makes them decline the offer and keep their
// own cache, as a 1.0 engine does.
bool host_block_tables_enabled() {
  const char* value = std::getenv("ALGENTA_CUDA_HOST_BLOCKS");
  return value == nullptr || std::strcmp(value, "0") != 0;
}

bool engine_log_enabled() { return setting_is_on("ALGENTA_ENGINE_LOG"); }

}  // namespace

CudaEngine::CudaEngine(checkpoint::ResidentCheckpoint checkpoint, const decoder::ModelShape& shape,
                       const decoder::FamilyDescription& family,
                       const decoder::EngineLimits& limits, const PassLimits& pass_limits,
                       std::size_t kv_blocks, Precision precision)
    : checkpoint_(std::move(checkpoint)),
      shape_(shape),
      family_(family),
      limits_(limits),
      pass_limits_(pass_limits),
      weights_(shape_, family_, element_dtype()),
      workspace_(shape_, pass_limits_) {
  if (limits_.host_blocks.accepted()) {
    host_sequences_.emplace(kv_blocks);
  } else {
    own_blocks_.emplace(kv_blocks);
  }
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
  weights_.upload(checkpoint_);
  workspace_.allocate();
  kv_pool_.blocks = kv_blocks;
  kv_pool_.block_floats = shape_.kv_heads * kKvBlockTokens * shape_.head_dim;
  kv_arena_.plan(kv_pool_.bytes(shape_.layers));
  kv_arena_.allocate("the KV cache");
  kv_pool_.base = kv_arena_.at<float>(0);
  // Defined contents everywhere, though only written slots are ever read.
  check_cuda(cudaMemsetAsync(kv_pool_.base, 0, kv_arena_.bytes(), stream_), "clearing the KV cache");
  upload_rope_tables();
  gemm_ = std::make_unique<LtGemm>(element_cuda_type(), workspace_.at<void>(workspace_.gemm),
                                   kGemmWorkspaceBytes);
  const int hidden = static_cast<int>(shape_.hidden);
  const int inter = static_cast<int>(shape_.intermediate);
  gemm_->pin(static_cast<int>(shape_.q_dim() + 2 * shape_.kv_dim()), hidden);
  gemm_->pin(hidden, static_cast<int>(shape_.q_dim()));
  gemm_->pin(2 * inter, hidden);
  gemm_->pin(hidden, inter);
  forward_ = std::make_unique<DeviceForward>(shape_, family_, weights_, workspace_, pass_limits_,
                                             kv_pool_, *gemm_, precision);
  if (limits_.engine_sampling) sampler_.emplace(static_cast<int>(shape_.vocab));
  synchronize("opening the engine");
}

CudaEngine::~CudaEngine() {
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  for (auto& [bucket, graph] : decode_graphs_) cudaGraphExecDestroy(graph);
  for (auto& [rows, graph] : prefill_graphs_) cudaGraphExecDestroy(graph);
  gemm_.reset();
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

std::unique_ptr<CudaEngine> CudaEngine::open(AlgentaEngineOpen_Args& args,
                                             const AlgentaDescriptor& descriptor) {
  // Everything about the checkpoint is settled before the GPU is touched.
  decoder::OpenedModel model = decoder::open_model(args, descriptor, kDefaultMaxSequences);
  const decoder::WeightHolding holding =
      decoder::settle_engine_weights(args, descriptor, model.checkpoint, element_dtype());
  const Precision precision =
      decoder::chosen_policy(args, descriptor).precision == ALGENTA_PRECISION_BF16
          ? Precision::bf16
          : Precision::exact;
  const PassLimits pass = pass_limits_for(model.limits.max_context);

  // Sampled tokens are drawn on the device (device_sampler.hpp), so logits
  // stay on the card.
  model.limits.engine_sampling = model.host_offers_sampling;

  select_device(args.device_ordinal);
  const DeviceWeights sizing(model.shape, model.family, element_dtype());
  const Workspace workspace_sizing(model.shape, pass);
  const std::uint64_t sampler_bytes =
      model.limits.engine_sampling
          ? DeviceSampler::bytes_for(static_cast<int>(model.shape.vocab))
          : 0;
  const std::size_t kv_blocks =
      plan_kv_blocks(args.kv_cache_bytes, sizing.bytes(), workspace_sizing.bytes() + sampler_bytes,
                     model.shape, model.limits, pass);

  // Offered block tables, the engine takes them: the pool planned above is
  // then the host's to hand out, in the kernels' blocks of kKvBlockTokens.
  if (model.host_offers_block_tables && host_block_tables_enabled()) {
    model.limits.host_blocks = {static_cast<std::size_t>(kKvBlockTokens), kv_blocks};
  }
  std::unique_ptr<CudaEngine> engine(new CudaEngine(std::move(model.checkpoint), model.shape,
                                                    model.family, model.limits, pass, kv_blocks,
                                                    precision));
  decoder::report_opened(args, model.limits);
  decoder::report_rounding(args, holding);
  return engine;
}

void CudaEngine::upload_rope_tables() {
  const std::vector<float> inv_freq =
      decoder::rope_inverse_frequencies(shape_.head_dim, shape_.rope);
  const std::size_t half = shape_.head_dim / 2;
  const std::size_t positions = static_cast<std::size_t>(pass_limits_.rope_positions);
  std::vector<float> cos(positions * half), sin(positions * half);
  for (std::size_t p = 0; p < positions; ++p) {
    decoder::rope_angles(inv_freq, p, cos.data() + p * half, sin.data() + p * half);
  }
  check_cuda(cudaMemcpy(workspace_.at<float>(workspace_.rope_cos), cos.data(),
                        cos.size() * sizeof(float), cudaMemcpyHostToDevice),
             "uploading RoPE tables");
  check_cuda(cudaMemcpy(workspace_.at<float>(workspace_.rope_sin), sin.data(),
                        sin.size() * sizeof(float), cudaMemcpyHostToDevice),
             "uploading RoPE tables");
}

void CudaEngine::synchronize(const char* what) {
  check_cuda(cudaStreamSynchronize(stream_), what);
}

void CudaEngine::step(AlgentaEngineStep_Args& args) {
  std::lock_guard lock(mutex_);
  downloaded_bytes_ = 0;
  if (host_sequences_) {
    step_host_blocks(args);
  } else {
    step_own_blocks(args);
  }
}

void CudaEngine::step_own_blocks(AlgentaEngineStep_Args& args) {
  const decoder::StepPlan plan = decoder::plan_step(args, *own_blocks_, limits_);
  if (plan.chunks.empty()) return;
  own_blocks_->reserve(plan.chunks);  // refuses before changing anything
  try {
    execute(plan, args);
  } catch (...) {
    own_blocks_->roll_back(plan.chunks);
    throw;
  }
  for (const decoder::PlannedChunk& chunk : plan.chunks) {
    own_blocks_->set_length(chunk.sequence_id, chunk.start + chunk.tokens.size());
  }
}

// The host's blocks: plan_step has checked every table (ids in the pool,
// long enough, no block written by one chunk and listed by another), so
// there is nothing to reserve or undo. A new sequence may start past 0 on
// blocks another sequence computed (a prefix the host shares): its rows
// read those keys through its table. Lengths and tables are recorded only
// after the step succeeded.
void CudaEngine::step_host_blocks(AlgentaEngineStep_Args& args) {
  const decoder::StepPlan plan = decoder::plan_step(args, *host_sequences_, limits_);
  if (plan.chunks.empty()) return;
  execute(plan, args);
  for (const decoder::PlannedChunk& chunk : plan.chunks) host_sequences_->commit(chunk);
}

int CudaEngine::slot_of(Pass& pass, const decoder::PlannedChunk& chunk) const {
  const auto found = pass.slots.find(chunk.sequence_id);
  if (found != pass.slots.end()) return found->second;
  const int slot = static_cast<int>(pass.slots.size());
  pass.slots.emplace(chunk.sequence_id, slot);
  if (host_sequences_) {
    append_table_row(pass.tables, chunk.block_table, pass_limits_.max_blocks);
  } else {
    append_table_row(pass.tables, own_blocks_->blocks_of(chunk.sequence_id),
                     pass_limits_.max_blocks);
  }
  return slot;
}

// Rows of one-token chunks run as decode passes, all others as prefill
// passes (split at kMaxPrefillRows; a later pass sees the keys an earlier
// one wrote). Logits land straight in the caller's buffer; every chunk's
// next token is chosen on the device (greedy argmax or the sampler).
void CudaEngine::execute(const decoder::StepPlan& plan, AlgentaEngineStep_Args& args) {
  const std::size_t vocab = shape_.vocab;
  Pass prefill;
  Pass decode;
  auto flush_prefill = [&] {
    if (!prefill.rows.empty()) run_prefill(prefill);
    prefill = Pass{};
  };
  auto flush_decode = [&] {
    if (!decode.rows.empty()) run_decode(decode);
    decode = Pass{};
  };

  for (std::size_t c = 0; c < plan.chunks.size(); ++c) {
    const decoder::PlannedChunk& chunk = plan.chunks[c];
    const bool one_token = chunk.tokens.size() == 1;
    for (std::size_t i = 0; i < chunk.tokens.size(); ++i) {
      Pass& pass = one_token ? decode : prefill;
      const int limit = one_token ? kMaxDecodeRows : kMaxPrefillRows;
      if (static_cast<int>(pass.rows.size()) == limit) one_token ? flush_decode() : flush_prefill();
      const int row = static_cast<int>(pass.rows.size());
      pass.rows.push_back({chunk.tokens[i], static_cast<std::int32_t>(chunk.start + i),
                           slot_of(pass, chunk),
                           static_cast<std::int32_t>(chunk.start)});
      const bool last = i + 1 == chunk.tokens.size();
      float* out = nullptr;
      if (chunk.logits == ALGENTA_LOGITS_ALL) {
        out = args.logits + chunk.logits_offset + i * vocab;
      } else if (last && chunk.logits == ALGENTA_LOGITS_LAST) {
        out = args.logits + chunk.logits_offset;
      }
      LogitsTarget target{row, out, last ? &args.next_tokens[c] : nullptr};
      if (last) {
        target.sampling = chunk.sampling;
        target.position = chunk.start + chunk.tokens.size();
        target.sequence_id = chunk.sequence_id;
      }
      if (out != nullptr || target.token != nullptr) pass.logits.push_back(target);
    }
  }
  flush_prefill();
  flush_decode();
}

// Every pass's rows and block tables (the engine's own or the host's, made
// alike by slot_of) go into the same fixed workspace buffers, which the
// captured decode graphs read: a graph never holds a table of its own.
void CudaEngine::upload(const Pass& pass, int padded_rows) {
  std::vector<RowMeta> rows = pass.rows;
  rows.resize(static_cast<std::size_t>(padded_rows), RowMeta{0, -1, 0, 0});
  check_cuda(cudaMemcpyAsync(forward_->rows(), rows.data(), rows.size() * sizeof(RowMeta),
                             cudaMemcpyHostToDevice, stream_),
             "uploading the pass's rows");
  check_cuda(cudaMemcpyAsync(forward_->block_tables(), pass.tables.data(),
                             pass.tables.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice,
                             stream_),
             "uploading block tables");
}

void CudaEngine::copy_logits(const Pass& pass, int first_row, int count) {
  const std::size_t vocab = shape_.vocab;
  for (const LogitsTarget& target : pass.logits) {
    if (target.row < first_row || target.row >= first_row + count || target.out == nullptr) continue;
    check_cuda(cudaMemcpyAsync(target.out,
                               forward_->logits() + static_cast<std::size_t>(target.row - first_row) * vocab,
                               vocab * sizeof(float), cudaMemcpyDeviceToHost, stream_),
               "copying logits");
    downloaded_bytes_ += vocab * sizeof(float);
  }
  // Sampled rows are drawn from the logits on the device.
  std::vector<SampledRow> sampled;
  for (const LogitsTarget& target : pass.logits) {
    if (target.row < first_row || target.row >= first_row + count || target.sampling == nullptr) continue;
    sampled.push_back({target.sampling, target.row - first_row, target.position, target.sequence_id,
                       target.token});
  }
  if (!sampled.empty()) downloaded_bytes_ += sampler_->draw(sampled, forward_->logits(), stream_);
  // With device greedy, the rows' tokens (4 bytes a row) instead of their logits.
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(count));
  if (!tokens.empty()) {
    check_cuda(cudaMemcpyAsync(tokens.data(), forward_->greedy_tokens(),
                               tokens.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost, stream_),
               "copying greedy tokens");
    downloaded_bytes_ += tokens.size() * sizeof(std::int32_t);
  }
  synchronize("computing a step");
  for (const LogitsTarget& target : pass.logits) {
    if (target.row < first_row || target.row >= first_row + count || target.token == nullptr ||
        target.sampling != nullptr) {
      continue;
    }
    *target.token = tokens[static_cast<std::size_t>(target.row - first_row)];
  }
}

// Prefill passes run as graphs, one per
// multiple of kPrefillGraphRows rows (the pass padded with rows at position
// -1, which every kernel skips or computes alone: a row's bits never depend
// on the others), captured at a bucket's first use: a 256-token prefill is
// some 500 launches, whose host time may be that of the work itself. On by
// default (a 256-token prefill's first token 5.03 -> 3.35 ms on an H100,
// docs/performance.md); ALGENTA_CUDA_PREFILL_GRAPHS=0 launches the kernels
// one by one.
namespace {
bool prefill_graphs_enabled() {
  static const bool enabled = setting_is_not_off("ALGENTA_CUDA_PREFILL_GRAPHS");
  return enabled;
}
}  // namespace

void CudaEngine::run_prefill(Pass& pass) {
  const int rows = static_cast<int>(pass.rows.size());
  const bool graphed = prefill_graphs_enabled();
  const int padded = graphed ? (rows + kPrefillGraphRows - 1) / kPrefillGraphRows * kPrefillGraphRows
                             : rows;
  upload(pass, padded);
  std::vector<std::int32_t> logit_rows;
  for (const LogitsTarget& target : pass.logits) logit_rows.push_back(target.row);
  check_cuda(cudaMemcpyAsync(forward_->logit_rows(), logit_rows.data(),
                             logit_rows.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice,
                             stream_),
             "uploading logit rows");
  if (graphed) {
    check_cuda(cudaGraphLaunch(prefill_graph(padded), stream_), "launching a prefill graph");
  } else {
    forward_->layers(rows, PassForm::prefill, stream_);
  }
  const int count = static_cast<int>(logit_rows.size());
  forward_->final_norm(forward_->logit_rows(), count, PassForm::prefill, stream_);
  // normed row i now holds pass row logit_rows[i]; map targets onto it.
  Pass compact;
  for (int i = 0; i < count; ++i) {
    LogitsTarget target = pass.logits[i];
    target.row = i;
    compact.logits.push_back(target);
  }
  for (int first = 0; first < count; first += kLogitsRowsAtOnce) {
    const int group = std::min(kLogitsRowsAtOnce, count - first);
    forward_->lm_head(first, group, stream_);
    forward_->greedy(group, stream_);
    copy_logits(compact, first, group);
  }
}

void CudaEngine::run_decode(Pass& pass) {
  const int rows = static_cast<int>(pass.rows.size());
  int bucket = 1;
  while (bucket < rows) bucket *= 2;
  // Attention's grid follows the longest live row, rounded up to a power of
  // two so that a few graphs serve every length; a row's bits never depend on it.
  int longest = 0;
  for (const RowMeta& row : pass.rows) longest = std::max(longest, row.position);
  int splits = 1;
  while (splits < decode_slices_for(longest)) splits *= 2;
  splits = std::min(splits, pass_limits_.max_splits);
  upload(pass, bucket);
  check_cuda(cudaGraphLaunch(decode_graph({bucket, splits}), stream_), "launching the decode graph");
  copy_logits(pass, 0, rows);
}

// One graph per (rows bucket, attention slices): every layer, the final norm
// and lm_head for `bucket` rows, reading rows and block tables from fixed
// workspace buffers.
cudaGraphExec_t CudaEngine::decode_graph(DecodeGraphKey key) {
  const auto found = decode_graphs_.find(key);
  if (found != decode_graphs_.end()) return found->second;
  const auto [bucket, splits] = key;
  char what[96];
  std::snprintf(what, sizeof what, "decode graph for %d rows, %d attention slices", bucket, splits);
  cudaGraphExec_t exec = capture(what, "step", [&, bucket = bucket, splits = splits] {
    forward_->layers(bucket, PassForm::decode, stream_, splits);
    forward_->final_norm(nullptr, bucket, PassForm::decode, stream_);
    forward_->lm_head(0, bucket, stream_);
    forward_->greedy(bucket, stream_);
  });
  decode_graphs_.emplace(key, exec);
  return exec;
}

// One graph per padded row count: the layers of a prefill pass (the final
// norm and lm_head, which take the pass's logit rows, run after it).
cudaGraphExec_t CudaEngine::prefill_graph(int rows) {
  const auto found = prefill_graphs_.find(rows);
  if (found != prefill_graphs_.end()) return found->second;
  char what[64];
  std::snprintf(what, sizeof what, "prefill graph for %d rows", rows);
  cudaGraphExec_t exec =
      capture(what, "pass", [&] { forward_->layers(rows, PassForm::prefill, stream_); });
  prefill_graphs_.emplace(rows, exec);
  return exec;
}

// What `record` enqueues on the engine's stream, as one instantiated graph;
// the engine log counts its launches per `unit` (what one launch runs).
cudaGraphExec_t CudaEngine::capture(const char* what, const char* unit,
                                    const std::function<void()>& record) {
  check_cuda(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
             std::string("capturing the ") + what);
  cudaGraph_t graph = nullptr;
  try {
    record();
  } catch (...) {
    cudaStreamEndCapture(stream_, &graph);
    if (graph != nullptr) cudaGraphDestroy(graph);
    throw;
  }
  check_cuda(cudaStreamEndCapture(stream_, &graph), std::string("capturing the ") + what);
  std::size_t nodes = 0;
  cudaGraphGetNodes(graph, nullptr, &nodes);
  cudaGraphExec_t exec = nullptr;
  const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  check_cuda(status, std::string("instantiating the ") + what);
  if (engine_log_enabled()) {
    std::fprintf(stderr, "%s: %s: %zu kernel launches per %s\n", TargetPolicy::kPluginName, what,
                 nodes, unit);
  }
  return exec;
}

void CudaEngine::free_sequences(const AlgentaSequencesFree_Args& args) {
  std::lock_guard lock(mutex_);
  if (host_sequences_) {
    // The blocks are the host's (another sequence may still list them):
    // only the sequences' own state goes.
    host_sequences_->free(args);
    return;
  }
  decoder::check_free_request(args, *own_blocks_);
  for (std::size_t i = 0; i < args.sequence_count; ++i) own_blocks_->release(args.sequence_ids[i]);
}

void CudaEngine::report_memory(AlgentaMemoryReport_Args& args) {
  std::lock_guard lock(mutex_);
  const DeviceMemoryInfo memory = device_memory_info();
  args.weight_bytes = weights_.bytes();
  args.kv_cache_bytes = kv_arena_.bytes();
  args.workspace_bytes = workspace_.bytes();
  args.device_free_bytes = memory.free_bytes;
  args.device_total_bytes = memory.total_bytes;
  args.kv_tokens_per_block = static_cast<std::uint32_t>(kKvBlockTokens);
  if (host_sequences_) {
    // Free: listed by no live sequence's latest table (the host may hold them still).
    args.kv_blocks_total = static_cast<std::uint32_t>(limits_.host_blocks.blocks_total);
    args.kv_blocks_free = static_cast<std::uint32_t>(host_sequences_->blocks_free());
    return;
  }
  args.kv_blocks_total = static_cast<std::uint32_t>(own_blocks_->total_blocks());
  args.kv_blocks_free = static_cast<std::uint32_t>(own_blocks_->free_blocks());
}

// Work queued on the engine's stream is finished before anything is freed;
// a fault found here is reported, and the destructor still releases all.
void CudaEngine::close() {
  std::lock_guard lock(mutex_);
  synchronize("closing the engine");
}

}  // namespace algenta::cuda
