// The model's weights on the device, uploaded once at open into one
// allocation: matrices in the target's element type with q/k/v and
// gate/up fused row-wise (one GEMM each), norms and biases in fp32.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "checkpoint/dtype.hpp"
#include "checkpoint/resident_reader.hpp"
#include "device_memory.hpp"
#include "kernels/launch.hpp"
#include "model_shape.hpp"

namespace algenta::cuda {

struct DeviceLayer {
  const Element* qkv = nullptr;      // [q_dim + 2 kv_dim, hidden]
  const float* qkv_bias = nullptr;   // [q_dim + 2 kv_dim] or null
  const Element* o = nullptr;        // [hidden, q_dim]
  const float* o_bias = nullptr;     // [hidden] or null
  const Element* gate_up = nullptr;  // [2 intermediate, hidden]
  const Element* down = nullptr;     // [hidden, intermediate]
  const float* input_norm = nullptr;
  const float* post_attention_norm = nullptr;
  const float* q_norm = nullptr;  // [head_dim] or null
  const float* k_norm = nullptr;
};

class DeviceWeights {
 public:
  // Sizes everything from the shape (no device work), so open can refuse a
  // model that does not fit before allocating anything.
  DeviceWeights(const decoder::ModelShape& shape, const decoder::FamilyDescription& family,
                checkpoint::Dtype element_dtype);

  std::uint64_t bytes() const noexcept { return arena_.bytes(); }

  // Checks every tensor's name, shape and dtype, allocates, converts and
  // copies. INVALID_ARGUMENT names a bad tensor; OUT_OF_MEMORY the sizes.
  void upload(const checkpoint::ResidentCheckpoint& checkpoint);

  const Element* embed_tokens() const;
  const Element* lm_head() const;
  const float* final_norm() const;
  DeviceLayer layer(std::size_t index) const;

 private:
  struct Source {
    std::string name;
    std::vector<std::int64_t> shape;
  };
  struct Piece {
    std::vector<Source> sources;  // concatenated in order
    checkpoint::Dtype dtype;
    std::size_t offset = 0;
    std::size_t bytes = 0;
  };
  struct LayerPieces {
    int qkv, qkv_bias = -1, o, o_bias = -1, gate_up, down, input_norm, post_norm, q_norm = -1,
             k_norm = -1;
  };

  int add(std::vector<Source> sources, checkpoint::Dtype dtype);
  template <typename T>
  const T* piece(int index) const {
    return index < 0 ? nullptr : arena_.at<T>(pieces_[index].offset);
  }

  checkpoint::Dtype element_dtype_;
  std::vector<Piece> pieces_;
  int embed_ = -1, lm_head_ = -1, final_norm_ = -1;
  std::vector<LayerPieces> layers_;
  DeviceArena arena_;
};

}  // namespace algenta::cuda
