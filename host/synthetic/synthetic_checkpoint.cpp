#include "synthetic/synthetic_checkpoint.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <thread>

#include "synthetic/seeded_normal.hpp"
#include "checkpoint/dtype_convert.hpp"
#include "facts/expected_tensors.hpp"
#include "facts/facts_json.hpp"
#include "facts/json_document.hpp"
#include "files/bounded_read.hpp"
#include "manifest/crypto.hpp"

namespace algenta::host::synthetic {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;

constexpr const char* kGenerator =
    "SplitMix64 per 2^20-value chunk keyed by (seed, tensor name, chunk), Box-Muller";

std::uint64_t element_count(const std::vector<std::int64_t>& shape) {
  std::uint64_t count = 1;
  for (const std::int64_t dim : shape) count *= static_cast<std::uint64_t>(dim);
  return count;
}

bool is_norm_weight(const std::string& name) {
  static constexpr std::string_view kSuffix = "norm.weight";
  return name.size() >= kSuffix.size() && name.ends_with(kSuffix);
}

// The config object the facts were read from: the top level, or text_config.
const json& text_config(const facts::ModelFacts& model, const json& root) {
  if (model.from_text_config && root.contains("text_config") && root["text_config"].is_object()) {
    return root["text_config"];
  }
  return root;
}

// Fills `out` (elements of `dtype`) with mean + std * N(0, 1), chunk by
// chunk on every core; the values do not depend on the number of threads.
void fill_tensor(const SyntheticWeights& weights, const std::string& name, double mean, double std,
                 std::uint64_t elements, std::span<std::byte> out) {
  const std::size_t element_size = checkpoint::dtype_element_size(weights.dtype);
  const std::uint64_t chunks = (elements + kNormalChunk - 1) / kNormalChunk;
  std::atomic<std::uint64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto work = [&] {
    try {
      std::vector<float> values(kNormalChunk);
      for (std::uint64_t chunk = next++; chunk < chunks; chunk = next++) {
        const std::uint64_t first = chunk * kNormalChunk;
        const auto count =
            static_cast<std::size_t>(std::min<std::uint64_t>(kNormalChunk, elements - first));
        const std::span<float> part = std::span(values).first(count);
        fill_normal_chunk(weights.seed, name, chunk, mean, std, part);
        const std::span<std::byte> target =
            out.subspan(static_cast<std::size_t>(first) * element_size, count * element_size);
        checkpoint::convert_elements(checkpoint::Dtype::F32, std::as_bytes(part), weights.dtype,
                                     target);
      }
    } catch (...) {
      const std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  const auto threads = static_cast<std::size_t>(std::clamp<std::uint64_t>(
      std::thread::hardware_concurrency(), 1, std::max<std::uint64_t>(chunks, 1)));
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

SyntheticWeights synthetic_weights_for(const facts::ModelFacts& model, std::string_view config_text,
                                       const std::string& config_name, std::uint64_t seed) {
  SyntheticWeights weights;
  weights.seed = seed;
  const json root = json::parse(config_text);
  const json& config = text_config(model, root);
  if (const auto range = config.find("initializer_range");
      range != config.end() && !range->is_null()) {
    const double value = range->is_number() ? range->get<double>() : -1.0;
    if (!(value > 0.0 && std::isfinite(value))) {
      throw std::invalid_argument(config_name + ": initializer_range " + range->dump() +
                                  " is not a positive number (the scale synthetic weights are "
                                  "drawn at)");
    }
    weights.init_std = value;
  }
  if (model.torch_dtype == "bfloat16") {
    weights.dtype = checkpoint::Dtype::BF16;
  } else if (model.torch_dtype == "float16") {
    weights.dtype = checkpoint::Dtype::F16;
  } else if (model.torch_dtype == "float32" || model.torch_dtype.empty()) {
    weights.dtype = checkpoint::Dtype::F32;
  } else {
    throw std::invalid_argument(config_name + ": torch_dtype \"" + model.torch_dtype +
                                "\" is not one synthetic weights can be stored in (bfloat16, "
                                "float16, float32)");
  }
  return weights;
}

std::vector<LaidOutTensor> resident_layout(const facts::ModelFacts& model,
                                           checkpoint::Dtype dtype) {
  std::vector<facts::ExpectedTensor> tensors = facts::expected_tensors(model);
  // prepare adds tensors in name order (its map of canonical names).
  std::sort(tensors.begin(), tensors.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  std::vector<LaidOutTensor> layout;
  std::uint64_t end = 0;
  for (const facts::ExpectedTensor& tensor : tensors) {
    const std::uint64_t offset = (end + checkpoint::kResidentAlignment - 1) /
                                 checkpoint::kResidentAlignment * checkpoint::kResidentAlignment;
    const std::uint64_t size = element_count(tensor.shape) * checkpoint::dtype_element_size(dtype);
    layout.push_back({tensor.name, tensor.shape, offset, size});
    end = offset + size;
  }
  return layout;
}

std::uint64_t blob_bytes(const std::vector<LaidOutTensor>& layout) {
  return layout.empty() ? 0 : layout.back().offset + layout.back().size;
}

void write_synthetic_checkpoint(const fs::path& out_dir, const fs::path& config_file,
                                const facts::ModelFacts& model, const SyntheticWeights& weights,
                                checkpoint::WriteProgressCallback progress) {
  if (config_file.filename() != "config.json") {
    throw std::invalid_argument(
        "write_synthetic_checkpoint: the side file must be named config.json, not " +
        config_file.filename().string());
  }
  const std::string config_text =
      files::read_bounded(config_file, {facts::kMaxConfigBytes, "a config.json"});
  const json source = {{"config_sha256", manifest::sha256_hex(config_text)},
                       {"synthetic_weights",
                        {{"seed", weights.seed},
                         {"initializer_range", weights.init_std},
                         {"norm_weight_std", kNormWeightStd},
                         {"generator", kGenerator}}}};
  const std::vector<LaidOutTensor> layout = resident_layout(model, weights.dtype);
  checkpoint::ResidentWriter writer(out_dir, weights.dtype, source, facts::facts_to_json(model));
  if (progress) writer.set_progress(blob_bytes(layout), std::move(progress));
  // Gemma's RMSNorm scales by (1 + weight): its norm weights sit around 0.
  const double norm_mean = model.family == facts::Family::gemma3 ? 0.0 : 1.0;
  std::vector<std::byte> bytes;
  for (const LaidOutTensor& tensor : layout) {
    const bool norm = is_norm_weight(tensor.name);
    bytes.resize(tensor.size);
    fill_tensor(weights, tensor.name, norm ? norm_mean : 0.0,
                norm ? kNormWeightStd : weights.init_std, element_count(tensor.shape), bytes);
    writer.add_tensor(tensor.name, tensor.shape, weights.dtype, bytes);
  }
  writer.add_side_file(config_file);
  writer.commit();
}

}  // namespace algenta::host::synthetic
