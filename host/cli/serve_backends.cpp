// `algenta-host serve --backends`: every verified backend, its target and
// requirements, and whether this host meets them.
#include <iostream>

#include "cli/commands.hpp"
#include "engine/plugin_catalog.hpp"
#include "engine/plugin_choice.hpp"
#include "engine/plugin_report.hpp"
#include "loader/library_policy.hpp"
#include "loader/verified_loader.hpp"

namespace algenta::host {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "none" : out;
}

// Whether this host meets a backend's requirements: the same selection the
// host would make if asked for the backend by name.
std::string requirement_verdict(const Catalog& catalog, const loader::Candidate& candidate,
                                const loader::GpuProbeResult& gpus) {
  const loader::Selection by_name =
      loader::select_plugin(catalog.candidates, gpus, candidate.entry.name, true);
  if (!by_name.chosen) return "no: " + by_name.failure;
  const auto allowed = loader::allowed_library_directories(catalog.library_directories);
  for (const std::string& soname : candidate.entry.host_libraries) {
    try {
      loader::resolve_host_library(soname, allowed);
    } catch (const std::exception& e) {
      return std::string("no: ") + e.what();
    }
  }
  if (candidate.entry.role == "oracle") return "yes (only when named, with --allow-oracle)";
  const loader::Selection automatic = loader::select_plugin(catalog.candidates, gpus, "auto", false);
  const bool is_auto_choice =
      automatic.chosen && automatic.chosen->entry.name == candidate.entry.name;
  return is_auto_choice ? "yes (automatic choice on this host)"
                        : "yes (by name only; not this GPU's exact target)";
}

int list_catalog(const Catalog& catalog, const loader::GpuProbeResult& gpus) {
  if (catalog.candidates.empty()) {
    std::cout << "no verified backends (see the rejected lines above)\n";
    return kExitRefused;
  }
  for (const loader::Candidate& c : catalog.candidates) {
    const manifest::PluginEntry& e = c.entry;
    std::cout << e.name << "\n"
              << "  role: " << e.role << "\n"
              << "  target: " << e.target << "\n"
              << "  families: " << join(e.families) << "\n"
              << "  host libraries: " << join(e.host_libraries) << "\n"
              << "  minimum NVIDIA driver: "
              << (e.min_driver > 0 ? std::to_string(e.min_driver) : std::string("none")) << "\n"
              << "  bundle: " << c.bundle << "\n"
              << "  this host meets it: " << requirement_verdict(catalog, c, gpus) << "\n";
  }
  return kExitOk;
}

}  // namespace

int list_backends(const HostPaths& paths) {
  return list_catalog(build_logged_catalog(paths, unix_now()), loader::probe_gpus());
}

}  // namespace algenta::host
