// The bytes one decode step must read from device memory, from config.json's
// facts alone: what a decode token/s figure is compared with the stream
// bandwidth by.
//
//   bytes(c) = weight_bytes + kv_bytes(c)
//   weight_bytes = weight element bytes x (every weight element but the input
//                  embedding table model.embed_tokens.weight, plus vocab x
//                  hidden for the lm_head, counted even when it is tied to
//                  the embedding: decode reads it as the output projection)
//   kv_bytes(c)  = 2 (K and V) x layers x kv_heads x head_dim x KV element
//                  bytes x c, where a sliding-window layer reads min(c, window)
//   c            = the context the step attends to: the step that feeds
//                  position p reads p + 1 positions
//
// A run of G tokens after an L-token prompt has G - 1 decode steps, feeding
// positions L .. L + G - 2, so c runs over L + 1 .. L + G - 1 (mean L + G/2);
// a cell is charged the mean of bytes(c) over its steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "facts/model_facts.hpp"

namespace algenta::host::bench {

inline constexpr const char* kDecodeBytesFormula =
    "bytes(c) = weight_bytes + 2 * layers * kv_heads * head_dim * kv_element_bytes * c "
    "(a sliding-window layer reads min(c, window)); weight_bytes = weight_element_bytes * "
    "(every weight element except model.embed_tokens.weight, plus vocab * hidden for the "
    "lm_head even when tied); c = positions the step attends to (the step feeding position "
    "p reads p + 1); a cell of prompt L and G tokens is charged the mean over its G - 1 "
    "decode steps (c = L + 1 .. L + G - 1, mean L + G/2)";

struct DecodeBytes {
  std::uint64_t weight_elements = 0;  // the weights counted, as defined above
  std::uint64_t weight_bytes = 0;
  std::uint64_t kv_bytes_per_layer_position = 0;           // 2 x kv_heads x head_dim x KV bytes
  std::vector<std::optional<std::int64_t>> layer_windows;  // per layer; nullopt: full
};

// Throws std::invalid_argument for an unknown family or a zero element size.
DecodeBytes decode_bytes_of(const facts::ModelFacts& facts, unsigned weight_element_bytes,
                            unsigned kv_element_bytes);

// bytes(c) for one step.
double step_bytes(const DecodeBytes& bytes, std::uint64_t context);

// The mean context and mean bytes(c) over the decode steps of a run of
// `generated` (>= 2) tokens after `prompt` tokens.
double mean_decode_context(std::size_t prompt, std::size_t generated);
double mean_decode_bytes(const DecodeBytes& bytes, std::size_t prompt, std::size_t generated);

}  // namespace algenta::host::bench
