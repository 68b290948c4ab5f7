#include "bench/decode_bytes.hpp"

#include <algorithm>
#include <stdexcept>

#include "facts/expected_tensors.hpp"

namespace algenta::host::bench {

DecodeBytes decode_bytes_of(const facts::ModelFacts& facts, unsigned weight_element_bytes,
                            unsigned kv_element_bytes) {
  if (weight_element_bytes == 0 || kv_element_bytes == 0) {
    throw std::invalid_argument("decode_bytes_of: element sizes must be positive");
  }
  const std::vector<facts::ExpectedTensor> tensors = facts::expected_tensors(facts);
  if (tensors.empty()) throw std::invalid_argument("decode_bytes_of: no tensors for this family");
  DecodeBytes bytes;
  for (const facts::ExpectedTensor& tensor : tensors) {
    if (tensor.name == "model.embed_tokens.weight") continue;
    std::uint64_t elements = 1;
    for (const std::int64_t dim : tensor.shape) elements *= static_cast<std::uint64_t>(dim);
    bytes.weight_elements += elements;
  }
  if (facts.tie_word_embeddings) {
    bytes.weight_elements += static_cast<std::uint64_t>(facts.vocab_size) *
                             static_cast<std::uint64_t>(facts.hidden_size);
  }
  bytes.weight_bytes = bytes.weight_elements * weight_element_bytes;
  bytes.kv_bytes_per_layer_position = 2 * static_cast<std::uint64_t>(facts.num_key_value_heads) *
                                      static_cast<std::uint64_t>(facts.head_dim) * kv_element_bytes;
  for (std::int64_t layer = 0; layer < facts.num_hidden_layers; ++layer) {
    const bool sliding = static_cast<std::size_t>(layer) < facts.layer_attention.size() &&
                         facts.layer_attention[layer] == facts::LayerAttention::sliding &&
                         facts.sliding_window.has_value();
    bytes.layer_windows.push_back(sliding ? facts.sliding_window : std::nullopt);
  }
  return bytes;
}

double step_bytes(const DecodeBytes& bytes, std::uint64_t context) {
  std::uint64_t positions = 0;
  for (const std::optional<std::int64_t>& window : bytes.layer_windows) {
    positions +=
        window ? std::min<std::uint64_t>(context, static_cast<std::uint64_t>(*window)) : context;
  }
  return static_cast<double>(bytes.weight_bytes) +
         static_cast<double>(bytes.kv_bytes_per_layer_position) * static_cast<double>(positions);
}

double mean_decode_context(std::size_t prompt, std::size_t generated) {
  if (generated < 2) throw std::invalid_argument("mean_decode_context: needs a decode step");
  return static_cast<double>(prompt) + static_cast<double>(generated) / 2.0;
}

double mean_decode_bytes(const DecodeBytes& bytes, std::size_t prompt, std::size_t generated) {
  if (generated < 2) throw std::invalid_argument("mean_decode_bytes: needs a decode step");
  double total = 0.0;
  for (std::size_t step = 1; step < generated; ++step) total += step_bytes(bytes, prompt + step);
  return total / static_cast<double>(generated - 1);
}

}  // namespace algenta::host::bench
