// A Hugging Face checkpoint directory: either model.safetensors.index.json
// with its weight_map (tensor -> shard file), or a single model.safetensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/safetensors.hpp"

namespace algenta::checkpoint {

inline constexpr std::string_view kShardIndexFileName = "model.safetensors.index.json";
inline constexpr std::string_view kSingleFileName = "model.safetensors";
// Indexes of the largest checkpoints (~100k tensors) are a few MiB.
inline constexpr std::uint64_t kMaxShardIndexBytes = 64u << 20;

class ShardedCheckpoint {
 public:
  // With an index, every shard it names is opened once, and the index and
  // the shards must agree exactly: each listed tensor is in its shard, each
  // tensor of a shard is listed for that shard. Shard names are plain file
  // names in `dir`.
  static ShardedCheckpoint open(const std::filesystem::path& dir,
                                SafetensorsAccess access = SafetensorsAccess::map_data);

  struct Located {
    const SafetensorsFile& shard;
    const TensorInfo& info;
  };

  // One file per shard, in the order of their names.
  const std::vector<SafetensorsFile>& shards() const noexcept { return shards_; }
  // Every tensor name, sorted.
  std::vector<std::string_view> tensor_names() const;
  std::size_t tensor_count() const noexcept { return entries_.size(); }
  // Sum of all tensors' byte sizes, e.g. the total for a progress bar.
  std::uint64_t total_tensor_bytes() const;

  // Throws CheckpointError naming the directory and the tensor when absent.
  Located locate(std::string_view tensor_name) const;
  bool contains(std::string_view tensor_name) const;
  // Needs SafetensorsAccess::map_data.
  std::span<const std::byte> data(std::string_view tensor_name) const;

 private:
  struct Entry {
    std::size_t shard;   // index into shards_
    std::size_t tensor;  // index into that shard's tensors()
  };

  ShardedCheckpoint(std::string dir_name, std::vector<SafetensorsFile> shards);
  const TensorInfo& info_of(const Entry& entry) const;
  const Entry* find(std::string_view tensor_name) const;

  std::string dir_name_;
  std::vector<SafetensorsFile> shards_;
  std::vector<Entry> entries_;  // sorted by name
};

}  // namespace algenta::checkpoint
