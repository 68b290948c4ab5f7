// A strict safetensors reader.
//
// File layout: an 8-byte little-endian header length N, N bytes of UTF-8
// JSON, then the data region. The JSON object maps each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
// data region) and may hold "__metadata__": {string: string}. The tensors
// must tile the data region exactly: in offset order, without holes or
// overlaps, ending at its last byte. Anything else is refused with a
// CheckpointError naming the file, the tensor and the fact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/dtype.hpp"
#include "checkpoint/mapped_file.hpp"

namespace algenta::checkpoint {

// Real headers are a few MiB even for the largest checkpoints; the cap keeps
// a corrupt length from making us allocate or parse gigabytes.
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100u << 20;

struct TensorInfo {
  std::string name;
  Dtype dtype = Dtype::F32;
  std::vector<std::int64_t> shape;
  std::uint64_t data_begin = 0;  // relative to the start of the data region
  std::uint64_t data_end = 0;

  std::uint64_t byte_size() const noexcept { return data_end - data_begin; }
};

class SafetensorsHeader {
 public:
  SafetensorsHeader(std::vector<TensorInfo> tensors_in_data_order,
                    std::map<std::string, std::string> metadata);

  // In data order: ascending data_begin.
  const std::vector<TensorInfo>& tensors() const noexcept { return tensors_; }
  const std::map<std::string, std::string>& metadata() const noexcept { return metadata_; }
  const TensorInfo* find(std::string_view name) const;

 private:
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
  std::vector<std::size_t> order_by_name_;  // indexes into tensors_, sorted by name
};

// Pure: validates `header_json` against a data region of `data_region_size`
// bytes. `file_name` only labels the messages.
SafetensorsHeader parse_safetensors_header(std::string_view header_json, std::uint64_t data_region_size,
                                           std::string_view file_name);

enum class SafetensorsAccess {
  map_data,     // map the file; data() gives tensor bytes
  header_only,  // read the length and header, check the size; never touch the data
};

class SafetensorsFile {
 public:
  static SafetensorsFile open(const std::filesystem::path& path,
                              SafetensorsAccess access = SafetensorsAccess::map_data);

  // The path as given to open(), as messages show it.
  const std::string& name() const noexcept { return name_; }
  const SafetensorsHeader& header() const noexcept { return header_; }
  const std::vector<TensorInfo>& tensors() const noexcept { return header_.tensors(); }
  const TensorInfo* find(std::string_view tensor_name) const { return header_.find(tensor_name); }
  // Throws CheckpointError naming the file and the tensor when it is absent.
  const TensorInfo& tensor(std::string_view tensor_name) const;

  std::uint64_t file_size() const noexcept { return file_size_; }
  std::uint64_t data_region_offset() const noexcept { return data_region_offset_; }
  bool has_data() const noexcept { return access_ == SafetensorsAccess::map_data; }

  // The tensor's bytes inside the mapping, valid while this object lives.
  // Throws when opened header_only or when `tensor` lies outside this file.
  std::span<const std::byte> data(const TensorInfo& tensor) const;

 private:
  SafetensorsFile(std::string name, SafetensorsHeader header, std::uint64_t file_size,
                  std::uint64_t data_region_offset, SafetensorsAccess access, MappedBytes mapping)
      : name_(std::move(name)),
        header_(std::move(header)),
        file_size_(file_size),
        data_region_offset_(data_region_offset),
        access_(access),
        mapping_(std::move(mapping)) {}

  std::string name_;
  SafetensorsHeader header_;
  std::uint64_t file_size_;
  std::uint64_t data_region_offset_;
  SafetensorsAccess access_;
  MappedBytes mapping_;  // empty when header_only
};

}  // namespace algenta::checkpoint
