#include "loader/selection.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace algenta::loader {
namespace {

constexpr std::string_view kEngineRole = "engine";
constexpr std::string_view kOracleRole = "oracle";
constexpr std::string_view kCpuTarget = "cpu";
constexpr std::string_view kDefaultOracleName = "cpu_oracle";
constexpr std::string_view kOracleNeverAutomatic = "oracle: never selected automatically";

bool is_oracle(const Candidate& candidate) { return candidate.entry.role == kOracleRole; }
bool is_engine(const Candidate& candidate) { return candidate.entry.role == kEngineRole; }

bool has_gpu(const GpuProbeResult& gpus) { return gpus.driver_found && !gpus.devices.empty(); }

// Everything but a CPU target runs on the NVIDIA GPU; unknown targets are
// treated as GPU targets so a missing accelerator is never papered over.
bool needs_nvidia_gpu(const manifest::PluginEntry& entry) { return entry.target != kCpuTarget; }

std::string capability_of(const GpuDevice& gpu) {
  return std::to_string(gpu.major) + "." + std::to_string(gpu.minor);
}

std::string join(const std::vector<std::string>& items) {
  if (items.empty()) return "none";
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += ", ";
    text += item;
  }
  return text;
}

// "cuda_sm90a (bundle vendor)": the same name may come from two bundles.
std::string name_with_bundle(const Candidate& candidate) {
  if (candidate.bundle.empty()) return candidate.entry.name;
  return candidate.entry.name + " (bundle " + candidate.bundle + ")";
}

std::string oracle_name(const std::vector<Candidate>& candidates) {
  const auto oracle = std::find_if(candidates.begin(), candidates.end(), is_oracle);
  return oracle != candidates.end() ? oracle->entry.name : std::string(kDefaultOracleName);
}

std::string cpu_check_hint(const std::vector<Candidate>& candidates) {
  return "For a CPU-only check run with --plugin " + oracle_name(candidates) +
         " --allow-oracle";
}

std::string why_no_gpu(const GpuProbeResult& gpus) {
  if (!gpus.driver_problem.empty()) return gpus.driver_problem;
  if (!gpus.driver_found) return "the NVIDIA driver library could not be loaded";
  return "the driver reports 0 CUDA devices";
}

std::string no_gpu_failure(const GpuProbeResult& gpus, const std::vector<Candidate>& candidates) {
  return "no NVIDIA GPU found: " + why_no_gpu(gpus) +
         "; algenta-host serves only on an NVIDIA accelerator (compute capability 7.5, "
         "8.0, 8.9 or 9.0). " +
         cpu_check_hint(candidates);
}

// A plugin built against a newer driver fails at load or, worse, mid-run:
// refuse up front, and refuse when the version is unknown (fail closed).
std::optional<std::string> driver_refusal(const manifest::PluginEntry& entry,
                                          const GpuProbeResult& gpus) {
  if (entry.min_driver == 0) return std::nullopt;
  const std::string minimum = std::to_string(entry.min_driver);
  if (gpus.driver_major <= 0) {
    return entry.name + " declares the minimum NVIDIA driver " + minimum +
           ", but the installed driver's version could not be read";
  }
  if (static_cast<std::uint32_t>(gpus.driver_major) < entry.min_driver) {
    const std::string installed = gpus.driver_version.empty()
                                      ? std::to_string(gpus.driver_major)
                                      : gpus.driver_version;
    return "driver " + installed + " is older than the minimum " + minimum + " that " +
           entry.name + " declares";
  }
  return std::nullopt;
}

// Reasons are kept per candidate so `rejected` follows the candidates' order.
class SelectionBuilder {
 public:
  explicit SelectionBuilder(const std::vector<Candidate>& candidates)
      : candidates_(candidates), reasons_(candidates.size()) {}

  void reject(std::size_t index, std::string reason) { reasons_[index] = std::move(reason); }

  Selection choose(std::size_t index) {
    Selection selection = finish();
    selection.chosen = candidates_[index];
    return selection;
  }

  Selection refuse(std::string failure) {
    Selection selection = finish();
    selection.failure = std::move(failure);
    return selection;
  }

 private:
  Selection finish() const {
    Selection selection;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      if (reasons_[i]) selection.rejected.push_back({candidates_[i].entry.name, *reasons_[i]});
    }
    return selection;
  }

  const std::vector<Candidate>& candidates_;
  std::vector<std::optional<std::string>> reasons_;
};

