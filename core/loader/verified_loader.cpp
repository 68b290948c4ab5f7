// The verified load path: manifest entry -> verified bytes -> sealed memfd ->
// Boost.DLL -> entry point -> cross-check the plugin's table against the
// signed manifest. Only the bytes that were hashed can run.
#include "loader/verified_loader.hpp"

#include "loader/table_check.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/dll/shared_library.hpp>
#include <cerrno>
#include <cstring>

namespace algenta::loader {

// The sealed memfd stays open while the library is loaded: the dynamic
// linker knows the library by its path "/proc/self/fd/N", and a closed N
// would be handed to the next plugin's memfd, whose dlopen would then
// return this library instead of loading its own.
struct LoadedPlugin::Library {
  boost::dll::shared_library library;
  int fd = -1;
  ~Library() {
    library.unload();
    if (fd >= 0) ::close(fd);
  }
};

LoadedPlugin::~LoadedPlugin() = default;

namespace {

const char* role_name(AlgentaRole role) {
  switch (role) {
    case ALGENTA_ROLE_ENGINE: return "engine";
    case ALGENTA_ROLE_ORACLE: return "oracle";
  }
  return "unknown";
}

// Copies the verified bytes into an anonymous file and seals it, so neither
// this process nor anyone else can change what the dynamic linker maps.
int sealed_memfd_with(const std::string& bytes, const std::string& name) {
  const int fd = ::memfd_create(("algenta-plugin:" + name).c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) throw LoadError(std::string("memfd_create failed: ") + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = errno;
      ::close(fd);
      throw LoadError(std::string("writing the plugin into memory failed: ") + std::strerror(saved));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    const int saved = errno;
    ::close(fd);
    throw LoadError(std::string("sealing the in-memory plugin failed: ") + std::strerror(saved));
  }
  return fd;
}

void check_abi_declared(const manifest::PluginEntry& entry) {
  if (entry.abi_major != ALGENTA_ABI_MAJOR) {
    throw LoadError(entry.name + ": the manifest declares ABI major " +
                    std::to_string(entry.abi_major) + "; this host speaks ABI major " +
                    std::to_string(ALGENTA_ABI_MAJOR));
  }
  if (entry.abi_minor > ALGENTA_ABI_MINOR) {
    throw LoadError(entry.name + ": the manifest declares ABI " + std::to_string(entry.abi_major) +
                    "." + std::to_string(entry.abi_minor) + "; this host provides ABI " +
                    std::to_string(ALGENTA_ABI_MAJOR) + "." + std::to_string(ALGENTA_ABI_MINOR) +
                    " (upgrade algenta-host)");
  }
}

// The loaded code must be what the signed manifest claims it is.
void check_table_matches(const AlgentaPluginV1* table, const manifest::PluginEntry& entry) {
  const std::string who = entry.name + " (" + entry.file + ")";
  check_plugin_table(table, who);
  const AlgentaDescriptor& d = *table->descriptor;
  const auto text = [](const char* s) { return std::string(s != nullptr ? s : "(null)"); };
  if (text(d.name) != entry.name) {
    throw LoadError(who + ": descriptor name '" + text(d.name) + "' disagrees with manifest name '" +
                    entry.name + "'");
  }
  if (text(d.target) != entry.target) {
    throw LoadError(who + ": descriptor target '" + text(d.target) +
                    "' disagrees with manifest target '" + entry.target + "'");
  }
  if (role_name(d.role) != entry.role) {
    throw LoadError(who + ": descriptor role '" + role_name(d.role) +
                    "' disagrees with manifest role '" + entry.role + "'");
  }
}

}  // namespace

std::unique_ptr<LoadedPlugin> load_verified_plugin(const std::filesystem::path& bundle,
                                                   const manifest::PluginEntry& entry,
                                                   const std::function<void()>& after_verify,
                                                   const std::vector<std::filesystem::path>& library_directories) {
  check_abi_declared(entry);
  const std::string bytes = read_verified_plugin_bytes(bundle, entry);
  if (after_verify) after_verify();
  const std::vector<std::filesystem::path> allowed = allowed_library_directories(library_directories);
  check_verified_image_dependencies(bytes, entry, allowed);

  std::unique_ptr<LoadedPlugin> plugin(new LoadedPlugin());
  plugin->entry_ = entry;
  plugin->host_libraries_ = preload_host_libraries(entry.host_libraries, allowed);
  plugin->library_ = std::make_unique<LoadedPlugin::Library>();
  plugin->library_->fd = sealed_memfd_with(bytes, entry.name);
  try {
    plugin->library_->library.load(
        "/proc/self/fd/" + std::to_string(plugin->library_->fd),
        boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw LoadError(entry.name + " (" + entry.file + ") failed to load: " + e.what());
  }

  const boost::dll::shared_library& library = plugin->library_->library;
  if (!library.has(ALGENTA_PLUGIN_ENTRY_SYMBOL)) {
    throw LoadError(entry.name + " (" + entry.file + ") does not export " +
                    ALGENTA_PLUGIN_ENTRY_SYMBOL);
  }
  auto& entry_fn = library.get<const AlgentaPluginV1*(std::uint32_t)>(ALGENTA_PLUGIN_ENTRY_SYMBOL);
  const AlgentaPluginV1* table = entry_fn(ALGENTA_ABI_MAJOR);
  check_table_matches(table, entry);
  plugin->table_ = table;
  return plugin;
}

}  // namespace algenta::loader
