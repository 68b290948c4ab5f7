// bench's flags as numbers, each bad one said in one line naming the flag,
// the value and the allowed range. Checks that need the model (prompts that
// do not fit its context) come separately, once the context is known.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace algenta::host::bench {

inline constexpr std::size_t kMaxPromptTokens = std::size_t{1} << 24;
inline constexpr std::size_t kMaxGeneratedTokens = std::size_t{1} << 20;
inline constexpr std::size_t kMaxRuns = 10000;
// Sequences decoded together in one cell; an engine refuses more than it can
// hold, naming its own limit.
inline constexpr std::size_t kMaxConcurrency = 1024;

struct BenchArguments {
  std::vector<std::size_t> prompt_lengths;  // --shapes
  std::vector<std::size_t> generated;       // --gen
  std::vector<std::size_t> concurrency;     // --concurrency
  std::size_t runs = 0;
  std::size_t warmup = 0;
  std::optional<std::uint64_t> synthetic_seed;
};

struct ParsedArguments {
  BenchArguments arguments;
  std::vector<std::string> errors;  // empty when every flag is usable
};

ParsedArguments parse_bench_arguments(const BenchOptions& options);

// One line per prompt length that, with the longest --gen, needs more
// context than `context` tokens; `who` names what sets it ("the model
// (max_position_embeddings 4096)", "cuda_sm90a (serving 8192 tokens)").
std::vector<std::string> context_errors(const BenchArguments& arguments, std::size_t context,
                                        const std::string& who);

// What the cells need of an engine: a context of the longest prompt with
// the longest --gen, and the highest --concurrency of sequences at once.
struct CellNeeds {
  std::size_t context = 0;
  std::size_t sequences = 0;
};
CellNeeds cell_needs(const BenchArguments& arguments);

}  // namespace algenta::host::bench
