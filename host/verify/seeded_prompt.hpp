// Deterministic prompts for the verification gates, the same on every host
// and compiler: SplitMix64 (Steele, Lea, Flood 2014) seeded with a number the
// gate derives from what the prompt is for, each id = next() mod vocab. The
// modulo bias (at most vocab / 2^64) does not matter for a test prompt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace algenta::host {

// Seeds, so that every gate's prompts are distinct and reproducible:
//   oracle gate, prompt of L tokens:   kOracleSeedBase + L
//   repeat gate:                       kRepeatSeed
//   concurrent gate, sequence i:       kConcurrentSeedBase + i
//   bench, prompt of L tokens, run r:  kBenchSeedBase + L * 65536 + r
//   sampling gate, case i:             kSamplingSeedBase + i (also the draw's seed)
inline constexpr std::uint64_t kOracleSeedBase = 0;
inline constexpr std::uint64_t kRepeatSeed = 1'000'000;
inline constexpr std::uint64_t kConcurrentSeedBase = 2'000'000;
inline constexpr std::uint64_t kBenchSeedBase = 3'000'000;
inline constexpr std::uint64_t kSamplingSeedBase = 4'000'000;

// `length` token ids in [0, vocab). vocab must be at least 1.
std::vector<std::int32_t> seeded_prompt(std::uint64_t seed, std::size_t length,
                                        std::uint32_t vocab);

}  // namespace algenta::host
