// Normally distributed values from a seed, for synthetic weights. A tensor
// is filled in chunks of kNormalChunk values; each chunk has its own
// SplitMix64 stream keyed by (seed, tensor name, chunk index), so chunks can
// be filled in parallel and a tensor's values depend on nothing else (the
// embedding of a tied and an untied config agree). Values are Box-Muller
// pairs from 53-bit uniforms, computed in double.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace algenta::host::synthetic {

inline constexpr std::size_t kNormalChunk = std::size_t{1} << 20;

// The stream seed of one chunk.
std::uint64_t chunk_stream_seed(std::uint64_t seed, std::string_view tensor, std::uint64_t chunk);

// out[i] = mean + std * N(0, 1), the values of chunk `chunk` of `tensor`
// (out.size() <= kNormalChunk; a shorter last chunk takes the first values of
// a full one).
void fill_normal_chunk(std::uint64_t seed, std::string_view tensor, std::uint64_t chunk,
                       double mean, double std, std::span<float> out);

}  // namespace algenta::host::synthetic
