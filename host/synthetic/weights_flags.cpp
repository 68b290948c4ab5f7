#include "synthetic/weights_flags.hpp"

#include <charconv>

namespace algenta::host::synthetic {
namespace {

// A seed: all of `text` a whole number (spaces around it allowed, no sign).
std::optional<std::uint64_t> seed_of(const std::string& text) {
  const std::size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return std::nullopt;
  const std::size_t last = text.find_last_not_of(' ');
  std::uint64_t value = 0;
  const char* end = text.data() + last + 1;
  const auto [ptr, error] = std::from_chars(text.data() + first, end, value);
  if (error != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

WeightsChoice check_weights_flags(const WeightsFlags& flags, const std::string& command) {
  WeightsChoice choice;
  std::vector<std::string>& errors = choice.errors;
  const bool synthetic = !flags.seed.empty();
  if (!flags.model_dir.empty() && synthetic) {
    errors.push_back("--model " + flags.model_dir + " and --synthetic-weights " + flags.seed +
                     " exclude each other: " + command +
                     " runs either a prepared checkpoint or weights made from a seed");
  } else if (flags.model_dir.empty() && !synthetic) {
    errors.push_back(
        "no weights: give --model DIR (a prepared checkpoint) or --synthetic-weights SEED "
        "--config FILE");
  }
  if (synthetic) {
    choice.seed = seed_of(flags.seed);
    if (!choice.seed) {
      errors.push_back("--synthetic-weights \"" + flags.seed +
                       "\": not a whole number; expected a seed in 0..18446744073709551615");
    }
    if (flags.config_file.empty()) {
      errors.push_back(
          "--synthetic-weights needs --config FILE: the config.json whose tensors to make");
    }
  } else if (!flags.config_file.empty()) {
    errors.push_back("--config " + flags.config_file +
                     " is only for --synthetic-weights (with --model the checkpoint's own "
                     "config.json is used)");
  }
  return choice;
}

}  // namespace algenta::host::synthetic