Selection select_for_gpu(const std::vector<Candidate>& candidates, const GpuProbeResult& gpus) {
  SelectionBuilder builder(candidates);
  if (!has_gpu(gpus)) {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const Candidate& candidate = candidates[i];
      builder.reject(i, is_oracle(candidate)
                            ? std::string(kOracleNeverAutomatic)
                            : "no NVIDIA GPU to run target " + candidate.entry.target);
    }
    return builder.refuse(no_gpu_failure(gpus, candidates));
  }

  // The host serves on one GPU: the first the driver lists (CUDA ordinal 0;
  // CUDA_VISIBLE_DEVICES decides which physical card that is).
  const GpuDevice& gpu = gpus.devices.front();
  const std::string needed = target_for_capability(gpu.major, gpu.minor);
  const std::string gpu_label = "GPU " + std::to_string(gpu.ordinal);

  std::vector<std::size_t> matches;
  std::vector<std::string> targets_on_offer;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const manifest::PluginEntry& entry = candidates[i].entry;
    if (is_oracle(candidates[i])) {
      builder.reject(i, std::string(kOracleNeverAutomatic));
      continue;
    }
    if (!is_engine(candidates[i])) {
      builder.reject(i, "role '" + entry.role + "' is neither engine nor oracle");
      continue;
    }
    if (std::find(targets_on_offer.begin(), targets_on_offer.end(), entry.target) ==
        targets_on_offer.end()) {
      targets_on_offer.push_back(entry.target);
    }
    if (entry.target != needed) {
      builder.reject(i, "target " + entry.target + " != " + needed + " needed by " + gpu_label +
                            " (" + capability_of(gpu) + ")");
      continue;
    }
    matches.push_back(i);
  }

  if (matches.empty()) {
    return builder.refuse(gpu_label + " (" + gpu.name + ") has compute capability " +
                          capability_of(gpu) + " and needs target " + needed +
                          "; engines on offer: " + join(targets_on_offer));
  }
  if (matches.size() > 1) {
    std::vector<std::string> names;
    for (std::size_t i : matches) names.push_back(name_with_bundle(candidates[i]));
    const std::string reason = "ambiguous: " + std::to_string(matches.size()) +
                               " engines declare target " + needed + ": " + join(names);
    for (std::size_t i : matches) builder.reject(i, reason);
    return builder.refuse(reason + "; refusing to guess, choose one with --plugin NAME");
  }

  const std::size_t match = matches.front();
  if (auto refusal = driver_refusal(candidates[match].entry, gpus)) {
    builder.reject(match, *refusal);
    return builder.refuse(*refusal);
  }
  return builder.choose(match);
}

Selection select_by_name(const std::vector<Candidate>& candidates, const GpuProbeResult& gpus,
                         const std::string& name, bool allow_oracle) {
  SelectionBuilder builder(candidates);
  std::vector<std::size_t> matches;
  std::vector<std::string> names_on_offer;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    names_on_offer.push_back(candidates[i].entry.name);
    if (candidates[i].entry.name == name) {
      matches.push_back(i);
    } else {
      builder.reject(i, "not the requested plugin (--plugin " + name + ")");
    }
  }

  if (matches.empty()) {
    return builder.refuse("no plugin named '" + name + "' in the verified manifests; " +
                          "plugins on offer: " + join(names_on_offer));
  }
  if (matches.size() > 1) {
    std::vector<std::string> listed;
    for (std::size_t i : matches) listed.push_back(name_with_bundle(candidates[i]));
    const std::string reason = "ambiguous: " + std::to_string(matches.size()) +
                               " bundles list a plugin named " + name + ": " + join(listed);
    for (std::size_t i : matches) builder.reject(i, reason);
    return builder.refuse(reason + "; refusing to guess, remove one of the bundles");
  }

  const std::size_t match = matches.front();
  const Candidate& candidate = candidates[match];
  const auto refuse = [&](const std::string& reason) {
    builder.reject(match, reason);
    return builder.refuse(reason);
  };
  if (is_oracle(candidate) && !allow_oracle) {
    return refuse(name + " is the verification oracle; pass --allow-oracle to run it explicitly");
  }
  if (!is_oracle(candidate) && !is_engine(candidate)) {
    return refuse(name + " has role '" + candidate.entry.role + "', neither engine nor oracle");
  }
  // The override may pick another target than the GPU's (e.g. sm_80 PTX on
  // Hopper), but a GPU target still needs an NVIDIA GPU to run on.
  if (needs_nvidia_gpu(candidate.entry) && !has_gpu(gpus)) {
    return refuse(name + " (target " + candidate.entry.target +
                  ") needs an NVIDIA accelerator and no NVIDIA GPU was found: " +
                  why_no_gpu(gpus) + ". " + cpu_check_hint(candidates));
  }
  if (auto refusal = driver_refusal(candidate.entry, gpus)) return refuse(*refusal);
  return builder.choose(match);
}

}  // namespace

std::string target_for_capability(int major, int minor) {
  // Hopper engines use wgmma/TMA, which exist only in the arch-specific sm_90a.
  if (major == 9 && minor == 0) return "sm_90a";
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

Selection select_plugin(const std::vector<Candidate>& candidates, const GpuProbeResult& gpus,
                        const std::string& backend, bool allow_oracle) {
  if (backend == "auto" || backend == "cuda") return select_for_gpu(candidates, gpus);
  return select_by_name(candidates, gpus, backend, allow_oracle);
}

}  // namespace algenta::loader
