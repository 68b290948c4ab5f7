// Reads what a plugin declares about itself from its descriptor table.
#pragma once

#include <filesystem>
#include <stdexcept>

#include "manifest/manifest.hpp"

namespace algenta::sign {

struct DescribeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// dlopen()s the plugin (RTLD_NOW | RTLD_LOCAL) on the packaging machine and
// returns an entry with the declared fields filled: name, role, target, abi,
// families, host_libraries. The file's digest, size and min_driver are the
// caller's. Throws DescribeError naming the file and the fault.
manifest::PluginEntry describe_plugin(const std::filesystem::path& file);

}  // namespace algenta::sign
