// Where a command's weights come from, as bench and serve take it: --model
// DIR (a prepared checkpoint) or --synthetic-weights SEED --config FILE,
// exactly one of the two. Checked before anything is read or loaded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace algenta::host::synthetic {

struct WeightsFlags {
  std::string model_dir;       // --model
  std::string seed;            // --synthetic-weights, as typed
  std::string config_file;     // --config
};

struct WeightsChoice {
  std::optional<std::uint64_t> seed;  // set for a usable --synthetic-weights
  std::vector<std::string> errors;    // one line per problem; empty when usable
};

// `command` names what runs the weights in the message for both sources
// ("bench", "serve").
WeightsChoice check_weights_flags(const WeightsFlags& flags, const std::string& command);

}  // namespace algenta::host::synthetic
