#include "kv_cache.hpp"

#include <algorithm>
#include <stdexcept>

namespace algenta::oracle {

SequenceKv::SequenceKv(std::size_t layers, std::size_t kv_dim)
    : kv_dim_(kv_dim), keys_(layers), values_(layers) {}

void SequenceKv::reserve(std::size_t positions, std::size_t max_positions) {
  if (positions <= capacity_) return;
  const std::size_t grown = std::min(std::max(positions, 2 * capacity_), max_positions);
  const std::size_t capacity = std::max(grown, positions);
  for (std::size_t layer = 0; layer < keys_.size(); ++layer) {
    keys_[layer].resize(capacity * kv_dim_, 0.0f);
    values_[layer].resize(capacity * kv_dim_, 0.0f);
  }
  capacity_ = capacity;
}

std::size_t SequenceKv::slot(std::size_t position) const {
  if (position >= capacity_) throw std::logic_error("kv slot beyond the reserved positions");
#if ALGENTA_ORACLE_PLANTED_BUG == 3
  // planted: a continuing chunk's first token lands one slot early
  if (position == length_ && position > 0) return position - 1;
#endif
  return position;
}

float* SequenceKv::key_slot(std::size_t layer, std::size_t position) {
  return keys_[layer].data() + slot(position) * kv_dim_;
}

float* SequenceKv::value_slot(std::size_t layer, std::size_t position) {
  return values_[layer].data() + slot(position) * kv_dim_;
}

void SequenceKv::runs(std::size_t layer, std::size_t positions, std::vector<KvRun>& runs) const {
  runs.push_back({keys(layer), values(layer), positions});
}

std::uint64_t SequenceKv::bytes() const noexcept {
  return 2 * keys_.size() * static_cast<std::uint64_t>(capacity_) * kv_dim_ * sizeof(float);
}

SequenceKv* KvCache::find(std::uint64_t id) {
  const auto it = sequences_.find(id);
  return it == sequences_.end() ? nullptr : &it->second;
}

const SequenceKv* KvCache::find(std::uint64_t id) const {
  const auto it = sequences_.find(id);
  return it == sequences_.end() ? nullptr : &it->second;
}

SequenceKv& KvCache::create(std::uint64_t id) {
  const auto [it, inserted] = sequences_.try_emplace(id, layers_, kv_dim_);
  if (!inserted) throw std::logic_error("kv cache: sequence created twice");
  return it->second;
}

void KvCache::erase(std::uint64_t id) { sequences_.erase(id); }

std::uint64_t KvCache::bytes() const noexcept {
  std::uint64_t total = 0;
  for (const auto& [id, sequence] : sequences_) total += sequence.bytes();
  return total;
}

}  // namespace algenta::oracle
