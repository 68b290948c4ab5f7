// The host's one path from "which backend?" to a loaded plugin: verify the
// bundles, probe the GPU, select exactly one plugin, load it through the
// verified path. Rejections are logged one line each on stderr.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "engine/host_paths.hpp"
#include "loader/verified_loader.hpp"
#include "engine/plugin_catalog.hpp"

namespace algenta::host {

// Selection or verification refused: what() names the missing fact.
struct ChoiceRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// backend: auto | cuda | a plugin name. A named oracle is loaded only when
// allow_oracle is set.
std::unique_ptr<loader::LoadedPlugin> choose_and_load(const HostPaths& paths,
                                                      const std::string& backend,
                                                      bool allow_oracle);

// The same from a catalog already built, for commands that load two plugins
// (verify: the plugin under test and the cpu_oracle it is checked against).
std::unique_ptr<loader::LoadedPlugin> choose_and_load(const Catalog& catalog,
                                                      const std::string& backend,
                                                      bool allow_oracle);

// The two halves of choose_and_load, for a command that checks the chosen
// build (bench: its verify record) before any of its code is loaded.
// choose_plugin throws ChoiceRefused naming why nothing was chosen;
// load_chosen_plugin throws ChoiceRefused naming why it could not be loaded.
loader::Candidate choose_plugin(const Catalog& catalog, const std::string& backend,
                                bool allow_oracle);
std::unique_ptr<loader::LoadedPlugin> load_chosen_plugin(const Catalog& catalog,
                                                         const loader::Candidate& chosen);

}  // namespace algenta::host
