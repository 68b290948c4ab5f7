#include "checkpoint/sharded_checkpoint.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <system_error>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/strict_json.hpp"

namespace algenta::checkpoint {
namespace {

using nlohmann::json;

// Top object -> metadata -> a value that may itself be a small object.
constexpr std::size_t kMaxIndexDepth = 4;

bool path_exists(const std::filesystem::path& path) {
  std::error_code ignored;
  return std::filesystem::exists(path, ignored);
}

// A shard must be a file directly inside the checkpoint directory.
bool is_plain_file_name(std::string_view name) {
  if (name.empty() || name == "." || name.find("..") != std::string_view::npos) return false;
  return std::none_of(name.begin(), name.end(), [](char c) {
    return c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  });
}

// weight_map as tensor -> shard file name, checked for form only.
std::map<std::string, std::string> read_weight_map(const std::string& index_name, const json& index) {
  for (const auto& [key, value] : index.items()) {
    if (key != "metadata" && key != "weight_map") {
      throw CheckpointError(index_name, "", "has unknown key " + shown_text(key) + "; allowed: metadata, weight_map");
    }
  }
  if (index.contains("metadata") && !index.at("metadata").is_object()) {
    throw CheckpointError(index_name, "", std::string("metadata must be an object, got ") +
                                              json_type_name(index.at("metadata")));
  }
  if (!index.contains("weight_map") || !index.at("weight_map").is_object()) {
    throw CheckpointError(index_name, "", "weight_map must be an object of tensor name -> shard file name");
  }
  std::map<std::string, std::string> weight_map;
  for (const auto& [tensor, shard] : index.at("weight_map").items()) {
    if (!shard.is_string()) {
      throw CheckpointError(index_name, tensor, std::string("weight_map value must be a shard file name, got ") +
                                                    json_type_name(shard));
    }
    const auto& shard_name = shard.get_ref<const std::string&>();
    if (!is_plain_file_name(shard_name)) {
      throw CheckpointError(index_name, tensor, "weight_map names shard " + shown_text(shard_name) +
                                                    "; allowed: a plain file name in the checkpoint directory "
                                                    "(no '/', '\\', '..' or control characters)");
    }
    weight_map.emplace(tensor, shard_name);
  }
  if (weight_map.empty()) throw CheckpointError(index_name, "", "weight_map lists no tensors");
  return weight_map;
}

std::vector<SafetensorsFile> open_indexed_shards(const std::filesystem::path& dir,
                                                 const std::filesystem::path& index_path,
                                                 SafetensorsAccess access) {
  const std::string index_name = index_path.string();
  const json index = parse_strict_json_object(read_whole_file(index_path, {kMaxShardIndexBytes, "a safetensors index"}), index_name, kMaxIndexDepth, false);
  const std::map<std::string, std::string> weight_map = read_weight_map(index_name, index);

  std::map<std::string, std::size_t> shard_of_name;  // each shard opened once, in name order
  for (const auto& [tensor, shard_name] : weight_map) shard_of_name.emplace(shard_name, 0);
  std::vector<SafetensorsFile> shards;
  shards.reserve(shard_of_name.size());
  for (auto& [shard_name, position] : shard_of_name) {
    position = shards.size();
    shards.push_back(SafetensorsFile::open(dir / shard_name, access));
  }

  // Every tensor a shard holds is listed for that very shard ...
  for (const auto& [shard_name, position] : shard_of_name) {
    for (const TensorInfo& info : shards[position].tensors()) {
      const auto listed = weight_map.find(info.name);
      if (listed == weight_map.end()) {
        throw CheckpointError(shards[position].name(), info.name,
                              "is in this shard but not listed in the weight_map of " + index_name);
      }
      if (listed->second != shard_name) {
        throw CheckpointError(shards[position].name(), info.name,
                              "is in this shard but " + index_name + " lists it in shard " +
                                  shown_text(listed->second));
      }
    }
  }
  // ... and every listed tensor is in the shard the index names.
  for (const auto& [tensor, shard_name] : weight_map) {
    const SafetensorsFile& shard = shards[shard_of_name.at(shard_name)];
    if (shard.find(tensor) == nullptr) {
      throw CheckpointError(shard.name(), tensor,
                            "is listed for this shard in " + index_name + " but the shard does not contain it");
    }
  }
  return shards;
}

}  // namespace

ShardedCheckpoint ShardedCheckpoint::open(const std::filesystem::path& dir, SafetensorsAccess access) {
  const std::filesystem::path index_path = dir / kShardIndexFileName;
  if (path_exists(index_path)) return ShardedCheckpoint(dir.string(), open_indexed_shards(dir, index_path, access));
  const std::filesystem::path single_path = dir / kSingleFileName;
  if (path_exists(single_path)) {
    std::vector<SafetensorsFile> shards;
    shards.push_back(SafetensorsFile::open(single_path, access));
    return ShardedCheckpoint(dir.string(), std::move(shards));
  }
  throw CheckpointError(dir.string(), "", "holds neither " + std::string(kShardIndexFileName) + " nor " +
                                              std::string(kSingleFileName));
}

ShardedCheckpoint::ShardedCheckpoint(std::string dir_name, std::vector<SafetensorsFile> shards)
    : dir_name_(std::move(dir_name)), shards_(std::move(shards)) {
  for (std::size_t shard = 0; shard < shards_.size(); ++shard) {
    for (std::size_t tensor = 0; tensor < shards_[shard].tensors().size(); ++tensor) {
      entries_.push_back({shard, tensor});
    }
  }
  std::sort(entries_.begin(), entries_.end(),
            [this](const Entry& a, const Entry& b) { return info_of(a).name < info_of(b).name; });
  // Header parsing and the index checks already refuse a repeated name;
  // lookups rely on it, so it is checked here too.
  const auto repeated = std::adjacent_find(entries_.begin(), entries_.end(), [this](const Entry& a, const Entry& b) {
    return info_of(a).name == info_of(b).name;
  });
  if (repeated != entries_.end()) {
    throw CheckpointError(dir_name_, info_of(*repeated).name, "appears in more than one shard");
  }
}

const TensorInfo& ShardedCheckpoint::info_of(const Entry& entry) const {
  return shards_[entry.shard].tensors()[entry.tensor];
}

const ShardedCheckpoint::Entry* ShardedCheckpoint::find(std::string_view tensor_name) const {
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), tensor_name,
                                   [this](const Entry& entry, std::string_view wanted) {
                                     return std::string_view(info_of(entry).name) < wanted;
                                   });
  if (it == entries_.end() || info_of(*it).name != tensor_name) return nullptr;
  return &*it;
}

std::vector<std::string_view> ShardedCheckpoint::tensor_names() const {
  std::vector<std::string_view> names;
  names.reserve(entries_.size());
  for (const Entry& entry : entries_) names.emplace_back(info_of(entry).name);
  return names;
}

std::uint64_t ShardedCheckpoint::total_tensor_bytes() const {
  std::uint64_t total = 0;
  for (const Entry& entry : entries_) total += info_of(entry).byte_size();
  return total;
}

bool ShardedCheckpoint::contains(std::string_view tensor_name) const { return find(tensor_name) != nullptr; }

ShardedCheckpoint::Located ShardedCheckpoint::locate(std::string_view tensor_name) const {
  const Entry* entry = find(tensor_name);
  if (entry == nullptr) throw CheckpointError(dir_name_, std::string(tensor_name), "is not in this checkpoint");
  return {shards_[entry->shard], info_of(*entry)};
}

std::span<const std::byte> ShardedCheckpoint::data(std::string_view tensor_name) const {
  const Located located = locate(tensor_name);
  return located.shard.data(located.info);
}

}  // namespace algenta::checkpoint
