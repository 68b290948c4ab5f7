// Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3",
// SC11), the generator Random123 and cuRAND ship. Counter-based: the output is
// a pure function of (counter, key), so any token's noise can be computed on
// its own, on the CPU or in a CUDA thread, with the same 32-bit integer steps
// (both compile draw_math.hpp's rounds).
#pragma once

#include <array>
#include <cstdint>

#include "sampling/draw_math.hpp"

namespace algenta::sampling {

using PhiloxCounter = std::array<std::uint32_t, 4>;
using PhiloxKey = std::array<std::uint32_t, 2>;

// Ten rounds; the key is bumped by the Weyl constants between rounds
// (wrapping 32-bit adds), exactly as Random123's philox4x32_R(10, ...).
inline PhiloxCounter philox4x32_10(PhiloxCounter counter, PhiloxKey key) {
  draw_math::philox4x32_10(counter.data(), key[0], key[1]);
  return counter;
}

}  // namespace algenta::sampling
