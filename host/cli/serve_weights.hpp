// What serve opens: --model DIR as it is, or the checkpoint that
// --synthetic-weights SEED --config FILE describe, made in scratch space and
// removed when this object goes away (serve's normal end, SIGTERM's drain
// included). Flags and config are checked before the plugin loads; the
// checkpoint is written after, so a refused plugin costs no writing.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/synthetic_weights.hpp"

namespace algenta::host {

// Weights serve cannot use: the exit code (kExitUsage, or kExitRefused for a
// model prepare would not convert) and one line per problem.
struct WeightsRefused {
  int exit_code;
  std::vector<std::string> lines;
};

class ServeWeights {
 public:
  // Throws WeightsRefused: both sources or neither, a bad seed, no --config,
  // --chat-template with synthetic weights (they have no tokenizer), an
  // unreadable or malformed config (the errors bench and conform give).
  explicit ServeWeights(const ServeOptions& options);
  ~ServeWeights();

  // Writes the synthetic checkpoint (nothing to do for --model). Throws
  // synthetic::ScratchError, checkpoint::CheckpointError.
  void make();

  bool synthetic() const { return seed_.has_value(); }
  // The checkpoint directory the engine opens (after make()).
  const std::string& model_dir() const { return model_dir_; }
  // The model id without --served-model-name: the model folder's name, or
  // the config's model_type with "-synthetic".
  const std::string& default_model_name() const { return default_name_; }

 private:
  struct Plan;
  std::optional<std::uint64_t> seed_;
  std::unique_ptr<Plan> plan_;  // synthetic: the config and its facts
  std::unique_ptr<SyntheticCheckpoint> made_;
  std::string model_dir_;
  std::string default_name_;
};

}  // namespace algenta::host
