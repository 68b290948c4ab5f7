#include "cli/checkpoint_probe.hpp"

#include <optional>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/resident_format.hpp"
#include "facts/json_document.hpp"
#include "files/bounded_read.hpp"

namespace algenta::host {

std::vector<facts::Refusal> unconvertible_model(const facts::ModelFacts& model) {
  if (model.family == facts::Family::unknown) {
    return {{"family", model.model_type, "llama, qwen2, qwen3, gemma3",
             "model_type " + model.model_type +
                 " is not one of the dense decoder families (llama, qwen2, qwen3, gemma3)"}};
  }
  for (const auto& markers :
       {facts::mixture_of_experts_markers(model), facts::latent_attention_markers(model)}) {
    if (!markers.empty()) {
      return {{markers.front(), "present", "absent",
               markers.front() + " marks a mixture-of-experts or latent-attention model; "
                                 "only dense decoders are converted"}};
    }
  }
  return {};
}

std::string read_checkpoint_config(const std::filesystem::path& checkpoint_dir) {
  const std::filesystem::path file = checkpoint_dir / "config.json";
  try {
    return files::read_bounded(file, {facts::kMaxConfigBytes, "a config.json"});
  } catch (const files::FileReadError& error) {
    const bool missing = error.kind == files::FileReadError::Kind::missing;
    throw checkpoint::CheckpointError(
        file.string(), "",
        missing ? "is missing (is this a Hugging Face checkpoint?)" : error.reason);
  }
}

std::vector<facts::ObservedTensor> observed_tensors(const checkpoint::ShardedCheckpoint& checkpoint) {
  std::vector<facts::ObservedTensor> observed;
  for (const checkpoint::SafetensorsFile& shard : checkpoint.shards()) {
    for (const checkpoint::TensorInfo& t : shard.tensors()) {
      observed.push_back({t.name, std::string(checkpoint::dtype_name(t.dtype)), t.shape,
                          shard.name()});
    }
  }
  return observed;
}

checkpoint::Dtype value_keeping_dtype(const checkpoint::ShardedCheckpoint& checkpoint,
                                      const facts::TensorCheck& check) {
  std::optional<checkpoint::Dtype> common;
  for (const auto& [canonical, stored] : check.stored_name) {
    const checkpoint::Dtype dtype = checkpoint.locate(stored).info.dtype;
    if (common && *common != dtype) return checkpoint::Dtype::F32;
    common = dtype;
  }
  return common.value_or(checkpoint::Dtype::F32);
}

TensorProbe probe_checkpoint_tensors(const std::filesystem::path& checkpoint_dir,
                                     const facts::ModelFacts& facts) {
  const auto checkpoint = checkpoint::ShardedCheckpoint::open(
      checkpoint_dir, checkpoint::SafetensorsAccess::header_only);
  TensorProbe probe{facts::check_tensors(facts, observed_tensors(checkpoint)), {}};
  if (!probe.check.stored_name.empty()) {
    const auto name = checkpoint::resident_dtype_name(value_keeping_dtype(checkpoint, probe.check));
    if (name) probe.weight_dtype = std::string(*name);
  }
  return probe;
}

}  // namespace algenta::host
