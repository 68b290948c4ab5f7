// Descriptor reading for the packaging side. Loading runs the plugin's static
// initialisers, which is acceptable here: the packager built these files and
// is about to vouch for them with its key. The host never does this before
// the manifest has been verified.
#include "describe_plugin.hpp"

#include <dlfcn.h>

#include <memory>

#include "algenta/plugin_abi.h"

namespace algenta::sign {
namespace {

struct LibraryClose {
  void operator()(void* handle) const { ::dlclose(handle); }
};
using LibraryHandle = std::unique_ptr<void, LibraryClose>;

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& why) {
  throw DescribeError("plugin " + file.string() + ": " + why);
}

std::string required_text(const std::filesystem::path& file, const char* text,
                          const std::string& field) {
  if (text == nullptr) fail(file, "descriptor " + field + " is NULL");
  return text;
}

std::vector<std::string> text_list(const std::filesystem::path& file, const char* const* items,
                                   std::size_t count, const std::string& field) {
  if (count > 0 && items == nullptr) fail(file, "descriptor " + field + " is NULL");
  std::vector<std::string> list;
  for (std::size_t i = 0; i < count; ++i) {
    list.push_back(required_text(file, items[i], field + "[" + std::to_string(i) + "]"));
  }
  return list;
}

std::string role_name(const std::filesystem::path& file, AlgentaRole role) {
  switch (role) {
    case ALGENTA_ROLE_ENGINE:
      return "engine";
    case ALGENTA_ROLE_ORACLE:
      return "oracle";
  }
  fail(file, "descriptor role " + std::to_string(static_cast<int>(role)) +
                 " is neither engine (1) nor oracle (2)");
}

}  // namespace

manifest::PluginEntry describe_plugin(const std::filesystem::path& file) {
  // An absolute path keeps dlopen from searching the library path instead.
  const std::filesystem::path path = std::filesystem::absolute(file);
  ::dlerror();
  LibraryHandle library(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!library) fail(file, std::string("dlopen failed: ") + ::dlerror());

  const auto entry_point = reinterpret_cast<AlgentaPluginEntryFn>(
      ::dlsym(library.get(), ALGENTA_PLUGIN_ENTRY_SYMBOL));
  if (entry_point == nullptr) {
    fail(file, std::string("does not export ") + ALGENTA_PLUGIN_ENTRY_SYMBOL);
  }
  const AlgentaPluginV1* table = entry_point(ALGENTA_ABI_MAJOR);
  if (table == nullptr) {
    fail(file, "returned no table for ABI major " + std::to_string(ALGENTA_ABI_MAJOR) +
                   " (built for another major)");
  }
  if (!ALGENTA_STRUCT_HAS(table, AlgentaPluginV1, descriptor) || table->descriptor == nullptr) {
    fail(file, "table has no descriptor");
  }
  const AlgentaDescriptor* descriptor = table->descriptor;
  if (!ALGENTA_STRUCT_HAS(descriptor, AlgentaDescriptor, host_library_count)) {
    fail(file, "descriptor is " + std::to_string(descriptor->struct_size) +
                   " bytes, too small for ABI " + std::to_string(ALGENTA_ABI_MAJOR) + "." +
                   std::to_string(ALGENTA_ABI_MINOR));
  }

  // Copy everything out: the strings live in the library, closed on return.
  manifest::PluginEntry entry;
  entry.name = required_text(file, descriptor->name, "name");
  entry.role = role_name(file, descriptor->role);
  entry.target = required_text(file, descriptor->target, "target");
  entry.abi_major = table->abi_major;
  entry.abi_minor = table->abi_minor;
  entry.families = text_list(file, descriptor->families, descriptor->family_count, "families");
  entry.host_libraries = text_list(file, descriptor->host_libraries,
                                   descriptor->host_library_count, "host_libraries");
  return entry;
}

}  // namespace algenta::sign
