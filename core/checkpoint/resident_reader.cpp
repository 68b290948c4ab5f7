#include "checkpoint/resident_reader.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/resident_format.hpp"
#include "checkpoint/sha256_stream.hpp"
#include "checkpoint/strict_json.hpp"

namespace algenta::checkpoint {
namespace {

using nlohmann::json;

// source and facts are free-form; the cap only bounds hostile input.
constexpr std::size_t kMaxManifestDepth = 64;
const std::set<std::string> kManifestKeys = {"alignment", "blob", "dtype", "facts", "format", "source", "tensors"};
const std::set<std::string> kBlobKeys = {"file", "sha256", "size"};
const std::set<std::string> kTensorKeys = {"dtype", "name", "offset", "shape", "size"};

std::string keys_text(const std::set<std::string>& keys) {
  std::string text;
  for (const std::string& key : keys) text += (text.empty() ? "" : ", ") + key;
  return text;
}

bool is_lowercase_sha256(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string range_text(std::uint64_t begin, std::uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

class ManifestChecker {
 public:
  explicit ManifestChecker(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& tensor, const std::string& message) const {
    throw CheckpointError(file_, tensor, message);
  }

  void exact_keys(const std::string& tensor, const std::string& where, const json& object,
                  const std::set<std::string>& allowed) const {
    if (!object.is_object()) {
      fail(tensor, where + " must be an object, got " + std::string(json_type_name(object)));
    }
    for (const auto& [key, value] : object.items()) {
      if (!allowed.contains(key)) {
        fail(tensor, where + " has unknown key " + shown_text(key) + "; allowed: " + keys_text(allowed));
      }
    }
    for (const std::string& key : allowed) {
      if (!object.contains(key)) fail(tensor, where + " lacks " + shown_text(key));
    }
  }

  std::uint64_t unsigned_number(const std::string& tensor, const std::string& what, const json& value) const {
    const bool non_negative_integer =
        value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
    if (!non_negative_integer) {
      fail(tensor, what + " must be a non-negative integer, got " + shown_json(value));
    }
    return value.get<std::uint64_t>();
  }

  const std::string& string(const std::string& tensor, const std::string& what, const json& value) const {
    if (!value.is_string()) fail(tensor, what + " must be a string, got " + std::string(json_type_name(value)));
    return value.get_ref<const std::string&>();
  }

  Dtype dtype(const json& value) const {
    const std::string& text = string("", "dtype", value);
    const auto dtype = resident_dtype_from_name(text);
    if (!dtype) fail("", "dtype " + shown_text(text) + " is unknown; allowed: bf16, f16, f32");
    return *dtype;
  }

  ResidentTensorInfo tensor(const json& entry, Dtype dtype, std::uint64_t blob_size) const {
    exact_keys("", "a tensors entry", entry, kTensorKeys);
    ResidentTensorInfo info;
    info.name = string("", "a tensor name", entry.at("name"));
    if (info.name.empty()) fail("", "a tensor has an empty name; names must be non-empty");
    const std::string& dtype_text = string(info.name, "dtype", entry.at("dtype"));
    if (resident_dtype_from_name(dtype_text) != dtype) {
      fail(info.name, "dtype " + shown_text(dtype_text) + " differs from the checkpoint's " +
                          shown_text(*resident_dtype_name(dtype)) + "; every tensor has the checkpoint's dtype");
    }
    info.dtype = dtype;
    info.shape = shape(info.name, entry.at("shape"));
    info.offset = unsigned_number(info.name, "offset", entry.at("offset"));
    info.size = unsigned_number(info.name, "size", entry.at("size"));
    if (info.offset % kResidentAlignment != 0) {
      fail(info.name, "offset " + std::to_string(info.offset) + " is not a multiple of the alignment " +
                          std::to_string(kResidentAlignment));
    }
    if (info.size > blob_size || info.offset > blob_size - info.size) {
      fail(info.name, "bytes [" + std::to_string(info.offset) + ", +" + std::to_string(info.size) +
                          ") end beyond the blob of " + std::to_string(blob_size) +
                          " bytes; allowed: offset + size <= " + std::to_string(blob_size));
    }
    check_size(info);
    return info;
  }

  // Each tensor owns its bytes: sorted by offset, none starts before the
  // previous one ends.
  void check_no_overlap(const std::vector<ResidentTensorInfo>& tensors) const {
    std::vector<const ResidentTensorInfo*> by_offset;
    for (const ResidentTensorInfo& info : tensors) by_offset.push_back(&info);
    std::sort(by_offset.begin(), by_offset.end(), [](const ResidentTensorInfo* a, const ResidentTensorInfo* b) {
      return std::tuple(a->offset, a->offset + a->size) < std::tuple(b->offset, b->offset + b->size);
    });
    for (std::size_t i = 1; i < by_offset.size(); ++i) {
      const ResidentTensorInfo& previous = *by_offset[i - 1];
      const ResidentTensorInfo& current = *by_offset[i];
      if (current.offset < previous.offset + previous.size) {
        fail(current.name, "bytes " + range_text(current.offset, current.offset + current.size) +
                               " overlap tensor " + shown_text(previous.name) + " at " +
                               range_text(previous.offset, previous.offset + previous.size));
      }
    }
  }

 private:
  std::vector<std::int64_t> shape(const std::string& tensor, const json& value) const {
    if (!value.is_array()) fail(tensor, "shape must be an array, got " + std::string(json_type_name(value)));
    std::vector<std::int64_t> dims;
    for (const json& dim : value) {
      const std::uint64_t extent = unsigned_number(tensor, "a shape dimension", dim);
      if (extent > std::uint64_t{std::numeric_limits<std::int64_t>::max()}) {
        fail(tensor, "shape dimension " + std::to_string(extent) + " exceeds 2^63-1");
      }
      dims.push_back(static_cast<std::int64_t>(extent));
    }
    return dims;
  }

  void check_size(const ResidentTensorInfo& info) const {
    const std::uint64_t element_size = dtype_element_size(info.dtype);
    std::uint64_t needed = element_size;
    for (const std::int64_t dim : info.shape) {
      const auto extent = static_cast<std::uint64_t>(dim);
      if (extent != 0 && needed > std::numeric_limits<std::uint64_t>::max() / extent) {
        fail(info.name, "shape needs more than 2^64 bytes");
      }
      needed *= extent;
    }
    if (needed != info.size) {
      fail(info.name, "size " + std::to_string(info.size) + " differs from shape * dtype = " +
                          std::to_string(needed) + " bytes");
    }
  }

  std::string file_;
};

}  // namespace

ResidentCheckpoint ResidentCheckpoint::open(const std::filesystem::path& dir, bool verify_blob_checksum) {
  const std::filesystem::path manifest_path = dir / kResidentManifestFileName;
  const std::string manifest_name = manifest_path.string();
  const json manifest =
      parse_strict_json_object(read_whole_file(manifest_path, {kMaxResidentManifestBytes, "a resident manifest"}), manifest_name, kMaxManifestDepth, false);
  const ManifestChecker check(manifest_name);

  check.exact_keys("", "the manifest", manifest, kManifestKeys);
  const std::string& format = check.string("", "format", manifest.at("format"));
  if (format != kResidentFormat) {
    check.fail("", "format " + shown_text(format) + " is unknown; allowed: " + shown_text(kResidentFormat));
  }
  ResidentCheckpoint checkpoint;
  checkpoint.dir_name_ = dir.string();
  checkpoint.dtype_ = check.dtype(manifest.at("dtype"));
  const std::uint64_t alignment = check.unsigned_number("", "alignment", manifest.at("alignment"));
  if (alignment != kResidentAlignment) {
    check.fail("", "alignment " + std::to_string(alignment) + " is not supported; allowed: " +
                       std::to_string(kResidentAlignment));
  }
  const json& blob = manifest.at("blob");
  check.exact_keys("", "blob", blob, kBlobKeys);
  const std::string& blob_file = check.string("", "blob.file", blob.at("file"));
  if (blob_file != kResidentBlobFileName) {
    check.fail("", "blob.file " + shown_text(blob_file) + " is not allowed; allowed: " + shown_text(kResidentBlobFileName));
  }
  const std::uint64_t blob_size = check.unsigned_number("", "blob.size", blob.at("size"));
  checkpoint.blob_sha256_ = check.string("", "blob.sha256", blob.at("sha256"));
  if (!is_lowercase_sha256(checkpoint.blob_sha256_)) {
    check.fail("", "blob.sha256 " + shown_text(checkpoint.blob_sha256_) + " is not 64 lowercase hex digits");
  }
  for (const char* key : {"source", "facts"}) {
    if (!manifest.at(key).is_object()) {
      check.fail("", std::string(key) + " must be an object, got " + json_type_name(manifest.at(key)));
    }
  }
  checkpoint.source_ = manifest.at("source");
  checkpoint.facts_ = manifest.at("facts");

  const json& tensors = manifest.at("tensors");
  if (!tensors.is_array()) check.fail("", "tensors must be an array, got " + std::string(json_type_name(tensors)));
  for (const json& entry : tensors) {
    ResidentTensorInfo info = check.tensor(entry, checkpoint.dtype_, blob_size);
    if (!checkpoint.tensors_.empty() && !(checkpoint.tensors_.back().name < info.name)) {
      check.fail(info.name, "follows " + shown_text(checkpoint.tensors_.back().name) +
                                "; tensors must be listed once each, sorted by name");
    }
    checkpoint.tensors_.push_back(std::move(info));
  }
  check.check_no_overlap(checkpoint.tensors_);

  const ReadOnlyFile blob_file_handle = ReadOnlyFile::open(dir / kResidentBlobFileName);
  if (blob_file_handle.size() != blob_size) {
    throw CheckpointError(blob_file_handle.name(), "", "is " + std::to_string(blob_file_handle.size()) +
                                                           " bytes but " + manifest_name + " says " +
                                                           std::to_string(blob_size));
  }
  checkpoint.blob_ = MappedBytes::map(blob_file_handle);
  if (verify_blob_checksum) {
    const std::string actual = sha256_hex_of(checkpoint.blob_.bytes());
    if (actual != checkpoint.blob_sha256_) {
      throw CheckpointError(blob_file_handle.name(), "", "has sha256 " + actual + " but " + manifest_name +
                                                             " says " + checkpoint.blob_sha256_);
    }
  }
  return checkpoint;
}

const ResidentTensorInfo* ResidentCheckpoint::find(std::string_view name) const {
  const auto it = std::lower_bound(tensors_.begin(), tensors_.end(), name,
                                   [](const ResidentTensorInfo& info, std::string_view wanted) {
                                     return std::string_view(info.name) < wanted;
                                   });
  if (it == tensors_.end() || it->name != name) return nullptr;
  return &*it;
}

ResidentTensor ResidentCheckpoint::tensor(std::string_view name) const {
  const ResidentTensorInfo* info = find(name);
  if (info == nullptr) throw CheckpointError(dir_name_, std::string(name), "is not in this resident checkpoint");
  return {*info, blob_.bytes().subspan(static_cast<std::size_t>(info->offset), static_cast<std::size_t>(info->size))};
}

}  // namespace algenta::checkpoint
