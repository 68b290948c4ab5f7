// Exact-target selection: the engine whose target equals the GPU's compute
// capability. Capability claims come from verified manifests; nothing is
// loaded to ask it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loader/gpu_probe.hpp"
#include "manifest/manifest.hpp"

namespace algenta::loader {

struct Candidate {
  std::string bundle;  // bundle directory (for messages)
  manifest::PluginEntry entry;
};

struct Rejection {
  std::string plugin;
  std::string reason;  // one line
};

struct Selection {
  std::optional<Candidate> chosen;
  std::string failure;  // set when nothing was chosen: names the missing fact
  std::vector<Rejection> rejected;  // every candidate not chosen, with its reason
};

// "sm_90a" for 9.0, "sm_75" for 7.5, ...: the target built for a capability.
std::string target_for_capability(int major, int minor);

// backend: "auto" or "cuda" (engines matching the GPU) or a plugin name
// (explicit override; the only way an oracle is chosen, and then only when
// allow_oracle is set).
Selection select_plugin(const std::vector<Candidate>& candidates,
                        const GpuProbeResult& gpus, const std::string& backend,
                        bool allow_oracle);

}  // namespace algenta::loader
