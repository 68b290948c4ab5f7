#include "verify/seeded_prompt.hpp"

#include <stdexcept>

#include "random/splitmix64.hpp"

namespace algenta::host {

std::vector<std::int32_t> seeded_prompt(std::uint64_t seed, std::size_t length,
                                        std::uint32_t vocab) {
  if (vocab == 0) throw std::invalid_argument("seeded_prompt: the vocabulary is empty");
  SplitMix64 random(seed);
  std::vector<std::int32_t> ids(length);
  for (std::int32_t& id : ids) id = static_cast<std::int32_t>(random.next() % vocab);
  return ids;
}

}  // namespace algenta::host
