#include "bench/host_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

#include "loader/gpu_probe.hpp"

#ifndef ALGENTA_HOST_VERSION
#define ALGENTA_HOST_VERSION "unknown"
#endif

namespace algenta::host::bench {
namespace {

// The value of the first "key<spaces/tab>: value" line of a /proc file.
std::string proc_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return {};
}

}  // namespace

nlohmann::json host_info() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  utsname system{};
  ::uname(&system);
  const loader::GpuProbeResult probe = loader::probe_gpus();
  nlohmann::json gpus = nlohmann::json::array();
  for (const loader::GpuDevice& gpu : probe.devices) {
    gpus.push_back(
        {{"ordinal", gpu.ordinal},
         {"name", gpu.name},
         {"compute_capability", std::to_string(gpu.major) + "." + std::to_string(gpu.minor)},
         {"memory_bytes", gpu.total_memory_bytes}});
  }
  return {{"hostname", name},
          {"kernel", std::string(system.sysname) + " " + system.release},
          {"cpu", proc_field("/proc/cpuinfo", "model name")},
          {"logical_cpus", std::thread::hardware_concurrency()},
          {"memory", proc_field("/proc/meminfo", "MemTotal")},
          {"gpus", gpus},
          {"driver_version", probe.driver_version},
          {"algenta_host_version", ALGENTA_HOST_VERSION}};
}

}  // namespace algenta::host::bench
