#include "synthetic/seeded_normal.hpp"

#include <cmath>
#include <numbers>

#include "random/splitmix64.hpp"

namespace algenta::host::synthetic {
namespace {

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace

std::uint64_t chunk_stream_seed(std::uint64_t seed, std::string_view tensor, std::uint64_t chunk) {
  SplitMix64 mix(seed ^ (fnv1a(tensor) * 0x9e3779b97f4a7c15ull) ^ (chunk * 0xd1b54a32d192ed03ull));
  return mix.next();
}

void fill_normal_chunk(std::uint64_t seed, std::string_view tensor, std::uint64_t chunk,
                       double mean, double std, std::span<float> out) {
  SplitMix64 stream(chunk_stream_seed(seed, tensor, chunk));
  for (std::size_t i = 0; i < out.size(); i += 2) {
    // u1 in (0, 1] keeps the logarithm finite; u2 in [0, 1).
    const double u1 = static_cast<double>((stream.next() >> 11) + 1) * 0x1p-53;
    const double u2 = static_cast<double>(stream.next() >> 11) * 0x1p-53;
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    out[i] = static_cast<float>(mean + std * radius * std::cos(angle));
    if (i + 1 < out.size()) out[i + 1] = static_cast<float>(mean + std * radius * std::sin(angle));
  }
}

}  // namespace algenta::host::synthetic
