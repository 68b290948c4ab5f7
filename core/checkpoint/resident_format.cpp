#include "checkpoint/resident_format.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/durable_files.hpp"
#include "checkpoint/mapped_file.hpp"
#include "checkpoint/dtype_convert.hpp"
#include "checkpoint/resident_reader.hpp"
#include "checkpoint/sha256_stream.hpp"
#include "checkpoint/staging_directory.hpp"

namespace algenta::checkpoint {
namespace {

using nlohmann::json;

// Elements converted per step: bounds the writer's memory at 4 MiB whatever
// the tensor size, and paces the progress callback.
constexpr std::size_t kChunkElements = 1u << 20;

struct TensorRecord {
  std::string name;
  std::vector<std::int64_t> shape;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

bool is_valid_utf8_text(const std::string& text) {
  try {
    (void)json(text).dump();
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

}  // namespace

std::optional<std::string_view> resident_dtype_name(Dtype dtype) {
  switch (dtype) {
    case Dtype::BF16: return "bf16";
    case Dtype::F16: return "f16";
    case Dtype::F32: return "f32";
    default: return std::nullopt;
  }
}

std::optional<Dtype> resident_dtype_from_name(std::string_view name) {
  for (const Dtype dtype : {Dtype::BF16, Dtype::F16, Dtype::F32}) {
    if (resident_dtype_name(dtype) == name) return dtype;
  }
  return std::nullopt;
}

struct ResidentWriter::State {
  State(const std::filesystem::path& out_dir, Dtype target_dtype, json source_object, json facts_object)
      : staging(out_dir),
        out_name(staging.final_path().string()),
        dtype(target_dtype),
        source(std::move(source_object)),
        facts(std::move(facts_object)),
        blob(staging.path() / kResidentBlobFileName) {}

  [[noreturn]] void fail(const std::string& tensor, const std::string& message) const {
    throw CheckpointError(out_name, tensor, message);
  }

  void append(std::span<const std::byte> bytes) {
    blob.write(bytes);
    blob_hash.update(bytes);
    blob_size += bytes.size();
  }

  void pad_to_alignment() {
    static constexpr std::array<std::byte, kResidentAlignment> kZeros{};
    const std::uint64_t pad = (kResidentAlignment - blob_size % kResidentAlignment) % kResidentAlignment;
    append(std::span(kZeros).first(static_cast<std::size_t>(pad)));
  }

  void report_progress(std::uint64_t source_bytes) {
    progress.bytes_done += source_bytes;
    if (progress_callback) progress_callback(progress);
  }

  json manifest(const std::string& blob_sha256) const {
    const std::string dtype_text(*resident_dtype_name(dtype));
    std::vector<const TensorRecord*> by_name;
    for (const TensorRecord& record : tensors) by_name.push_back(&record);
    std::sort(by_name.begin(), by_name.end(),
              [](const TensorRecord* a, const TensorRecord* b) { return a->name < b->name; });
    json tensor_list = json::array();
    for (const TensorRecord* record : by_name) {
      tensor_list.push_back({{"name", record->name},
                             {"dtype", dtype_text},
                             {"shape", record->shape},
                             {"offset", record->offset},
                             {"size", record->size}});
    }
    return {{"format", std::string(kResidentFormat)},
            {"dtype", dtype_text},
            {"alignment", kResidentAlignment},
            {"blob", {{"file", std::string(kResidentBlobFileName)}, {"size", blob_size}, {"sha256", blob_sha256}}},
            {"tensors", std::move(tensor_list)},
            {"source", source},
            {"facts", facts}};
  }

  StagingDirectory staging;
  std::string out_name;
  Dtype dtype;
  RoundingStats rounding;  // what converting to `dtype` changed so far
  json source;
  json facts;
  OutputFile blob;
  Sha256Stream blob_hash;
  std::uint64_t blob_size = 0;
  std::vector<TensorRecord> tensors;
  std::set<std::string, std::less<>> tensor_names;
  std::set<std::string, std::less<>> side_file_names;
  WriteProgress progress;
  WriteProgressCallback progress_callback;
  bool interrupted = false;  // a write failed part-way: the blob is unusable
  bool committed = false;
};

namespace {

// Replacing OUT removes it, so only what a writer made may be replaced: an
// absent OUT, an empty directory, or one whose manifest.json names this
// format. A mistyped --out pointing at the source checkpoint is refused.
void check_replaceable(const std::filesystem::path& out_dir) {
  std::error_code error;
  const auto status = std::filesystem::symlink_status(out_dir, error);
  if (!std::filesystem::exists(status)) return;
  if (std::filesystem::is_directory(status) && std::filesystem::is_empty(out_dir, error) && !error) return;
  bool is_resident = false;
  try {
    const std::string text = read_whole_file(out_dir / kResidentManifestFileName,
                                             {kMaxResidentManifestBytes, "a resident manifest"});
    const json manifest = json::parse(text);
    is_resident = manifest.is_object() && manifest.value("format", "") == kResidentFormat;
  } catch (const std::exception&) {
    is_resident = false;
  }
  if (!is_resident) {
    throw CheckpointError(out_dir.string(), "",
                          "exists and is not a resident checkpoint (no manifest.json of format " +
                              std::string(kResidentFormat) + "); refusing to replace it, remove it first");
  }
}

// Checks done before anything touches the disk.
void check_writer_arguments(const std::filesystem::path& out_dir, Dtype dtype, const json& source,
                            const json& facts) {
  const std::string out_name = out_dir.string();
  if (out_dir.empty()) throw CheckpointError("<output>", "", "the output directory path is empty");
  if (!resident_dtype_name(dtype)) {
    throw CheckpointError(out_name, "", "target dtype " + std::string(dtype_name(dtype)) +
                                            " is not a resident dtype; allowed: BF16, F16, F32");
  }
  for (const auto& [what, value] : {std::pair<const char*, const json*>{"source", &source}, {"facts", &facts}}) {
    if (!value->is_object()) {
      throw CheckpointError(out_name, "", std::string(what) + " must be a JSON object, got " +
                                              std::string(value->type_name()));
    }
    try {
      (void)value->dump();
    } catch (const json::type_error&) {
      throw CheckpointError(out_name, "", std::string(what) + " holds a string that is not valid UTF-8");
    }
  }
  check_replaceable(out_dir);
}

}  // namespace

ResidentWriter::ResidentWriter(const std::filesystem::path& out_dir, Dtype dtype, json source, json facts) {
  check_writer_arguments(out_dir, dtype, source, facts);
  state_ = std::make_unique<State>(out_dir, dtype, std::move(source), std::move(facts));
}

ResidentWriter::~ResidentWriter() = default;  // StagingDirectory removes an unpublished OUT.tmp-<pid>

void ResidentWriter::set_progress(std::uint64_t total_source_bytes, WriteProgressCallback callback) {
  state_->progress.bytes_total = total_source_bytes;
  state_->progress_callback = std::move(callback);
}

void ResidentWriter::add_tensor(const std::string& name, std::span<const std::int64_t> shape, Dtype source_dtype,
                                std::span<const std::byte> bytes) {
  State& s = *state_;
  if (s.committed) throw std::logic_error("ResidentWriter::add_tensor after commit");
  if (name.empty()) s.fail("", "a tensor has an empty name; names must be non-empty");
  if (!is_valid_utf8_text(name)) s.fail(name, "name is not valid UTF-8");
  if (s.tensor_names.contains(name)) s.fail(name, "is added twice; tensor names must be unique");
  const std::string target_name(dtype_name(s.dtype));
  if (!is_convertible_float(source_dtype)) {
    s.fail(name, "has dtype " + std::string(dtype_name(source_dtype)) + ", which cannot be converted to " +
                     target_name + "; convertible: F32, BF16, F16");
  }
  std::uint64_t elements = 1;
  for (const std::int64_t dim : shape) {
    if (dim < 0) s.fail(name, "shape has negative dimension " + std::to_string(dim) + "; dimensions must be >= 0");
    const auto extent = static_cast<std::uint64_t>(dim);
    // Byte counts (elements * up to 4 bytes) must fit in 64 bits.
    if (extent != 0 && elements > std::numeric_limits<std::uint64_t>::max() / 4 / extent) {
      s.fail(name, "shape has more elements than fit in 64-bit byte offsets");
    }
    elements *= extent;
  }
  const std::size_t source_size = dtype_element_size(source_dtype);
  const std::size_t target_size = dtype_element_size(s.dtype);
  if (bytes.size() != elements * source_size) {
    s.fail(name, "holds " + std::to_string(bytes.size()) + " bytes but " + std::to_string(elements) +
                     " elements of " + std::string(dtype_name(source_dtype)) + " need " +
                     std::to_string(elements * source_size));
  }
  if (s.interrupted) s.fail(name, "cannot be added: an earlier write to the blob failed");

  s.interrupted = true;
  s.pad_to_alignment();
  TensorRecord record{name, std::vector<std::int64_t>(shape.begin(), shape.end()), s.blob_size,
                      elements * target_size};
  std::vector<std::byte> converted;
  for (std::uint64_t done = 0; done < elements; done += kChunkElements) {
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(kChunkElements, elements - done));
    const auto piece = bytes.subspan(static_cast<std::size_t>(done) * source_size, count * source_size);
    if (source_dtype == s.dtype) {
      s.append(piece);
    } else {
      converted.resize(count * target_size);
      s.rounding.add(rounding_stats(source_dtype, piece, s.dtype));
      convert_elements(source_dtype, piece, s.dtype, converted);
      s.append(converted);
    }
    s.report_progress(piece.size());
  }
  if (elements == 0) s.report_progress(0);
  s.interrupted = false;
  s.tensors.push_back(std::move(record));
  s.tensor_names.insert(name);
}

const RoundingStats& ResidentWriter::rounding() const { return state_->rounding; }

void ResidentWriter::add_side_file(const std::filesystem::path& path) {
  State& s = *state_;
  if (s.committed) throw std::logic_error("ResidentWriter::add_side_file after commit");
  const std::string file_name = path.filename().string();
  if (file_name.empty() || file_name == kResidentBlobFileName || file_name == kResidentManifestFileName) {
    throw CheckpointError(path.string(), "", "cannot be a side file: its name is empty or reserved (" +
                                                 std::string(kResidentBlobFileName) + ", " +
                                                 std::string(kResidentManifestFileName) + ")");
  }
  if (s.side_file_names.contains(file_name)) {
    throw CheckpointError(path.string(), "", "is added as a side file twice");
  }
  copy_file_synced(path, s.staging.path() / file_name, kMaxResidentSideFileBytes);
  s.side_file_names.insert(file_name);
}

std::size_t ResidentWriter::add_side_files_from(const std::filesystem::path& dir) {
  std::size_t copied = 0;
  for (const std::string_view file_name : kResidentSideFileNames) {
    const std::filesystem::path path = dir / file_name;
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) continue;
    add_side_file(path);
    ++copied;
  }
  return copied;
}

void ResidentWriter::commit() {
  State& s = *state_;
  if (s.committed) throw std::logic_error("ResidentWriter::commit called twice");
  if (s.interrupted) s.fail("", "cannot be committed: a write to the blob failed part-way");
  s.blob.finish();
  const json manifest = s.manifest(s.blob_hash.finish_hex());
  write_file_synced(s.staging.path() / kResidentManifestFileName, manifest.dump(2) + "\n");
  check_replaceable(s.staging.final_path());  // it may have changed meanwhile
  s.staging.publish();
  s.committed = true;
}

bool resident_is_current(const std::filesystem::path& out_dir, const json& source, Dtype dtype) {
  try {
    const ResidentCheckpoint current = ResidentCheckpoint::open(out_dir, false);
    return current.dtype() == dtype && current.source_json() == source;
  } catch (const CheckpointError&) {
    return false;  // absent, damaged or another format: prepare it again
  }
}

}  // namespace algenta::checkpoint
