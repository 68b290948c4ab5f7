// Opens a resident checkpoint (see resident_format.hpp): validates the
// manifest strictly, maps weights.blob read-only and hands out tensor spans.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/dtype.hpp"
#include "checkpoint/mapped_file.hpp"

namespace algenta::checkpoint {

// A resident manifest with 100k+ tensors and rich facts stays far below this.
inline constexpr std::uint64_t kMaxResidentManifestBytes = 256u << 20;

struct ResidentTensorInfo {
  std::string name;
  Dtype dtype = Dtype::F32;
  std::vector<std::int64_t> shape;
  std::uint64_t offset = 0;  // from the start of weights.blob, a multiple of the alignment
  std::uint64_t size = 0;    // bytes
};

struct ResidentTensor {
  const ResidentTensorInfo& info;
  std::span<const std::byte> bytes;
};

class ResidentCheckpoint {
 public:
  // Refuses (CheckpointError naming the file and tensor) an unknown format,
  // misaligned, out-of-range or overlapping tensors, sizes that disagree with
  // shape * dtype, and a blob whose size differs from the manifest. With
  // `verify_blob_checksum` the whole blob is re-hashed and compared too.
  static ResidentCheckpoint open(const std::filesystem::path& dir, bool verify_blob_checksum);

  Dtype dtype() const noexcept { return dtype_; }
  // Sorted by name.
  const std::vector<ResidentTensorInfo>& tensors() const noexcept { return tensors_; }
  const ResidentTensorInfo* find(std::string_view name) const;
  // Throws CheckpointError naming the tensor when it is absent.
  ResidentTensor tensor(std::string_view name) const;

  const nlohmann::json& source_json() const noexcept { return source_; }
  const nlohmann::json& facts_json() const noexcept { return facts_; }
  const std::string& blob_sha256() const noexcept { return blob_sha256_; }
  std::span<const std::byte> blob() const noexcept { return blob_.bytes(); }

 private:
  ResidentCheckpoint() = default;

  std::string dir_name_;
  Dtype dtype_ = Dtype::F32;
  std::vector<ResidentTensorInfo> tensors_;
  nlohmann::json source_;
  nlohmann::json facts_;
  std::string blob_sha256_;
  MappedBytes blob_;
};

}  // namespace algenta::checkpoint
