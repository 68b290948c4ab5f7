// What machine a benchmark ran on, for its JSON: host name, kernel, CPU,
// memory, the GPUs and driver the host found (through the driver library
// loaded at run time; none on a machine without one).
#pragma once

#include <nlohmann/json.hpp>

namespace algenta::host::bench {

nlohmann::json host_info();

}  // namespace algenta::host::bench
