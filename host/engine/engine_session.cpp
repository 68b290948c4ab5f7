#include "engine/engine_session.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "checkpoint/resident_format.hpp"
#include "cli/commands.hpp"
#include "engine/plugin_report.hpp"

namespace algenta::host {

namespace {

// The one type a policy holds weights in, or NONE when it holds several
// (such an engine never needs to round).
AlgentaDtype single_weight_dtype(const AlgentaPrecisionPolicy& policy) {
  for (const AlgentaDtype dtype : {ALGENTA_DTYPE_F32, ALGENTA_DTYPE_BF16, ALGENTA_DTYPE_F16}) {
    if (policy.weight_dtypes == ALGENTA_DTYPE_BIT(dtype)) return dtype;
  }
  return ALGENTA_DTYPE_NONE;
}

unsigned dtype_bytes(AlgentaDtype dtype) {
  switch (dtype) {
    case ALGENTA_DTYPE_F32: return 4;
    case ALGENTA_DTYPE_BF16:
    case ALGENTA_DTYPE_F16: return 2;
    case ALGENTA_DTYPE_NONE: break;
  }
  return 0;
}

// The geometry of an engine that took the host's block tables; nothing when
// none were offered or the engine declined. An acceptance without a usable
// geometry is the engine's bug: refused, naming the numbers.
std::optional<HostBlockGeometry> accepted_block_tables(const AlgentaEngineOpen_Args& args,
                                                       bool offered, const std::string& plugin) {
  if (!offered || args.block_tables_accepted == 0) return std::nullopt;
  if (args.block_tables_accepted != 1 || args.kv_tokens_per_block == 0 ||
      args.kv_blocks_total == 0) {
    throw EngineError(ALGENTA_STATUS_INTERNAL,
                      plugin + " answered host block tables with block_tables_accepted " +
                          std::to_string(args.block_tables_accepted) + ", kv_tokens_per_block " +
                          std::to_string(args.kv_tokens_per_block) + " and kv_blocks_total " +
                          std::to_string(args.kv_blocks_total) +
                          " (accepted must be 1 with both counts >= 1)");
  }
  return HostBlockGeometry{args.kv_tokens_per_block, args.kv_blocks_total};
}

// Whether an engine took engine sampling; an answer other than 0 or 1 is the
// engine's bug.
bool accepted_sampling(const AlgentaEngineOpen_Args& args, bool offered, const std::string& plugin) {
  if (!offered) return false;
  if (args.sampling_accepted > 1) {
    throw EngineError(ALGENTA_STATUS_INTERNAL,
                      plugin + " answered engine sampling with sampling_accepted " +
                          std::to_string(args.sampling_accepted) + " (allowed: 0 or 1)");
  }
  return args.sampling_accepted == 1;
}

// The ABI form of a chunk's sampling, with its outputs pointing into `out`.
AlgentaSampling abi_sampling(const ChunkSampling& c, double& logprob,
                             std::array<std::int32_t, ALGENTA_MAX_TOP_LOGPROBS>& top_tokens,
                             std::array<double, ALGENTA_MAX_TOP_LOGPROBS>& top_values,
                             std::uint32_t& top_count) {
  AlgentaSampling s{};
  s.struct_size = ALGENTA_Sampling_STRUCT_SIZE;
  s.temperature = c.params.temperature;
  s.top_p = c.params.top_p;
  s.top_k = c.params.top_k;
  s.min_p = c.params.min_p;
  s.presence_penalty = c.params.presence_penalty;
  s.frequency_penalty = c.params.frequency_penalty;
  s.repetition_penalty = c.params.repetition_penalty;
  s.seed = c.seed;
  s.prompt_tokens = c.prompt_tokens.data();
  s.prompt_token_count = c.prompt_tokens.size();
  s.output_tokens = c.output_tokens.data();
  s.output_token_count = c.output_tokens.size();
  s.banned_tokens = c.banned_tokens.data();
  s.banned_token_count = c.banned_tokens.size();
  s.want_logprob = c.params.logprobs ? 1 : 0;
  s.top_logprobs = static_cast<std::uint32_t>(std::max(0, c.params.top_logprobs));
  s.logprob = &logprob;
  s.top_tokens = top_tokens.data();
  s.top_values = top_values.data();
  s.top_count = &top_count;
  return s;
}

}  // namespace

PolicyElementBytes policy_element_bytes(const AlgentaPrecisionPolicy& policy) {
  PolicyElementBytes bytes;
  bytes.weights = dtype_bytes(single_weight_dtype(policy));
  if (policy.precision == ALGENTA_PRECISION_EXACT) bytes.kv = 4;
  if (policy.precision == ALGENTA_PRECISION_BF16) bytes.kv = 2;
  return bytes;
}

std::string dtype_text(AlgentaDtype dtype) {
  switch (dtype) {
    case ALGENTA_DTYPE_F32: return "f32";
    case ALGENTA_DTYPE_BF16: return "bf16";
    case ALGENTA_DTYPE_F16: return "f16";
    case ALGENTA_DTYPE_NONE: break;
  }
  return "none";
}

std::string precision_names(const loader::LoadedPlugin& plugin) {
  const AlgentaDescriptor& d = plugin.descriptor();
  std::string names;
  for (size_t i = 0; i < d.precision_count; ++i) {
    names += (i == 0 ? "" : ", ") +
             std::string(ALGENTA_ELEMENT_AT(AlgentaPrecisionPolicy, d.precisions,
                                            d.precision_stride, i)->name);
  }
  return names;
}

const AlgentaPrecisionPolicy& precision_policy(const loader::LoadedPlugin& plugin,
                                               const std::string& name) {
  const AlgentaDescriptor& d = plugin.descriptor();
  for (size_t i = 0; i < d.precision_count; ++i) {
    const auto* policy =
        ALGENTA_ELEMENT_AT(AlgentaPrecisionPolicy, d.precisions, d.precision_stride, i);
    if (name == policy->name) return *policy;
  }
  throw EngineError(ALGENTA_STATUS_UNSUPPORTED,
                    plugin.entry().name + " does not run precision '" + name +
                        "' (it runs: " + precision_names(plugin) + ")");
}

EngineSession::EngineSession(std::unique_ptr<loader::LoadedPlugin> plugin,
                             const EngineOpenOptions& options)
    : plugin_(std::move(plugin)), precision_(options.precision) {
  const AlgentaPrecisionPolicy& policy = precision_policy(*plugin_, options.precision);
  AlgentaEngineOpen_Args args{};
  args.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
  args.checkpoint_dir = options.checkpoint_dir.c_str();
  args.precision = policy.precision;
  args.round_weights_to =
      options.allow_weight_rounding ? single_weight_dtype(policy) : options.round_weights_to;
  args.requested_max_context = options.max_context;
  args.max_sequences = options.max_sequences;
  args.kv_cache_bytes = options.kv_cache_bytes;
  args.host_block_tables = options.host_block_tables ? 1 : 0;
  args.block_tables_accepted = 0;  // a 1.0 engine never writes it: declined
  args.engine_samples = options.engine_sampling ? 1 : 0;
  args.sampling_accepted = 0;  // an engine before 1.2 never writes it: declined
  check(plugin_->table().engine_open(&args));
  engine_ = args.engine;
  try {
    host_blocks_ = accepted_block_tables(args, options.host_block_tables, plugin_->entry().name);
    engine_samples_ = accepted_sampling(args, options.engine_sampling, plugin_->entry().name);
  } catch (...) {
    loader::close_engine(plugin_->table(), engine_);  // no destructor runs for a failed constructor
    throw;
  }
  vocab_size_ = args.vocab_size;
  max_context_ = args.served_max_context;
  rounding_.held = args.rounded_weight_values > 0 ? args.round_weights_to : ALGENTA_DTYPE_NONE;
  rounding_.changed_values = args.rounded_weight_values;
  rounding_.max_relative = args.max_weight_rounding;
}

EngineSession::~EngineSession() {
  // A failure to release is reported; there is nobody left to hand it to.
  if (const auto failure = loader::close_engine(plugin_->table(), engine_)) {
    std::cerr << "algenta-host: closing " << plugin_->entry().name
              << " failed: " << failure->message << "\n";
  }
}

std::string describe_weight_rounding(const EngineSession& session) {
  const WeightRounding& r = session.weight_rounding();
  if (r.changed_values == 0) return {};
  char largest[32];
  std::snprintf(largest, sizeof largest, "%.3g", r.max_relative);
  return "weights rounded to " + dtype_text(r.held) + " with the operator's consent: " +
         std::to_string(r.changed_values) + " values changed (largest relative change " + largest +
         ")";
}

void report_weight_rounding(std::ostream& out, const std::string& command,
                            const EngineSession& session) {
  const std::string sentence = describe_weight_rounding(session);
  if (!sentence.empty()) out << command << ": " << session.plugin().entry().name << ": " << sentence << "\n";
}

MemoryReport EngineSession::memory_report() {
  AlgentaMemoryReport_Args args{};
  args.struct_size = ALGENTA_MemoryReport_Args_STRUCT_SIZE;
  args.engine = engine_;
  check(plugin_->table().memory_report(&args));
  return {args.weight_bytes,        args.kv_cache_bytes,      args.workspace_bytes,
          args.device_free_bytes,   args.device_total_bytes,  args.kv_tokens_per_block,
          args.kv_blocks_total,     args.kv_blocks_free};
}

void EngineSession::check(AlgentaError* error) const {
  if (error == nullptr) return;
  const PluginFailure failure = take_error(plugin_->table(), error);
  throw EngineError(failure.code, failure.message);
}

StepResult EngineSession::step(const std::vector<ChunkRequest>& chunks) {
  // The ABI's sampling structs and their outputs, per chunk (sized up front:
  // chunks point into them).
  struct Drawn {
    AlgentaSampling sampling{};
    double logprob = 0.0;
    std::array<std::int32_t, ALGENTA_MAX_TOP_LOGPROBS> top_tokens{};
    std::array<double, ALGENTA_MAX_TOP_LOGPROBS> top_values{};
    std::uint32_t top_count = 0;
  };
  std::vector<Drawn> drawn(chunks.size());
  std::vector<AlgentaSequenceChunk> abi_chunks;
  std::size_t logit_floats = 0;
  for (const ChunkRequest& c : chunks) {
    AlgentaSequenceChunk chunk{};
    chunk.struct_size = ALGENTA_SequenceChunk_STRUCT_SIZE;
    chunk.sequence_id = c.sequence_id;
    chunk.tokens = c.tokens.data();
    chunk.token_count = static_cast<std::uint32_t>(c.tokens.size());
    chunk.start_position = c.start_position;
    chunk.want_logits = c.logits;
    chunk.block_table = c.block_table.empty() ? nullptr : c.block_table.data();
    chunk.block_count = static_cast<std::uint32_t>(c.block_table.size());
    if (c.sampling) {
      if (!engine_samples_) {
        throw EngineError(ALGENTA_STATUS_INVALID_ARGUMENT,
                          "a chunk carries sampling parameters but the engine does not sample");
      }
      Drawn& d = drawn[abi_chunks.size()];
      d.sampling = abi_sampling(*c.sampling, d.logprob, d.top_tokens, d.top_values, d.top_count);
      chunk.sampling = &d.sampling;
    }
    abi_chunks.push_back(chunk);
    if (c.logits == ALGENTA_LOGITS_LAST) logit_floats += vocab_size_;
    if (c.logits == ALGENTA_LOGITS_ALL) logit_floats += c.tokens.size() * vocab_size_;
  }
  StepResult result;
  result.next_tokens.resize(chunks.size());
  result.logits.resize(logit_floats);
  AlgentaEngineStep_Args args{};
  args.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE;
  args.engine = engine_;
  args.chunks = abi_chunks.data();
  args.chunk_count = abi_chunks.size();
  args.chunk_stride = sizeof(AlgentaSequenceChunk);
  args.next_tokens = result.next_tokens.data();
  args.logits = logit_floats > 0 ? result.logits.data() : nullptr;
  args.logits_capacity = logit_floats;
  args.device_to_host_bytes = ALGENTA_BYTES_NOT_REPORTED;  // an engine before 1.3 leaves it so
  check(plugin_->table().engine_step(&args));
  if (args.device_to_host_bytes != ALGENTA_BYTES_NOT_REPORTED)
    result.device_to_host_bytes = args.device_to_host_bytes;
  result.drawn.resize(chunks.size());
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (!chunks[i].sampling || !chunks[i].sampling->params.logprobs) continue;
    const Drawn& d = drawn[i];
    DrawnLogprobs& out = result.drawn[i];
    out.logprob = d.logprob;
    const std::uint32_t asked = d.sampling.top_logprobs;
    if (asked > 0 && d.top_count > asked) {
      throw EngineError(ALGENTA_STATUS_INTERNAL,
                        plugin_->entry().name + " reported " + std::to_string(d.top_count) +
                            " top logprobs for a chunk that asked for " + std::to_string(asked));
    }
    for (std::uint32_t k = 0; asked > 0 && k < d.top_count; ++k) {
      out.top.push_back({d.top_tokens[k], d.top_values[k]});
    }
  }
  return result;
}

void EngineSession::free_sequences(const std::vector<std::uint64_t>& ids) {
  AlgentaSequencesFree_Args args{};
  args.struct_size = ALGENTA_SequencesFree_Args_STRUCT_SIZE;
  args.engine = engine_;
  args.sequence_ids = ids.data();
  args.sequence_count = ids.size();
  check(plugin_->table().sequences_free(&args));
}

int exit_code_for(const EngineError& error) {
  return error.code == ALGENTA_STATUS_INVALID_ARGUMENT || error.code == ALGENTA_STATUS_UNSUPPORTED
             ? kExitRefused
             : kExitEngine;
}

std::string unprepared_checkpoint(const std::string& dir) {
  if (std::filesystem::exists(std::filesystem::path(dir) / checkpoint::kResidentManifestFileName)) {
    return {};
  }
  return dir + " is not a prepared checkpoint (no manifest.json); run algenta-host prepare "
               "CHECKPOINT --out DIR first";
}

}  // namespace algenta::host
