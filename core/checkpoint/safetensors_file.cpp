// SafetensorsFile: reads the length prefix and header of one file, checks
// them against the file's size, and keeps a read-only mapping for the data.
#include <array>
#include <cstring>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/safetensors.hpp"

namespace algenta::checkpoint {
namespace {

constexpr std::uint64_t kLengthPrefixBytes = 8;

std::uint64_t little_endian_u64(const std::array<std::byte, kLengthPrefixBytes>& bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = kLengthPrefixBytes; i-- > 0;) value = (value << 8) | std::to_integer<std::uint64_t>(bytes[i]);
  return value;
}

}  // namespace

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path, SafetensorsAccess access) {
  ReadOnlyFile file = ReadOnlyFile::open(path);
  const std::string& name = file.name();
  if (file.size() < kLengthPrefixBytes) {
    throw CheckpointError(name, "", "is " + std::to_string(file.size()) +
                                        " bytes; a safetensors file needs at least 8 (the header length)");
  }
  std::array<std::byte, kLengthPrefixBytes> prefix{};
  file.read_at(0, prefix);
  const std::uint64_t header_length = little_endian_u64(prefix);
  if (header_length > kMaxSafetensorsHeaderBytes) {
    throw CheckpointError(name, "", "header length " + std::to_string(header_length) +
                                        " exceeds the cap; allowed: at most " +
                                        std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
  }
  const std::uint64_t room = file.size() - kLengthPrefixBytes;
  if (header_length > room) {
    throw CheckpointError(name, "", "header length " + std::to_string(header_length) +
                                        " runs past the end of the file (" + std::to_string(file.size()) +
                                        " bytes); allowed: at most " + std::to_string(room));
  }
  const std::uint64_t data_region_offset = kLengthPrefixBytes + header_length;
  const std::uint64_t data_region_size = file.size() - data_region_offset;

  MappedBytes mapping;
  std::string header_copy;
  std::string_view header_json;
  if (access == SafetensorsAccess::map_data) {
    mapping = MappedBytes::map(file);
    const auto header_bytes = mapping.bytes().subspan(kLengthPrefixBytes, header_length);
    header_json = {reinterpret_cast<const char*>(header_bytes.data()), header_bytes.size()};
  } else {
    header_copy.resize(header_length);
    file.read_at(kLengthPrefixBytes, std::as_writable_bytes(std::span(header_copy)));
    header_json = header_copy;
  }
  // The tiling check inside ties the header to the file size: a truncated
  // file leaves a tensor past the end, trailing junk leaves uncovered bytes.
  SafetensorsHeader header = parse_safetensors_header(header_json, data_region_size, name);
  return SafetensorsFile(name, std::move(header), file.size(), data_region_offset, access, std::move(mapping));
}

const TensorInfo& SafetensorsFile::tensor(std::string_view tensor_name) const {
  const TensorInfo* info = find(tensor_name);
  if (info == nullptr) throw CheckpointError(name_, std::string(tensor_name), "is not in this file");
  return *info;
}

std::span<const std::byte> SafetensorsFile::data(const TensorInfo& tensor) const {
  if (access_ != SafetensorsAccess::map_data) {
    throw CheckpointError(name_, tensor.name, "data requested from a file opened header-only");
  }
  const std::uint64_t data_region_size = file_size_ - data_region_offset_;
  if (tensor.data_begin > tensor.data_end || tensor.data_end > data_region_size) {
    throw CheckpointError(name_, tensor.name, "lies outside this file's data region");
  }
  return mapping_.bytes().subspan(data_region_offset_ + tensor.data_begin, tensor.byte_size());
}

}  // namespace algenta::checkpoint
