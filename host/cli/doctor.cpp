// `algenta-host doctor`: everything an operator needs to see why this host
// would or would not serve: driver, GPUs, keyring, bundles and their
// verdicts, every plugin file's digest, host libraries, and the selection.
#include <iostream>
#include <set>

#include "cli/commands.hpp"
#include "loader/library_policy.hpp"
#include "loader/verified_loader.hpp"
#include "engine/plugin_catalog.hpp"
#include "engine/plugin_report.hpp"

namespace algenta::host {
namespace {

void report_driver(const loader::GpuProbeResult& gpus) {
  std::cout << "driver:\n";
  if (!gpus.driver_found || gpus.devices.empty()) {
    std::cout << "  no NVIDIA accelerator usable: " << gpus.driver_problem << "\n";
  }
  if (!gpus.driver_version.empty()) std::cout << "  NVIDIA driver " << gpus.driver_version << "\n";
  if (gpus.cuda_driver_api > 0) {
    std::cout << "  CUDA driver API " << gpus.cuda_driver_api / 1000 << "."
              << (gpus.cuda_driver_api % 1000) / 10 << "\n";
  }
  std::cout << "GPUs: " << gpus.devices.size() << "\n";
  for (const loader::GpuDevice& gpu : gpus.devices) {
    std::cout << "  " << gpu.ordinal << ": " << describe_gpu(gpu) << " -> needs target "
              << loader::target_for_capability(gpu.major, gpu.minor) << "\n";
  }
}

void report_bundles(const HostPaths& paths, const Catalog& catalog) {
  std::cout << "keyring: " << paths.keyring_dir.string() << "\n";
  if (!catalog.keyring_problem.empty()) std::cout << "  problem: " << catalog.keyring_problem << "\n";
  std::cout << "bundles under " << paths.plugins_root.string() << ":\n";
  for (const manifest::BundleVerdict& b : catalog.bundles) {
    if (!b.accepted) {
      std::cout << "  " << b.directory.string() << ": refused: " << b.reason << "\n";
      continue;
    }
    const manifest::Manifest& m = *b.manifest;
    std::cout << "  " << b.directory.string() << ": accepted (version " << m.version << ", key "
              << m.key_id << ", expires " << m.expires << ")\n";
    for (const manifest::PluginEntry& e : m.plugins) {
      std::string verdict = "digest ok";
      try {
        loader::read_verified_plugin_bytes(b.directory, e);
      } catch (const std::exception& error) {
        verdict = std::string("REFUSED: ") + error.what();
      }
      std::cout << "    " << e.name << "  " << e.role << "  " << e.target << "  " << e.file << "  "
                << verdict << "\n";
    }
  }
  for (const loader::Rejection& r : catalog.rejected) {
    std::cout << "  rejected " << r.plugin << ": " << r.reason << "\n";
  }
}

// Where each declared host library would be loaded from: the first allowed
// directory (system, then the host configuration's) that holds it.
void report_host_libraries(const HostPaths& paths, const Catalog& catalog) {
  std::set<std::string> sonames;
  for (const loader::Candidate& c : catalog.candidates) {
    sonames.insert(c.entry.host_libraries.begin(), c.entry.host_libraries.end());
  }
  const std::vector<std::filesystem::path> allowed =
      loader::allowed_library_directories(catalog.library_directories);
  std::cout << "host configuration: " << paths.host_config.string() << "\n";
  std::cout << "library directories:";
  for (const std::filesystem::path& directory : allowed) std::cout << " " << directory.string();
  std::cout << "\nhost libraries:\n";
  for (const std::string& soname : sonames) {
    try {
      std::cout << "  " << soname << ": " << loader::resolve_host_library(soname, allowed).string()
                << "\n";
    } catch (const std::exception& e) {
      std::cout << "  " << soname << ": MISSING (" << e.what() << ")\n";
    }
  }
}

// Selects as `serve --backend auto` would, and loads the choice through the
// verified path so its descriptor is what the plugin itself answers.
bool report_selection(const Catalog& catalog, const loader::GpuProbeResult& gpus) {
  const loader::Selection selection = loader::select_plugin(catalog.candidates, gpus, "auto", false);
  std::cout << "selection (--backend auto):\n";
  for (const loader::Rejection& r : selection.rejected) {
    std::cout << "  not chosen " << r.plugin << ": " << r.reason << "\n";
  }
  if (!selection.chosen) {
    std::cout << "  none: " << selection.failure << "\n";
    return false;
  }
  std::cout << "  selected " << selection.chosen->entry.name << " from "
            << selection.chosen->bundle << "\n";
  try {
    const auto plugin = loader::load_verified_plugin(
        selection.chosen->bundle, selection.chosen->entry, {}, catalog.library_directories);
    std::cout << "  loaded through the verified path (sealed memfd); descriptor: "
              << describe_descriptor(plugin->table()) << "\n";
    for (const loader::HostLibrary& library : plugin->host_libraries()) {
      std::cout << "  host library " << library.soname << " loaded from " << library.path.string()
                << "\n";
    }
  } catch (const std::exception& e) {
    std::cout << "  load REFUSED: " << e.what() << "\n";
    return false;
  }
  return true;
}

}  // namespace

int run_doctor(const HostPaths& paths) {
  const loader::GpuProbeResult gpus = loader::probe_gpus();
  report_driver(gpus);
  const Catalog catalog = build_catalog(paths, unix_now());
  report_bundles(paths, catalog);
  report_host_libraries(paths, catalog);
  const bool selected = report_selection(catalog, gpus);
  return selected ? kExitOk : kExitRefused;
}

}  // namespace algenta::host
