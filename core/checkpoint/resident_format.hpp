// The resident format: the converted checkpoint every engine reads.
//
// A directory OUT holding
//   weights.blob   every tensor's bytes in one dtype; each tensor starts at a
//                  multiple of 256 bytes, zero padding between. 256 covers the
//                  widest vector loads and keeps device copies on their fast,
//                  aligned path, and since the blob is mapped whole, aligned
//                  blob offsets are aligned addresses.
//   manifest.json  {"format": "algenta.resident/1", "dtype": "bf16"|"f16"|"f32",
//                   "alignment": 256,
//                   "blob": {"file": "weights.blob", "size": N, "sha256": hex},
//                   "tensors": [{"name", "dtype", "shape", "offset", "size"}]
//                              (sorted by name),
//                   "source": {...}, "facts": {...}}  (objects the caller gives)
//   side files     config.json, tokenizer files, ... copied through unchanged.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/dtype.hpp"
#include "checkpoint/dtype_convert.hpp"

namespace algenta::checkpoint {

inline constexpr std::string_view kResidentFormat = "algenta.resident/1";
inline constexpr std::uint64_t kResidentAlignment = 256;
inline constexpr std::string_view kResidentBlobFileName = "weights.blob";
inline constexpr std::string_view kResidentManifestFileName = "manifest.json";
// Files next to the weights that engines, the tokenizer and the chat
// template need (each copied when present; none is required).
inline constexpr std::array<std::string_view, 6> kResidentSideFileNames = {
    "chat_template.jinja", "config.json", "generation_config.json", "special_tokens_map.json",
    "tokenizer.json", "tokenizer_config.json"};
// The largest of them are tokenizer.json files of a few tens of MiB; a side
// file over this cap is refused before a byte of it is copied.
inline constexpr std::uint64_t kMaxResidentSideFileBytes = 256u << 20;

// "bf16", "f16", "f32": the resident spelling of BF16, F16, F32.
std::optional<std::string_view> resident_dtype_name(Dtype dtype);
std::optional<Dtype> resident_dtype_from_name(std::string_view name);

struct WriteProgress {
  std::uint64_t bytes_done = 0;   // source bytes converted so far
  std::uint64_t bytes_total = 0;  // as announced in set_progress
};
using WriteProgressCallback = std::function<void(const WriteProgress&)>;

// Streams tensors into OUT.tmp-<pid>/weights.blob, converting each to the
// target dtype in bounded chunks while hashing, and publishes OUT only at
// commit(). Destroying the writer without commit() removes the temporary
// directory and leaves any existing OUT as it was.
class ResidentWriter {
 public:
  // `dtype` is BF16, F16 or F32; `source` and `facts` must be JSON objects.
  // Errors are CheckpointError naming OUT.
  ResidentWriter(const std::filesystem::path& out_dir, Dtype dtype, nlohmann::json source,
                 nlohmann::json facts);
  ResidentWriter(const ResidentWriter&) = delete;
  ResidentWriter& operator=(const ResidentWriter&) = delete;
  ~ResidentWriter();

  // Called after every converted chunk and once per tensor.
  void set_progress(std::uint64_t total_source_bytes, WriteProgressCallback callback);

  // `bytes` holds the tensor in `source_dtype` (F32, BF16 or F16), exactly
  // product(shape) elements. Names must be unique and non-empty.
  void add_tensor(const std::string& name, std::span<const std::int64_t> shape, Dtype source_dtype,
                  std::span<const std::byte> bytes);

  // What converting the tensors added so far to the target dtype changed
  // (values counts every converted element; same-dtype tensors are copied).
  const RoundingStats& rounding() const;

  // Copies a file into OUT under its own name (not weights.blob or
  // manifest.json, and only once per name).
  void add_side_file(const std::filesystem::path& path);
  // add_side_file for each of kResidentSideFileNames present in `dir`;
  // returns how many were copied.
  std::size_t add_side_files_from(const std::filesystem::path& dir);

  // Finishes the blob, writes manifest.json and publishes OUT.
  void commit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// True when OUT holds a valid resident checkpoint for the same `source` and
// `dtype` (manifest checked strictly, blob size verified, not re-hashed), so
// preparing it again would write the same thing.
bool resident_is_current(const std::filesystem::path& out_dir, const nlohmann::json& source, Dtype dtype);

}  // namespace algenta::checkpoint
