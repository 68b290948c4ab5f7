// --synthetic-weights SEED --config FILE as bench and serve run it: the
// config read as both read it, and the checkpoint `prepare` would write for
// it, made now in a scratch directory that goes away with this object (and
// on SIGINT, SIGTERM or SIGHUP; see synthetic/scratch_directory.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "facts/model_facts.hpp"
#include "synthetic/scratch_directory.hpp"
#include "synthetic/synthetic_checkpoint.hpp"

namespace algenta::host {

// FILE's text, size-checked. Throws std::invalid_argument "--config FILE: why".
std::string read_config_flag(const std::string& config_file);

class SyntheticCheckpoint {
 public:
  // Writes the checkpoint, saying so on stderr as `who` ("bench", "algenta-host
  // serve") with a progress bar. Throws synthetic::ScratchError when no
  // scratch space has room, checkpoint::CheckpointError when writing fails.
  SyntheticCheckpoint(const std::string& who, const std::string& config_text,
                      const facts::ModelFacts& model, const synthetic::SyntheticWeights& weights);

  // The prepared checkpoint directory, to open as --model DIR would be.
  const std::filesystem::path& dir() const { return dir_; }
  bool in_memory() const { return scratch_.in_memory(); }

 private:
  std::uint64_t weight_bytes_;  // before scratch_: its size is asked for
  synthetic::ScratchDirectory scratch_;
  std::filesystem::path dir_;
};

}  // namespace algenta::host
