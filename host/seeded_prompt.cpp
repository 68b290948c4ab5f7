#include "seeded_prompt.hpp"

#include <stdexcept>

namespace algenta::host {
namespace {

std::uint64_t splitmix64_next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<std::int32_t> seeded_prompt(std::uint64_t seed, std::size_t length,
                                        std::uint32_t vocab) {
  if (vocab == 0) throw std::invalid_argument("seeded_prompt: the vocabulary is empty");
  std::uint64_t state = seed;
  std::vector<std::int32_t> ids(length);
  for (std::int32_t& id : ids) id = static_cast<std::int32_t>(splitmix64_next(state) % vocab);
  return ids;
}

}  // namespace algenta::host
