// Finds NVIDIA GPUs through the driver libraries loaded at run time
// (libcuda.so.1 for devices and capabilities, libnvidia-ml.so.1 for the
// driver version). The host never links CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace algenta::loader {

struct GpuDevice {
  int ordinal = 0;
  std::string name;
  int major = 0;  // compute capability
  int minor = 0;
  std::uint64_t total_memory_bytes = 0;
};

struct GpuProbeResult {
  bool driver_found = false;       // libcuda.so.1 could be loaded
  std::string driver_problem;      // why no devices: library missing, cuInit error...
  std::string driver_version;      // e.g. "580.95.05" (from NVML); empty if unknown
  int driver_major = 0;            // e.g. 580; 0 if unknown
  int cuda_driver_api = 0;         // cuDriverGetVersion, e.g. 13000
  std::vector<GpuDevice> devices;
};

// Never throws; problems are reported in the result.
GpuProbeResult probe_gpus();

}  // namespace algenta::loader
