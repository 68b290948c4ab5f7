// Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3",
// SC11), the generator Random123 and cuRAND ship. Counter-based: the output is
// a pure function of (counter, key), so any token's noise can be computed on
// its own, on the CPU or in a CUDA thread, with the same 32-bit integer steps.
#pragma once

#include <array>
#include <cstdint>

namespace algenta::sampling {

using PhiloxCounter = std::array<std::uint32_t, 4>;
using PhiloxKey = std::array<std::uint32_t, 2>;

namespace philox_detail {
inline constexpr std::uint32_t kMultiplier0 = 0xD2511F53u;
inline constexpr std::uint32_t kMultiplier1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
inline constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

inline PhiloxCounter round(const PhiloxCounter& x, const PhiloxKey& k) {
  const std::uint64_t product0 = std::uint64_t{kMultiplier0} * x[0];
  const std::uint64_t product1 = std::uint64_t{kMultiplier1} * x[2];
  const auto hi0 = static_cast<std::uint32_t>(product0 >> 32);
  const auto lo0 = static_cast<std::uint32_t>(product0);
  const auto hi1 = static_cast<std::uint32_t>(product1 >> 32);
  const auto lo1 = static_cast<std::uint32_t>(product1);
  return {hi1 ^ x[1] ^ k[0], lo1, hi0 ^ x[3] ^ k[1], lo0};
}
}  // namespace philox_detail

// Ten rounds; the key is bumped by the Weyl constants between rounds
// (wrapping 32-bit adds), exactly as Random123's philox4x32_R(10, ...).
inline PhiloxCounter philox4x32_10(PhiloxCounter counter, PhiloxKey key) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      key[0] += philox_detail::kWeyl0;
      key[1] += philox_detail::kWeyl1;
    }
    counter = philox_detail::round(counter, key);
  }
  return counter;
}

}  // namespace algenta::sampling
