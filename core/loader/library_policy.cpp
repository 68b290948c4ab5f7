#include "loader/library_policy.hpp"

#include <algorithm>
#include <optional>

#include "loader/verified_loader.hpp"
#include "path_trust/path_trust.hpp"

namespace algenta::loader {
namespace fs = std::filesystem;
namespace {

std::string joined(const std::vector<fs::path>& directories) {
  std::string text;
  for (const fs::path& d : directories) text += (text.empty() ? "" : ", ") + d.string();
  return text;
}

// "/usr/lib/" and "/usr/lib" name one directory.
fs::path normal_directory(const fs::path& directory) {
  fs::path normal = directory.lexically_normal();
  if (normal.has_relative_path() && normal.filename().empty()) normal = normal.parent_path();
  return normal;
}

bool contains(const std::vector<fs::path>& directories, const fs::path& directory) {
  return std::find(directories.begin(), directories.end(), directory) != directories.end();
}

void check_search_entries(const std::vector<std::string>& entries, const char* tag,
                          const manifest::PluginEntry& plugin,
                          const std::vector<fs::path>& allowed) {
  const std::string who = plugin.name + " (" + plugin.file + ")";
  for (const std::string& entry : entries) {
    const std::string named = who + ": " + tag + " entry '" + entry + "'";
    if (entry.empty()) {
      throw LoadError(named + " is empty, which makes the dynamic linker search the working directory");
    }
    if (entry.find('$') != std::string::npos) {
      throw LoadError(named + " contains '$' ($ORIGIN and the like are not allowed)");
    }
    if (entry.front() != '/') {
      throw LoadError(named + " is relative, which makes the dynamic linker search from the working directory");
    }
    if (!contains(allowed, normal_directory(entry))) {
      throw LoadError(named + " is not an allowed library directory (allowed: " +
                      joined(allowed) + ")");
    }
  }
}

std::optional<fs::path> find_in(const std::string& soname, const std::vector<fs::path>& directories) {
  for (const fs::path& directory : directories) {
    std::error_code error;
    const fs::path candidate = directory / soname;
    if (fs::is_regular_file(candidate, error)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

const std::vector<fs::path>& system_library_directories() {
  static const std::vector<fs::path> directories = {
      "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib", "/lib64", "/usr/lib64"};
  return directories;
}

std::vector<fs::path> allowed_library_directories(const std::vector<fs::path>& configured) {
  std::vector<fs::path> allowed = system_library_directories();
  for (const fs::path& directory : configured) {
    const fs::path normal = normal_directory(directory);
    if (!contains(allowed, normal)) allowed.push_back(normal);
  }
  return allowed;
}

void check_dynamic_dependencies(const ElfDynamic& dynamic, const manifest::PluginEntry& entry,
                                const std::vector<fs::path>& allowed) {
  check_search_entries(dynamic.rpath, "RPATH", entry, allowed);
  check_search_entries(dynamic.runpath, "RUNPATH", entry, allowed);
  const std::string who = entry.name + " (" + entry.file + ")";
  for (const std::string& needed : dynamic.needed) {
    if (needed.find('/') != std::string::npos) {
      throw LoadError(who + ": NEEDED library '" + needed + "' is a path; only sonames are allowed");
    }
    const auto& declared = entry.host_libraries;
    if (std::find(declared.begin(), declared.end(), needed) != declared.end()) continue;
    const std::optional<fs::path> system = find_in(needed, system_library_directories());
    if (!system) {
      throw LoadError(who + ": NEEDED library " + needed +
                      " is neither a system library (in " + joined(system_library_directories()) +
                      ") nor declared in the manifest's host_libraries");
    }
    if (const auto why = path_trust::untrusted_reason(*system, "system library")) {
      throw LoadError(who + ": NEEDED library " + needed + ": " + *why);
    }
  }
}

void check_verified_image_dependencies(std::string_view image, const manifest::PluginEntry& entry,
                                       const std::vector<fs::path>& allowed) {
  ElfDynamic dynamic;
  try {
    dynamic = read_elf_dynamic(image);
  } catch (const ElfError& error) {
    throw LoadError(entry.name + " (" + entry.file + "): " + error.what());
  }
  check_dynamic_dependencies(dynamic, entry, allowed);
}

fs::path resolve_host_library(const std::string& soname, const std::vector<fs::path>& allowed) {
  if (soname.find('/') != std::string::npos) {
    throw LoadError("declared host library '" + soname +
                    "' is a path; only sonames are allowed (e.g. libcublas.so.13)");
  }
  const std::optional<fs::path> path = find_in(soname, allowed);
  if (!path) {
    throw LoadError("declared host library " + soname + " cannot be loaded: not found in " +
                    joined(allowed));
  }
  if (const auto why = path_trust::untrusted_reason(*path, "host library")) {
    throw LoadError("declared host library " + soname + " cannot be trusted: " + *why);
  }
  return *path;
}

}  // namespace algenta::loader
