// Keys (after RoPE) and values of every live sequence, per layer, in f32.
// A sequence's storage grows with its tokens (doubling, never past the
// engine's context); slots are zero until written, so nothing uninitialised
// can ever be read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "kv_slots.hpp"

namespace algenta::oracle {

class SequenceKv final : public KvSlots {
 public:
  SequenceKv(std::size_t layers, std::size_t kv_dim);

  // Positions 0 .. length()-1 hold computed keys and values.
  std::size_t length() const noexcept { return length_; }
  void set_length(std::size_t length) noexcept { length_ = length; }

  // Makes room for `positions` positions (at most `max_positions`).
  void reserve(std::size_t positions, std::size_t max_positions);

  float* key_slot(std::size_t layer, std::size_t position) override;
  float* value_slot(std::size_t layer, std::size_t position) override;
  // One run: the positions lie side by side.
  void runs(std::size_t layer, std::size_t positions, std::vector<KvRun>& runs) const override;
  // Position 0 of `layer`; positions are kv_dim floats apart.
  const float* keys(std::size_t layer) const { return keys_[layer].data(); }
  const float* values(std::size_t layer) const { return values_[layer].data(); }

  std::uint64_t bytes() const noexcept;

 private:
  std::size_t slot(std::size_t position) const;

  std::size_t kv_dim_;
  std::size_t length_ = 0;
  std::size_t capacity_ = 0;  // positions
  std::vector<std::vector<float>> keys_;
  std::vector<std::vector<float>> values_;
};

// The live sequences by id.
class KvCache {
 public:
  KvCache(std::size_t layers, std::size_t kv_dim) : layers_(layers), kv_dim_(kv_dim) {}

  SequenceKv* find(std::uint64_t id);
  const SequenceKv* find(std::uint64_t id) const;
  SequenceKv& create(std::uint64_t id);  // the id must not be live
  void erase(std::uint64_t id);
  std::size_t live() const noexcept { return sequences_.size(); }
  std::uint64_t bytes() const noexcept;

 private:
  std::size_t layers_;
  std::size_t kv_dim_;
  std::map<std::uint64_t, SequenceKv> sequences_;  // node-based: pointers stay valid
};

}  // namespace algenta::oracle
