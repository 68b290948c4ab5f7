// `algenta-host kernels`: the kernel inventory each plugin declares about
// itself (name, role, module, families), asked of the plugins through the ABI.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "engine/plugin_declarations.hpp"
#include "engine/plugin_report.hpp"

namespace algenta::host {
namespace {

bool serves_family(const KernelDeclaration& kernel, const std::string& family) {
  if (family.empty() || kernel.families == "*") return true;
  return ("," + kernel.families + ",").find("," + family + ",") != std::string::npos;
}

}  // namespace

int run_kernels(const HostPaths& paths, const KernelsOptions& options) {
  try {
    const Catalog catalog = build_catalog(paths, unix_now());
    log_rejections(catalog.rejected);
    nlohmann::json inventory = nlohmann::json::object();
    for (const PluginDeclaration& plugin :
         load_declarations(catalog, loader::probe_gpus(), options.backend)) {
      nlohmann::json kernels = nlohmann::json::array();
      for (const KernelDeclaration& k : plugin.kernels) {
        if (!serves_family(k, options.family)) continue;
        kernels.push_back({{"name", k.name}, {"role", k.role}, {"module", k.module},
                           {"families", k.families}});
      }
      inventory[plugin.candidate.entry.name] = kernels;
    }
    if (options.json) {
      std::cout << inventory.dump(2) << "\n";
      return kExitOk;
    }
    for (const auto& [plugin, kernels] : inventory.items()) {
      std::cout << plugin << ": " << kernels.size() << " kernels"
                << (options.family.empty() ? "" : " for " + options.family) << "\n";
      for (const auto& k : kernels) {
        std::cout << "  " << k["name"].get<std::string>() << "  role=" << k["role"].get<std::string>()
                  << "  module=" << k["module"].get<std::string>()
                  << "  families=" << k["families"].get<std::string>() << "\n";
      }
    }
    return kExitOk;
  } catch (const std::exception& e) {
    std::cerr << "algenta-host kernels: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace algenta::host
