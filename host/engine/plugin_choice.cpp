#include "engine/plugin_choice.hpp"

#include <iostream>

#include "loader/gpu_probe.hpp"
#include "loader/selection.hpp"
#include "engine/plugin_catalog.hpp"
#include "engine/plugin_report.hpp"

namespace algenta::host {

std::unique_ptr<loader::LoadedPlugin> choose_and_load(const HostPaths& paths,
                                                      const std::string& backend,
                                                      bool allow_oracle) {
  return choose_and_load(build_logged_catalog(paths, unix_now()), backend, allow_oracle);
}

std::unique_ptr<loader::LoadedPlugin> choose_and_load(const Catalog& catalog,
                                                      const std::string& backend,
                                                      bool allow_oracle) {
  return load_chosen_plugin(catalog, choose_plugin(catalog, backend, allow_oracle));
}

loader::Candidate choose_plugin(const Catalog& catalog, const std::string& backend,
                                bool allow_oracle) {
#ifndef ALGENTA_HAVE_CUDA_ENGINES
  if (backend == "auto" || backend == "cuda") {
    throw ChoiceRefused(
        "this algenta-host was built without CUDA engines (configured with "
        "-DALGENTA_CUDA=OFF); rebuild with -DALGENTA_CUDA=ON, or run the oracle explicitly "
        "with --plugin cpu_oracle --allow-oracle");
  }
#endif
  const loader::Selection selection =
      loader::select_plugin(catalog.candidates, loader::probe_gpus(), backend, allow_oracle);
  log_rejections(selection.rejected);
  if (!selection.chosen) throw ChoiceRefused(selection.failure);
  return *selection.chosen;
}

std::unique_ptr<loader::LoadedPlugin> load_chosen_plugin(const Catalog& catalog,
                                                         const loader::Candidate& chosen) {
  try {
    auto plugin = loader::load_verified_plugin(chosen.bundle, chosen.entry, {},
                                              catalog.library_directories);
    std::cerr << "selected " << describe_descriptor(plugin->table()) << "\n";
    return plugin;
  } catch (const std::exception& e) {
    throw ChoiceRefused("refused to load " + chosen.entry.name + ": " + e.what());
  }
}

}  // namespace algenta::host
