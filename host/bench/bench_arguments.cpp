#include "bench/bench_arguments.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "synthetic/weights_flags.hpp"
#include "verify/verify_gates.hpp"

namespace algenta::host::bench {
namespace {

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// A whole number, all of `text` (no sign, no spaces).
template <typename Number>
std::optional<Number> whole_number(const std::string& text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::string range_text(std::size_t lo, std::size_t hi) {
  return std::to_string(lo) + ".." + std::to_string(hi);
}

// One whole number in [lo, hi]; otherwise adds the error and returns nullopt.
std::optional<std::size_t> parse_count(const std::string& flag, const std::string& text,
                                       std::size_t lo, std::size_t hi, const std::string& meaning,
                                       std::vector<std::string>& errors) {
  const std::optional<std::size_t> value = whole_number<std::size_t>(trimmed(text));
  if (!value) {
    errors.push_back(flag + " " + quoted(text) + ": not a whole number; expected " +
                     range_text(lo, hi) + " (" + meaning + ")");
  } else if (*value < lo || *value > hi) {
    errors.push_back(flag + " " + text + ": outside " + range_text(lo, hi) + " (" + meaning + ")");
    return std::nullopt;
  }
  return value;
}

// Comma-separated whole numbers in [lo, hi], each once.
std::vector<std::size_t> parse_list(const std::string& flag, const std::string& text,
                                    std::size_t lo, std::size_t hi, const std::string& meaning,
                                    std::vector<std::string>& errors) {
  const std::string expected =
      "expected comma-separated whole numbers in " + range_text(lo, hi) + " (" + meaning + ")";
  if (trimmed(text).empty()) {
    errors.push_back(flag + " " + quoted(text) + ": no values; " + expected);
    return {};
  }
  std::vector<std::size_t> values;
  std::set<std::size_t> seen;
  std::size_t item = 0;
  for (std::size_t start = 0; start <= text.size(); ++item) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string piece = trimmed(text.substr(start, comma - start));
    start = comma + 1;
    const std::string where = flag + " " + quoted(text) + ": item " + std::to_string(item + 1);
    if (piece.empty()) {
      errors.push_back(where + " is empty; " + expected);
      continue;
    }
    const std::optional<std::size_t> value = whole_number<std::size_t>(piece);
    if (!value) {
      errors.push_back(where + " (" + quoted(piece) + ") is not a whole number; " + expected);
    } else if (*value < lo || *value > hi) {
      errors.push_back(flag + " " + piece + ": outside " + range_text(lo, hi) + " (" + meaning +
                       ")");
    } else if (!seen.insert(*value).second) {
      errors.push_back(flag + " " + quoted(text) + ": " + piece + " is given twice");
    } else {
      values.push_back(*value);
    }
  }
  return values;
}

}  // namespace

ParsedArguments parse_bench_arguments(const BenchOptions& options) {
  ParsedArguments parsed;
  std::vector<std::string>& errors = parsed.errors;
  BenchArguments& a = parsed.arguments;

  synthetic::WeightsChoice weights = synthetic::check_weights_flags(
      {options.model_dir, options.synthetic_seed, options.config_file}, "bench");
  errors = std::move(weights.errors);
  a.synthetic_seed = weights.seed;

  a.prompt_lengths =
      parse_list("--shapes", options.shapes, 1, kMaxPromptTokens, "prompt tokens", errors);
  a.generated = parse_list("--gen", options.gen, 2, kMaxGeneratedTokens,
                           "generated tokens per run: the first comes from prefill, decode "
                           "figures need at least one more",
                           errors);
  a.runs =
      parse_count("--runs", options.runs, 1, kMaxRuns, "timed runs per cell", errors).value_or(0);
  a.warmup = parse_count("--warmup", options.warmup, 0, kMaxRuns, "untimed runs per cell", errors)
                 .value_or(0);
  a.concurrency = parse_list("--concurrency", options.concurrency, 1, kMaxConcurrency,
                             "sequences decoded together", errors);
  return parsed;
}

CellNeeds cell_needs(const BenchArguments& arguments) {
  CellNeeds needs;
  const std::size_t longest =
      arguments.generated.empty()
          ? 0
          : *std::max_element(arguments.generated.begin(), arguments.generated.end());
  for (const std::size_t length : arguments.prompt_lengths)
    needs.context = std::max(needs.context, context_needed(length, longest));
  for (const std::size_t c : arguments.concurrency) needs.sequences = std::max(needs.sequences, c);
  return needs;
}

std::vector<std::string> context_errors(const BenchArguments& arguments, std::size_t context,
                                        const std::string& who) {
  std::vector<std::string> errors;
  if (arguments.generated.empty()) return errors;
  const std::size_t longest =
      *std::max_element(arguments.generated.begin(), arguments.generated.end());
  for (const std::size_t length : arguments.prompt_lengths) {
    const std::size_t needed = context_needed(length, longest);
    if (needed <= context) continue;
    std::string line = "--shapes " + std::to_string(length) + " with --gen " +
                       std::to_string(longest) + " needs a context of " + std::to_string(needed) +
                       " tokens, but " + who + " allows " + std::to_string(context) +
                       " tokens per sequence; ";
    line += context >= longest ? "prompt lengths 1.." + std::to_string(context - longest + 1) +
                                     " fit with --gen " + std::to_string(longest)
                               : "no prompt length fits with --gen " + std::to_string(longest);
    errors.push_back(line);
  }
  return errors;
}

}  // namespace algenta::host::bench
