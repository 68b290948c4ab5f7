// A prepared checkpoint made from a seed instead of a download: exactly the
// tensors `prepare` writes for a config (the same names, shapes, dtype, order,
// alignment and manifest facts, through the same ResidentWriter), filled with
// normally distributed values at the config's initialisation scale.
//
//   weights, biases, embeddings:  N(0, initializer_range)  (default 0.02)
//   norm weights (*norm.weight):  1 + N(0, 0.02)
//                                 (gemma3: N(0, 0.02), its norms scale by 1 + w)
//   dtype: config.json's torch_dtype (bfloat16, float16, float32; float32 when
//          absent, as transformers saves then)
//
// Values are never zeros or constants: a benchmark on them does the same
// work as on trained weights (no sparsity or constant folding to profit from).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/dtype.hpp"
#include "checkpoint/resident_format.hpp"
#include "facts/model_facts.hpp"

namespace algenta::host::synthetic {

inline constexpr double kNormWeightStd = 0.02;
inline constexpr double kDefaultInitializerRange = 0.02;

struct SyntheticWeights {
  std::uint64_t seed = 0;
  double init_std = kDefaultInitializerRange;
  checkpoint::Dtype dtype = checkpoint::Dtype::F32;
};

// The seed plus what config.json says: initializer_range (top level, or in
// text_config for a nested config) and torch_dtype. Throws
// std::invalid_argument naming `config_name`, the field and its value for an
// initializer_range that is not a positive finite number or a torch_dtype
// that is not one of bfloat16, float16, float32.
SyntheticWeights synthetic_weights_for(const facts::ModelFacts& model, std::string_view config_text,
                                       const std::string& config_name, std::uint64_t seed);

struct LaidOutTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::uint64_t offset = 0;  // in weights.blob
  std::uint64_t size = 0;    // bytes
};

// Where `prepare` puts each tensor of a checkpoint of these facts in `dtype`:
// sorted by name, each at the next multiple of the resident alignment.
std::vector<LaidOutTensor> resident_layout(const facts::ModelFacts& model, checkpoint::Dtype dtype);

// The size of weights.blob for a layout (the end of its last tensor).
std::uint64_t blob_bytes(const std::vector<LaidOutTensor>& layout);

// Writes the checkpoint to `out_dir` (published atomically, as prepare does),
// with `config_file` (a file named config.json) as its side file. Fills the
// tensors on every core. Errors are checkpoint::CheckpointError.
void write_synthetic_checkpoint(const std::filesystem::path& out_dir,
                                const std::filesystem::path& config_file,
                                const facts::ModelFacts& model, const SyntheticWeights& weights,
                                checkpoint::WriteProgressCallback progress = {});

}  // namespace algenta::host::synthetic
