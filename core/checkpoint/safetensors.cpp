// parse_safetensors_header: the pure half of the reader, which the fuzzer
// drives with arbitrary bytes. Every check names the file, the tensor and
// what is allowed; nothing here trusts a number before range-checking it.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/safetensors.hpp"
#include "checkpoint/strict_json.hpp"

namespace algenta::checkpoint {
namespace {

using nlohmann::json;

constexpr std::string_view kMetadataKey = "__metadata__";
// Top object -> tensor entry -> shape array: three levels is all there is.
constexpr std::size_t kMaxHeaderDepth = 3;
const std::set<std::string> kEntryKeys = {"data_offsets", "dtype", "shape"};

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

std::string range_text(std::uint64_t begin, std::uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

class HeaderChecker {
 public:
  HeaderChecker(std::uint64_t data_region_size, std::string file)
      : data_region_size_(data_region_size), file_(std::move(file)) {}

  std::map<std::string, std::string> metadata(const json& value) const {
    if (!value.is_object()) {
      fail("", "__metadata__ must be an object of strings, got " + std::string(json_type_name(value)));
    }
    std::map<std::string, std::string> entries;
    for (const auto& [key, text] : value.items()) {
      if (!text.is_string()) {
        fail("", "__metadata__ value of " + shown_text(key) + " must be a string, got " +
                     json_type_name(text) + " " + shown_json(text));
      }
      entries.emplace(key, text.get<std::string>());
    }
    return entries;
  }

  TensorInfo tensor(const std::string& name, const json& entry) const {
    if (name.empty()) fail("", "a tensor has an empty name; names must be non-empty");
    if (!entry.is_object()) {
      fail(name, "entry must be an object {dtype, shape, data_offsets}, got " +
                     std::string(json_type_name(entry)));
    }
    for (const auto& [key, value] : entry.items()) {
      if (!kEntryKeys.contains(key)) {
        fail(name, "entry has unknown key " + shown_text(key) + "; allowed: dtype, shape, data_offsets");
      }
    }
    for (const std::string& key : kEntryKeys) {
      if (!entry.contains(key)) fail(name, "entry lacks " + shown_text(key));
    }
    TensorInfo info;
    info.name = name;
    info.dtype = dtype(name, entry.at("dtype"));
    info.shape = shape(name, entry.at("shape"));
    std::tie(info.data_begin, info.data_end) = data_offsets(name, entry.at("data_offsets"));
    check_byte_size(info);
    return info;
  }

  // The data region must be covered exactly, in offset order.
  void check_tiling(std::vector<TensorInfo>& tensors) const {
    std::sort(tensors.begin(), tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
      return std::tie(a.data_begin, a.data_end, a.name) < std::tie(b.data_begin, b.data_end, b.name);
    });
    const TensorInfo* previous = nullptr;
    std::uint64_t covered_to = 0;
    for (const TensorInfo& info : tensors) {
      if (info.data_begin < covered_to) {
        fail(info.name, "bytes " + range_text(info.data_begin, info.data_end) + " overlap tensor " +
                            shown_text(previous->name) + " at " +
                            range_text(previous->data_begin, previous->data_end) +
                            "; tensors must tile the data region without overlap");
      }
      if (info.data_begin > covered_to) {
        const std::string gap = std::to_string(info.data_begin - covered_to) + " bytes";
        if (previous == nullptr) {
          fail(info.name, "starts at byte " + std::to_string(info.data_begin) + ", leaving the first " + gap +
                              " of the data region to no tensor; the first tensor must start at 0");
        }
        fail(info.name, "starts at byte " + std::to_string(info.data_begin) + " but tensor " +
                            shown_text(previous->name) + " ends at " + std::to_string(covered_to) +
                            ": a hole of " + gap + "; tensors must tile the data region contiguously");
      }
      covered_to = info.data_end;
      previous = &info;
    }
    if (covered_to != data_region_size_) {
      const std::string fact = "the data region holds " + std::to_string(data_region_size_) +
                               " bytes but the tensors cover only " + std::to_string(covered_to) +
                               "; trailing bytes must belong to a tensor";
      fail(previous == nullptr ? "" : previous->name,
           previous == nullptr ? "the header lists no tensors but " + fact : "is the last tensor and " + fact);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& tensor, const std::string& message) const {
    throw CheckpointError(file_, tensor, message);
  }

  Dtype dtype(const std::string& name, const json& value) const {
    if (!value.is_string()) {
      fail(name, "dtype must be a string, got " + std::string(json_type_name(value)));
    }
    const auto& text = value.get_ref<const std::string&>();
    const auto known = dtype_from_name(text);
    if (!known) fail(name, "dtype " + shown_text(text, 40) + " is unknown; allowed: " + allowed_dtype_names());
    return *known;
  }

  std::vector<std::int64_t> shape(const std::string& name, const json& value) const {
    if (!value.is_array()) {
      fail(name, "shape must be an array of integers, got " + std::string(json_type_name(value)));
    }
    std::vector<std::int64_t> dims;
    for (std::size_t i = 0; i < value.size(); ++i) {
      const json& dim = value[i];
      if (dim.is_number_integer() && !dim.is_number_unsigned() && dim.get<std::int64_t>() < 0) {
        fail(name, "shape " + shown_json(value) + " has negative dimension " +
                       std::to_string(dim.get<std::int64_t>()) + " at index " + std::to_string(i) +
                       "; dimensions must be >= 0");
      }
      const bool fits = dim.is_number_integer() &&
                        (!dim.is_number_unsigned() ||
                         dim.get<std::uint64_t>() <= std::uint64_t{std::numeric_limits<std::int64_t>::max()});
      if (!fits) {
        fail(name, "shape " + shown_json(value) + " has " + shown_json(dim) + " at index " + std::to_string(i) +
                       "; dimensions must be integers in [0, 2^63-1]");
      }
      dims.push_back(dim.get<std::int64_t>());
    }
    return dims;
  }

  std::pair<std::uint64_t, std::uint64_t> data_offsets(const std::string& name, const json& value) const {
    const auto is_offset = [](const json& number) {
      return number.is_number_unsigned() || (number.is_number_integer() && number.get<std::int64_t>() >= 0);
    };
    if (!value.is_array() || value.size() != 2 || !is_offset(value[0]) || !is_offset(value[1])) {
      fail(name, "data_offsets must be two non-negative integers [begin, end], got " + shown_json(value));
    }
    const auto begin = value[0].get<std::uint64_t>();
    const auto end = value[1].get<std::uint64_t>();
    if (begin > end) {
      fail(name, "data_offsets " + shown_json(value) + " begin after they end; begin must be <= end");
    }
    if (end > data_region_size_) {
      fail(name, "data_offsets " + shown_json(value) + " end beyond the data region of " +
                     std::to_string(data_region_size_) + " bytes; allowed: 0 <= begin <= end <= " +
                     std::to_string(data_region_size_));
    }
    return {begin, end};
  }

  void check_byte_size(const TensorInfo& info) const {
    const std::uint64_t element_size = dtype_element_size(info.dtype);
    std::uint64_t needed = element_size;
    for (const std::int64_t dim : info.shape) {
      const auto extent = static_cast<std::uint64_t>(dim);
      if (extent != 0 && needed > std::numeric_limits<std::uint64_t>::max() / extent) {
        fail(info.name, "shape " + shape_text(info.shape) + " of " + std::string(dtype_name(info.dtype)) +
                            " needs more than 2^64 bytes");
      }
      needed *= extent;
    }
    if (needed != info.byte_size()) {
      fail(info.name, "data_offsets " + range_text(info.data_begin, info.data_end) + " hold " +
                          std::to_string(info.byte_size()) + " bytes but shape " + shape_text(info.shape) +
                          " of " + std::string(dtype_name(info.dtype)) + " needs " + std::to_string(needed) +
                          " (elements * " + std::to_string(element_size) + ")");
    }
  }

  std::uint64_t data_region_size_;
  std::string file_;
};

}  // namespace

SafetensorsHeader::SafetensorsHeader(std::vector<TensorInfo> tensors_in_data_order,
                                     std::map<std::string, std::string> metadata)
    : tensors_(std::move(tensors_in_data_order)), metadata_(std::move(metadata)) {
  order_by_name_.resize(tensors_.size());
  for (std::size_t i = 0; i < tensors_.size(); ++i) order_by_name_[i] = i;
  std::sort(order_by_name_.begin(), order_by_name_.end(),
            [this](std::size_t a, std::size_t b) { return tensors_[a].name < tensors_[b].name; });
}

const TensorInfo* SafetensorsHeader::find(std::string_view name) const {
  const auto it = std::lower_bound(order_by_name_.begin(), order_by_name_.end(), name,
                                   [this](std::size_t index, std::string_view wanted) {
                                     return std::string_view(tensors_[index].name) < wanted;
                                   });
  if (it == order_by_name_.end() || tensors_[*it].name != name) return nullptr;
  return &tensors_[*it];
}

SafetensorsHeader parse_safetensors_header(std::string_view header_json, std::uint64_t data_region_size,
                                           std::string_view file_name) {
  const std::string file(file_name);
  if (header_json.size() > kMaxSafetensorsHeaderBytes) {
    throw CheckpointError(file, "", "header is " + std::to_string(header_json.size()) +
                                        " bytes; allowed: at most " + std::to_string(kMaxSafetensorsHeaderBytes));
  }
  // The format says the header starts with '{' (it may end in space padding).
  if (header_json.empty() || header_json.front() != '{') {
    throw CheckpointError(file, "", "header must start with '{' (a JSON object)");
  }
  const json document = parse_strict_json_object(header_json, file, kMaxHeaderDepth, true);

  const HeaderChecker checker(data_region_size, file);
  std::map<std::string, std::string> metadata;
  std::vector<TensorInfo> tensors;
  tensors.reserve(document.size());
  for (const auto& [key, value] : document.items()) {
    if (key == kMetadataKey) {
      metadata = checker.metadata(value);
    } else {
      tensors.push_back(checker.tensor(key, value));
    }
  }
  checker.check_tiling(tensors);
  return SafetensorsHeader(std::move(tensors), std::move(metadata));
}

}  // namespace algenta::checkpoint
