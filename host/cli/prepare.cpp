// `algenta-host prepare`: converts a Hugging Face checkpoint once into the
// resident format (manifest.json + weights.blob) every engine reads. Every
// tensor is checked against the facts first; output appears atomically.
#include <sys/stat.h>

#include <cstdio>
#include <iostream>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/resident_format.hpp"
#include "checkpoint/sharded_checkpoint.hpp"
#include "cli/checkpoint_probe.hpp"
#include "cli/commands.hpp"
#include "facts/config_parse.hpp"
#include "facts/facts_json.hpp"
#include "facts/tensor_check.hpp"
#include "manifest/crypto.hpp"
#include "cli/progress_bar.hpp"

namespace algenta::host {
namespace fs = std::filesystem;
namespace {

// What the output was made from: the config's digest and each weight file's
// size and modification time. A rerun over unchanged inputs is a no-op.
nlohmann::json describe_source(const std::string& config_text,
                               const checkpoint::ShardedCheckpoint& checkpoint) {
  nlohmann::json files = nlohmann::json::array();
  for (const checkpoint::SafetensorsFile& shard : checkpoint.shards()) {
    struct stat st {};
    ::stat(shard.name().c_str(), &st);
    files.push_back({{"name", fs::path(shard.name()).filename().string()},
                     {"size", shard.file_size()},
                     {"mtime_ns", static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                                      st.st_mtim.tv_nsec}});
  }
  return {{"config_sha256", manifest::sha256_hex(config_text)}, {"weight_files", files}};
}

// What converting to an explicitly asked dtype changed, in one line.
std::string rounding_summary(const checkpoint::RoundingStats& rounding) {
  if (rounding.values == 0) return "nothing to convert: every tensor is stored in that dtype";
  if (rounding.changed == 0) {
    return "no value changed (" + std::to_string(rounding.values) + " values converted exactly)";
  }
  char largest[32];
  std::snprintf(largest, sizeof largest, "%.3g", rounding.max_relative);
  return std::to_string(rounding.changed) + " of " + std::to_string(rounding.values) +
         " converted values changed (largest relative change " + largest + ")";
}

int refuse(const std::vector<facts::Refusal>& refusals) {
  for (const facts::Refusal& r : refusals) std::cerr << "algenta-host prepare: refused: " << r.message << "\n";
  return kExitRefused;
}

int prepare(const PrepareOptions& options) {
  const fs::path dir = options.checkpoint_dir;
  const std::string config_text = read_checkpoint_config(dir);
  const facts::ModelFacts model = facts::parse_model_facts(config_text, (dir / "config.json").string());
  if (const auto refusals = unconvertible_model(model); !refusals.empty()) return refuse(refusals);

  const auto checkpoint = checkpoint::ShardedCheckpoint::open(dir);
  const facts::TensorCheck check = facts::check_tensors(model, observed_tensors(checkpoint));
  if (!check.refusals.empty()) return refuse(check.refusals);

  const bool keep_values = options.dtype == "source";
  const checkpoint::Dtype dtype = keep_values ? value_keeping_dtype(checkpoint, check)
                                              : *checkpoint::resident_dtype_from_name(options.dtype);
  const std::string dtype_label(*checkpoint::resident_dtype_name(dtype));
  const nlohmann::json source = describe_source(config_text, checkpoint);
  if (checkpoint::resident_is_current(options.out_dir, source, dtype)) {
    std::cout << "prepare: " << options.out_dir << " is up to date (" << dtype_label << ")\n";
    return kExitOk;
  }

  checkpoint::ResidentWriter writer(options.out_dir, dtype, source, facts::facts_to_json(model));
  std::uint64_t total = 0;
  for (const auto& [canonical, stored] : check.stored_name) {
    total += checkpoint.locate(stored).info.byte_size();
  }
  ProgressBar bar("prepare");
  writer.set_progress(total, [&](const checkpoint::WriteProgress& p) {
    bar.update(p.bytes_done, p.bytes_total);
  });
  for (const auto& [canonical, stored] : check.stored_name) {
    const auto located = checkpoint.locate(stored);
    writer.add_tensor(canonical, located.info.shape, located.info.dtype, checkpoint.data(stored));
  }
  const std::size_t side_files = writer.add_side_files_from(dir);
  writer.commit();
  std::cout << "prepare: wrote " << check.stored_name.size() << " tensors (" << dtype_label
            << (keep_values ? ", the stored values" : "") << ") and " << side_files
            << " side files to " << options.out_dir << "\n";
  if (!keep_values) {
    std::cout << "prepare: --dtype " << dtype_label << ": " << rounding_summary(writer.rounding())
              << "\n";
  }
  for (const std::string& ignored : check.ignored) std::cout << "  left out: " << ignored << "\n";
  return kExitOk;
}

}  // namespace

int run_prepare(const PrepareOptions& options) {
  try {
    return prepare(options);
  } catch (const facts::FactsError& e) {
    std::cerr << "algenta-host prepare: unusable input: " << e.what() << "\n";
  } catch (const checkpoint::CheckpointError& e) {
    std::cerr << "algenta-host prepare: unusable input: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "algenta-host prepare: " << e.what() << "\n";
  }
  return kExitUsage;
}

}  // namespace algenta::host
