// What every engine does before touching its device at open: map the
// resident checkpoint, read its facts, refuse what the plugin's descriptor
// does not declare, and settle the served context. Failures are
// plugin::StatusError with the ABI status the caller should see.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "algenta/plugin_abi.h"
#include "checkpoint/resident_reader.hpp"
#include "facts/conformance.hpp"
#include "facts/model_facts.hpp"
#include "model_shape.hpp"
#include "step_plan.hpp"

namespace algenta::decoder {

// IO when the checkpoint cannot be read.
checkpoint::ResidentCheckpoint open_resident_checkpoint(const std::filesystem::path& dir);

// dir/config.json as facts: IO when unreadable, INVALID_ARGUMENT when malformed.
facts::ModelFacts read_model_facts(const std::filesystem::path& dir);

// UNSUPPORTED naming every fact outside `descriptor`'s ranges, plus the
// `extra` refusals an engine adds for limits its kernels have.
void refuse_unsupported(const facts::ModelFacts& facts, const AlgentaDescriptor& descriptor,
                        std::vector<facts::Refusal> extra = {});

// The context the engine serves: the model's maximum when `requested` is 0;
// INVALID_ARGUMENT when it exceeds the model's maximum.
std::size_t served_context(std::uint32_t requested, std::size_t model_max_positions);

// A refusal for a fact the kernels bound (the message names value and range).
facts::Refusal limit_refusal(const std::string& fact, std::int64_t value, std::int64_t min,
                             std::int64_t max, const std::string& why);

// What every engine settles from its open arguments before its own work.
struct OpenedModel {
  checkpoint::ResidentCheckpoint checkpoint;
  ModelShape shape;
  FamilyDescription family;
  EngineLimits limits;  // host_blocks left to the engine (not accepted)
  bool host_offers_block_tables = false;
  bool host_offers_sampling = false;  // engine_samples = 1 (ABI 1.2)
};

// args.checkpoint_dir read and checked against `descriptor` (the calls
// above), and the limits: the served context, the vocabulary and
// max_sequences (default_max_sequences when 0). INVALID_ARGUMENT for a NULL
// directory and a host_block_tables or engine_samples other than 0 or 1.
OpenedModel open_model(const AlgentaEngineOpen_Args& args, const AlgentaDescriptor& descriptor,
                       std::uint32_t default_max_sequences);

// Tells the caller what the engine serves: served_max_context and vocab_size,
// and its answer to host block tables (ABI 1.1): accepted with the geometry
// of limits.host_blocks, or declined; and to engine sampling (ABI 1.2):
// limits.engine_sampling. Fields of a minor are written only when the
// caller's struct covers them.
void report_opened(AlgentaEngineOpen_Args& args, const EngineLimits& limits);

}  // namespace algenta::decoder
