#include "engine_session.hpp"

#include <filesystem>

#include "checkpoint/resident_format.hpp"
#include "commands.hpp"
#include "plugin_report.hpp"

namespace algenta::host {

EngineSession::EngineSession(std::unique_ptr<loader::LoadedPlugin> plugin,
                             const std::string& checkpoint_dir, std::uint32_t max_context)
    : plugin_(std::move(plugin)) {
  AlgentaEngineOpen_Args args{};
  args.struct_size = sizeof args;
  args.checkpoint_dir = checkpoint_dir.c_str();
  args.max_context = max_context;
  check(plugin_->table().engine_open(&args));
  engine_ = args.engine;
  vocab_size_ = args.vocab_size;
  max_context_ = args.max_context;
}

EngineSession::~EngineSession() {
  if (engine_ != nullptr) plugin_->table().engine_close(engine_);
}

void EngineSession::check(AlgentaError* error) const {
  if (error == nullptr) return;
  const PluginFailure failure = take_error(plugin_->table(), error);
  throw EngineError(failure.code, failure.message);
}

StepResult EngineSession::step(const std::vector<ChunkRequest>& chunks) {
  std::vector<AlgentaSequenceChunk> abi_chunks;
  std::size_t logit_floats = 0;
  for (const ChunkRequest& c : chunks) {
    AlgentaSequenceChunk chunk{};
    chunk.struct_size = sizeof chunk;
    chunk.sequence_id = c.sequence_id;
    chunk.tokens = c.tokens.data();
    chunk.token_count = static_cast<std::uint32_t>(c.tokens.size());
    chunk.start_position = c.start_position;
    chunk.want_logits = c.logits;
    abi_chunks.push_back(chunk);
    if (c.logits == ALGENTA_LOGITS_LAST) logit_floats += vocab_size_;
    if (c.logits == ALGENTA_LOGITS_ALL) logit_floats += c.tokens.size() * vocab_size_;
  }
  StepResult result;
  result.next_tokens.resize(chunks.size());
  result.logits.resize(logit_floats);
  AlgentaEngineStep_Args args{};
  args.struct_size = sizeof args;
  args.engine = engine_;
  args.chunks = abi_chunks.data();
  args.chunk_count = abi_chunks.size();
  args.next_tokens = result.next_tokens.data();
  args.logits = logit_floats > 0 ? result.logits.data() : nullptr;
  args.logits_capacity = logit_floats;
  check(plugin_->table().engine_step(&args));
  return result;
}

void EngineSession::free_sequences(const std::vector<std::uint64_t>& ids) {
  AlgentaSequencesFree_Args args{};
  args.struct_size = sizeof args;
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
