#include "sampling/gumbel_noise.hpp"

#include "sampling/draw_math.hpp"

namespace algenta::sampling {

PhiloxKey noise_key(std::uint64_t seed) {
  return {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
}

PhiloxCounter noise_counter(std::uint64_t position, std::uint32_t token_id) {
  return {token_id >> 2, static_cast<std::uint32_t>(position),
          static_cast<std::uint32_t>(position >> 32), kTokenNoiseStream};
}

double uniform_from_word(std::uint32_t word) { return draw_math::uniform_from_word(word); }

double gumbel_from_word(std::uint32_t word) { return draw_math::gumbel_from_word(word); }

// Both draw through draw_math::noise_words, the one recipe the CUDA sampler
// compiles too; noise_key and noise_counter spell out its layout.
double gumbel_noise(std::uint64_t seed, std::uint64_t position, std::uint32_t token_id) {
  std::uint32_t words[4];
  draw_math::noise_words(seed, position, token_id >> 2, words);
  return gumbel_from_word(words[token_id & 3u]);
}

GumbelNoiseRow::GumbelNoiseRow(std::uint64_t seed, std::uint64_t position)
    : seed_(seed), position_(position) {}

double GumbelNoiseRow::at(std::uint32_t token_id) {
  if (!have_block_ || block_ != token_id >> 2) {
    draw_math::noise_words(seed_, position_, token_id >> 2, words_.data());
    block_ = token_id >> 2;
    have_block_ = true;
  }
  return gumbel_from_word(words_[token_id & 3u]);
}

}  // namespace algenta::sampling
