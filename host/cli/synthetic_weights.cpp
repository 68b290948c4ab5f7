#include "cli/synthetic_weights.hpp"

#include <fstream>
#include <iostream>
#include <stdexcept>

#include "cli/progress_bar.hpp"
#include "facts/json_document.hpp"
#include "files/bounded_read.hpp"

namespace algenta::host {
namespace fs = std::filesystem;

std::string read_config_flag(const std::string& config_file) {
  try {
    return files::read_bounded(config_file, {facts::kMaxConfigBytes, "a config.json"});
  } catch (const files::FileReadError& e) {
    throw std::invalid_argument("--config " + config_file + ": " + e.reason);
  }
}

SyntheticCheckpoint::SyntheticCheckpoint(const std::string& who, const std::string& config_text,
                                         const facts::ModelFacts& model,
                                         const synthetic::SyntheticWeights& weights)
    : weight_bytes_(synthetic::blob_bytes(synthetic::resident_layout(model, weights.dtype))),
      scratch_(weight_bytes_ + config_text.size()),
      dir_(scratch_.path() / "checkpoint") {
  // The checkpoint's side file must be named config.json.
  const fs::path config_file = scratch_.path() / "config.json";
  std::ofstream(config_file, std::ios::binary) << config_text;
  std::cerr << who << ": writing synthetic weights (seed " << weights.seed << ", "
            << weight_bytes_ << " bytes) to " << dir_.string() << (scratch_.in_memory() ? " (in memory)" : "")
            << "; removed at exit\n";
  ProgressBar bar("synthetic weights");
  synthetic::write_synthetic_checkpoint(
      dir_, config_file, model, weights,
      [&](const checkpoint::WriteProgress& p) { bar.update(p.bytes_done, p.bytes_total); });
}

}  // namespace algenta::host
