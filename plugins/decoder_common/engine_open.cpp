#include "engine_open.hpp"

#include "checkpoint/checkpoint_error.hpp"
#include "facts/config_parse.hpp"
#include "facts/facts_error.hpp"
#include "facts/json_document.hpp"
#include "files/bounded_read.hpp"
#include "plugin_support/plugin_error.hpp"

namespace algenta::decoder {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(AlgentaStatusCode code, const std::string& message) {
  throw plugin::StatusError{code, message};
}

}  // namespace

checkpoint::ResidentCheckpoint open_resident_checkpoint(const fs::path& dir) {
  try {
    return checkpoint::ResidentCheckpoint::open(dir, /*verify_blob_checksum=*/false);
  } catch (const checkpoint::CheckpointError& e) {
    fail(ALGENTA_STATUS_IO, e.what());
  }
}

facts::ModelFacts read_model_facts(const fs::path& dir) {
  const fs::path config = dir / "config.json";
  std::string text;
  try {
    text = files::read_bounded(config, {facts::kMaxConfigBytes, "a config.json"});
  } catch (const files::FileReadError& error) {
    fail(ALGENTA_STATUS_IO, error.path + ": " + error.reason);
  }
  try {
    return facts::parse_model_facts(text, config.string());
  } catch (const facts::FactsError& e) {
    fail(ALGENTA_STATUS_INVALID_ARGUMENT, e.what());
  }
}

facts::Refusal limit_refusal(const std::string& fact, std::int64_t value, std::int64_t min,
                             std::int64_t max, const std::string& why) {
  const std::string allowed = std::to_string(min) + ".." + std::to_string(max);
  return {fact, std::to_string(value), allowed,
          fact + " = " + std::to_string(value) + " is outside " + allowed + " (" + why + ")"};
}

// The plugin's own declared ranges decide, so no engine computes a model its
// descriptor does not promise.
void refuse_unsupported(const facts::ModelFacts& facts, const AlgentaDescriptor& descriptor,
                        std::vector<facts::Refusal> extra) {
  std::vector<facts::Refusal> refusals =
      facts::check_facts(facts, facts::declared_support(descriptor));
  // rotate_half pairs the two halves of a head.
  if (facts.head_dim % 2 != 0) {
    refusals.push_back({"head_dim", std::to_string(facts.head_dim), "even",
                        "head_dim = " + std::to_string(facts.head_dim) +
                            " is odd; RoPE's rotate_half needs an even head_dim"});
  }
  refusals.insert(refusals.end(), extra.begin(), extra.end());
  if (refusals.empty()) return;
  std::string message = facts.source + ": ";
  for (std::size_t i = 0; i < refusals.size(); ++i) {
    message += (i == 0 ? "" : "; ") + refusals[i].message;
  }
  fail(ALGENTA_STATUS_UNSUPPORTED, message);
}

std::size_t served_context(std::uint32_t requested, std::size_t model_max_positions) {
  if (requested == 0) return model_max_positions;
  if (requested > model_max_positions) {
    fail(ALGENTA_STATUS_INVALID_ARGUMENT, "requested_max_context " + std::to_string(requested) +
                                              " exceeds the model's max_position_embeddings " +
                                              std::to_string(model_max_positions));
  }
  return requested;
}

namespace {

// An offer the host makes at open: 0 or 1; anything else is refused naming both.
bool host_offer(const char* field, std::uint32_t value, const char* when_0, const char* when_1) {
  if (value > 1) {
    fail(ALGENTA_STATUS_INVALID_ARGUMENT, std::string(field) + " is " + std::to_string(value) +
                                              "; allowed: 0 (" + when_0 + ") or 1 (" + when_1 + ")");
  }
  return value == 1;
}

}  // namespace

OpenedModel open_model(const AlgentaEngineOpen_Args& args, const AlgentaDescriptor& descriptor,
                       std::uint32_t default_max_sequences) {
  if (args.checkpoint_dir == nullptr) fail(ALGENTA_STATUS_INVALID_ARGUMENT, "checkpoint_dir is NULL");
  const bool offered =
      ALGENTA_STRUCT_HAS(&args, AlgentaEngineOpen_Args, host_block_tables) &&
      host_offer("host_block_tables", args.host_block_tables, "the engine owns its KV cache",
                 "the host passes block tables");
  const bool offers_sampling =
      ALGENTA_STRUCT_HAS(&args, AlgentaEngineOpen_Args, engine_samples) &&
      host_offer("engine_samples", args.engine_samples, "the host samples from logits",
                 "chunks bring sampling parameters");
  const fs::path dir(args.checkpoint_dir);
  checkpoint::ResidentCheckpoint checkpoint = open_resident_checkpoint(dir);
  const facts::ModelFacts facts = read_model_facts(dir);
  refuse_unsupported(facts, descriptor);
  const ModelShape shape = shape_of(facts);
  EngineLimits limits;
  limits.max_context = served_context(args.requested_max_context, shape.max_positions);
  limits.vocab = shape.vocab;
  limits.max_sequences = args.max_sequences == 0 ? default_max_sequences : args.max_sequences;
  return {std::move(checkpoint), shape, describe_family(facts), limits, offered, offers_sampling};
}

void report_opened(AlgentaEngineOpen_Args& args, const EngineLimits& limits) {
  args.served_max_context = static_cast<std::uint32_t>(limits.max_context);
  args.vocab_size = static_cast<std::uint32_t>(limits.vocab);
  if (!ALGENTA_STRUCT_HAS(&args, AlgentaEngineOpen_Args, kv_blocks_total)) return;
  const HostBlockGeometry& blocks = limits.host_blocks;
  args.block_tables_accepted = blocks.accepted() ? 1 : 0;
  args.kv_tokens_per_block = static_cast<std::uint32_t>(blocks.block_tokens);
  args.kv_blocks_total = static_cast<std::uint32_t>(blocks.blocks_total);
  if (!ALGENTA_STRUCT_HAS(&args, AlgentaEngineOpen_Args, sampling_accepted)) return;
  args.sampling_accepted = limits.engine_sampling ? 1 : 0;
}

}  // namespace algenta::decoder
