// Which code the dynamic linker may pull in for a plugin. A plugin runs from
// a sealed memfd, but its NEEDED libraries are found through its RPATH /
// RUNPATH and the linker's search: those must lead only to directories no
// untrusted user can write.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "loader/elf_dynamic.hpp"
#include "manifest/manifest.hpp"

namespace algenta::loader {

// ld.so's default search directories on this platform (Debian x86_64 multiarch
// first): the one place they are named.
const std::vector<std::filesystem::path>& system_library_directories();

// A declared host library and the absolute path it was loaded from.
struct HostLibrary {
  std::string soname;
  std::filesystem::path path;
};

// Refuses (LoadError) an RPATH/RUNPATH entry that is empty, relative,
// contains '$' or is not one of `allowed` (the system directories plus the
// host configuration's), and a NEEDED that contains '/' or is neither in a
// system directory nor among the entry's declared host libraries.
void check_dynamic_dependencies(const ElfDynamic& dynamic, const manifest::PluginEntry& entry,
                                const std::vector<std::filesystem::path>& allowed);

// read_elf_dynamic over the verified bytes, then check_dynamic_dependencies;
// a malformed image is refused naming the plugin and the fact.
void check_verified_image_dependencies(std::string_view image, const manifest::PluginEntry& entry,
                                       const std::vector<std::filesystem::path>& allowed);

// The first `allowed` directory holding `soname`, checked by the who-may-write
// rule (the library and every directory above it). Throws LoadError naming
// the directories searched when none holds it.
std::filesystem::path resolve_host_library(const std::string& soname,
                                           const std::vector<std::filesystem::path>& allowed);

// The system directories followed by `configured` (host.json), duplicates dropped.
std::vector<std::filesystem::path> allowed_library_directories(
    const std::vector<std::filesystem::path>& configured);

}  // namespace algenta::loader
