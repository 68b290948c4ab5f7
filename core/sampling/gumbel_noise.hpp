// The Gumbel noise a sampled token gets, as a pure function of
// (seed, position, token id). The exact recipe (the GPU sampler must match it
// bit for bit; SAMPLING.md has the whole pipeline):
//   key     = {seed & 0xffffffff, seed >> 32}
//   counter = {token_id >> 2, position & 0xffffffff, position >> 32, 0}
//             (word 3 names the stream: 0 = token sampling noise)
//   word    = philox4x32_10(counter, key)[token_id & 3]
//             (one Philox call serves four consecutive token ids)
//   u       = (double(word) + 0.5) * 2^-32      exact in double; u in (0, 1)
//   g       = -portable_log(-portable_log(u))
// position is the index of the token being sampled in its sequence (prompt
// tokens count), so each step of a request draws fresh noise.
#pragma once

#include <cstdint>

#include "sampling/philox.hpp"

namespace algenta::sampling {

using draw_math::kTokenNoiseStream;

PhiloxKey noise_key(std::uint64_t seed);
PhiloxCounter noise_counter(std::uint64_t position, std::uint32_t token_id);

// (word + 1/2) / 2^32: never 0 or 1, exact in double.
double uniform_from_word(std::uint32_t word);

double gumbel_from_word(std::uint32_t word);

double gumbel_noise(std::uint64_t seed, std::uint64_t position, std::uint32_t token_id);

// Every value gumbel_noise returns is below this (the largest, for word
// 0xffffffff, is -log(-log(1 - 2^-33)) ~ 22.87). Since rounding is monotone,
// a token with z + kGumbelNoiseBound < the best score so far cannot win, and
// a sampler may skip its noise without changing the result.
inline constexpr double kGumbelNoiseBound = 23.0;

// The noise of one (seed, position) row, the same values as gumbel_noise;
// four consecutive token ids share one Philox call.
class GumbelNoiseRow {
 public:
  GumbelNoiseRow(std::uint64_t seed, std::uint64_t position);
  double at(std::uint32_t token_id);

 private:
  std::uint64_t seed_;
  std::uint64_t position_;
  bool have_block_ = false;
  std::uint32_t block_ = 0;
  PhiloxCounter words_{};
};

}  // namespace algenta::sampling
