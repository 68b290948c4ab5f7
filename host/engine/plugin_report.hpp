// Small text helpers shared by the commands that talk to a loaded plugin.
#pragma once

#include <cstdint>
#include <string>

#include "algenta/plugin_abi.h"
#include "loader/gpu_probe.hpp"
#include "loader/plugin_calls.hpp"

namespace algenta::host {

using loader::PluginFailure;
using loader::take_error;
const char* status_name(AlgentaStatusCode code);

// One line: name, role, target, ABI, families, precision policies, kernel
// and fact-range counts.
std::string describe_descriptor(const AlgentaPluginV1& table);

// "NVIDIA H200, compute capability 9.0, 139.8 GiB"
std::string describe_gpu(const loader::GpuDevice& gpu);

std::int64_t unix_now();

}  // namespace algenta::host
