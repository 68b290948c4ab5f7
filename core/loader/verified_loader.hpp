// Loads one plugin from the bytes that were verified: open once with
// O_NOFOLLOW, check owner and mode, read, check size and SHA-256 against the
// manifest entry, copy into a sealed memfd, load that with Boost.DLL
// (RTLD_NOW | RTLD_LOCAL). The file is never opened again by path.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "algenta/plugin_abi.h"
#include "loader/library_policy.hpp"
#include "manifest/manifest.hpp"

namespace algenta::loader {

struct LoadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads and verifies a listed plugin file; throws LoadError naming the fact
// (symlink, world-writable, foreign owner, size or digest mismatch, missing).
std::string read_verified_plugin_bytes(const std::filesystem::path& bundle,
                                       const manifest::PluginEntry& entry);

// Resolves each soname to an absolute path in `allowed` (first match, see
// resolve_host_library) and dlopen()s that path with RTLD_NOW | RTLD_GLOBAL so
// the plugin's NEEDED entries resolve (a memfd has no usable $ORIGIN);
// throws naming a missing or untrusted one. Returns where each came from.
std::vector<HostLibrary> preload_host_libraries(const std::vector<std::string>& sonames,
                                                const std::vector<std::filesystem::path>& allowed);

class LoadedPlugin {
 public:
  ~LoadedPlugin();
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;

  const AlgentaPluginV1& table() const { return *table_; }
  const AlgentaDescriptor& descriptor() const { return *table_->descriptor; }
  const manifest::PluginEntry& entry() const { return entry_; }
  // The declared host libraries, in order, and the paths they were loaded from.
  const std::vector<HostLibrary>& host_libraries() const { return host_libraries_; }

 private:
  friend std::unique_ptr<LoadedPlugin> load_verified_plugin(
      const std::filesystem::path&, const manifest::PluginEntry&,
      const std::function<void()>&, const std::vector<std::filesystem::path>&);
  LoadedPlugin() = default;
  struct Library;
  std::unique_ptr<Library> library_;
  const AlgentaPluginV1* table_ = nullptr;
  manifest::PluginEntry entry_;
  std::vector<HostLibrary> host_libraries_;
};

// The whole verified path; after_verify runs between verification and loading
// (tests use it to swap the file on disk). Before loading, the verified image's
// RPATH/RUNPATH and NEEDED entries must pass check_dynamic_dependencies with
// the system directories plus `library_directories` (from the host
// configuration). Cross-checks the plugin's table against the manifest: ABI
// major and minor, name, role, target.
std::unique_ptr<LoadedPlugin> load_verified_plugin(
    const std::filesystem::path& bundle, const manifest::PluginEntry& entry,
    const std::function<void()>& after_verify = {},
    const std::vector<std::filesystem::path>& library_directories = {});

}  // namespace algenta::loader
