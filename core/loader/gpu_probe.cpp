#include "loader/gpu_probe.hpp"

#include <cstddef>
#include <exception>
#include <string>
#include <utility>

#include "loader/gpu_driver_version.hpp"
#include "loader/gpu_shared_library.hpp"

namespace algenta::loader {
namespace {

// The CUDA driver API as libcuda exports it, declared here with plain C types
// (CUresult and CUdevice_attribute are C enums, CUdevice is int) so the host
// builds and runs without the CUDA toolkit.
using CuResult = int;  // 0 is CUDA_SUCCESS
using CuDevice = int;
using CuInitFn = CuResult (*)(unsigned int flags);
using CuDriverGetVersionFn = CuResult (*)(int* version);
using CuDeviceGetCountFn = CuResult (*)(int* count);
using CuDeviceGetFn = CuResult (*)(CuDevice* device, int ordinal);
using CuDeviceGetAttributeFn = CuResult (*)(int* value, int attribute, CuDevice device);
using CuDeviceGetNameFn = CuResult (*)(char* name, int length, CuDevice device);
using CuDeviceTotalMemFn = CuResult (*)(std::size_t* bytes, CuDevice device);
using CuGetErrorNameFn = CuResult (*)(CuResult error, const char** name);

constexpr int kAttributeComputeCapabilityMajor = 75;
constexpr int kAttributeComputeCapabilityMinor = 76;
constexpr int kDeviceNameLength = 256;
constexpr const char* kCudaLibrary = "libcuda.so.1";

struct CudaDriverApi {
  CuInitFn init = nullptr;
  CuDriverGetVersionFn driver_get_version = nullptr;
  CuDeviceGetCountFn device_get_count = nullptr;
  CuDeviceGetFn device_get = nullptr;
  CuDeviceGetAttributeFn device_get_attribute = nullptr;
  CuDeviceGetNameFn device_get_name = nullptr;
  CuDeviceTotalMemFn device_total_mem = nullptr;
  CuGetErrorNameFn get_error_name = nullptr;  // optional: only for messages
};

// Resolves every required symbol; returns the name of the first missing one,
// or nullptr when all are present.
const char* resolve(const GpuSharedLibrary& library, CudaDriverApi& api) {
  struct Required {
    const char* name;
    bool present;
  };
  api.init = library.symbol<CuInitFn>("cuInit");
  api.driver_get_version = library.symbol<CuDriverGetVersionFn>("cuDriverGetVersion");
  api.device_get_count = library.symbol<CuDeviceGetCountFn>("cuDeviceGetCount");
  api.device_get = library.symbol<CuDeviceGetFn>("cuDeviceGet");
  api.device_get_attribute = library.symbol<CuDeviceGetAttributeFn>("cuDeviceGetAttribute");
  api.device_get_name = library.symbol<CuDeviceGetNameFn>("cuDeviceGetName");
  // cuda.h maps cuDeviceTotalMem to _v2 (64-bit sizes); ask for it by that name.
  api.device_total_mem = library.symbol<CuDeviceTotalMemFn>("cuDeviceTotalMem_v2");
  api.get_error_name = library.symbol<CuGetErrorNameFn>("cuGetErrorName");

  const Required required[] = {
      {"cuInit", api.init != nullptr},
      {"cuDriverGetVersion", api.driver_get_version != nullptr},
      {"cuDeviceGetCount", api.device_get_count != nullptr},
      {"cuDeviceGet", api.device_get != nullptr},
      {"cuDeviceGetAttribute", api.device_get_attribute != nullptr},
      {"cuDeviceGetName", api.device_get_name != nullptr},
      {"cuDeviceTotalMem_v2", api.device_total_mem != nullptr},
  };
  for (const Required& symbol : required) {
    if (!symbol.present) return symbol.name;
  }
  return nullptr;
}

// "CUDA_ERROR_NO_DEVICE (100)".
std::string describe(const CudaDriverApi& api, CuResult status) {
  const char* name = nullptr;
  if (api.get_error_name == nullptr || api.get_error_name(status, &name) != 0 ||
      name == nullptr) {
    name = "CUDA error";
  }
  return std::string(name) + " (" + std::to_string(status) + ")";
}

void append_problem(GpuProbeResult& result, const std::string& problem) {
  if (!result.driver_problem.empty()) result.driver_problem += "; ";
  result.driver_problem += problem;
}

// Reads one device; returns the failing call's description, or "" on success.
std::string read_device(const CudaDriverApi& api, int ordinal, GpuDevice& device) {
  const auto failed = [&](const char* call, CuResult status) {
    return std::string(call) + " for device " + std::to_string(ordinal) +
           " failed: " + describe(api, status);
  };
  CuDevice handle = 0;
  if (CuResult s = api.device_get(&handle, ordinal); s != 0) return failed("cuDeviceGet", s);

  char name[kDeviceNameLength] = {};
  if (CuResult s = api.device_get_name(name, kDeviceNameLength - 1, handle); s != 0) {
    return failed("cuDeviceGetName", s);
  }
  int major = 0;
  int minor = 0;
  if (CuResult s = api.device_get_attribute(&major, kAttributeComputeCapabilityMajor, handle);
      s != 0) {
    return failed("cuDeviceGetAttribute(compute capability major)", s);
  }
  if (CuResult s = api.device_get_attribute(&minor, kAttributeComputeCapabilityMinor, handle);
      s != 0) {
    return failed("cuDeviceGetAttribute(compute capability minor)", s);
  }
  std::size_t total_bytes = 0;
  if (CuResult s = api.device_total_mem(&total_bytes, handle); s != 0) {
    return failed("cuDeviceTotalMem", s);
  }

  device.ordinal = ordinal;
  device.name = name;
  device.major = major;
  device.minor = minor;
  device.total_memory_bytes = total_bytes;
  return {};
}

void probe_cuda_devices(GpuProbeResult& result) {
  GpuSharedLibrary cuda(kCudaLibrary);  // closed when the probe returns
  if (!cuda.loaded()) {
    std::string problem = std::string("NVIDIA driver library ") + kCudaLibrary + " not found ";
    problem += result.driver_version.empty()
                   ? "(no NVIDIA driver installed)"
                   : "(kernel driver " + result.driver_version +
                         " is present but its CUDA library is not on the library path)";
    append_problem(result, problem + ": " + cuda.error());
    return;
  }
  result.driver_found = true;

  CudaDriverApi api;
  if (const char* missing = resolve(cuda, api)) {
    append_problem(result, std::string(kCudaLibrary) + " lacks the symbol " + missing +
                               " (driver too old or not an NVIDIA driver)");
    return;
  }
  // cuDriverGetVersion works before cuInit, so it is known even when init fails.
  if (int version = 0; api.driver_get_version(&version) == 0) {
    result.cuda_driver_api = version;
  }
  if (CuResult s = api.init(0); s != 0) {
    append_problem(result, "cuInit failed: " + describe(api, s));
    return;
  }
  int count = 0;
  if (CuResult s = api.device_get_count(&count); s != 0) {
    append_problem(result, "cuDeviceGetCount failed: " + describe(api, s));
    return;
  }
  if (count <= 0) {
    append_problem(result, "the driver reports 0 CUDA devices");
    return;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    GpuDevice device;
    // A device that cannot be read is left out and named; the others stay.
    if (std::string problem = read_device(api, ordinal, device); !problem.empty()) {
      append_problem(result, problem);
      continue;
    }
    result.devices.push_back(std::move(device));
  }
}

}  // namespace

GpuProbeResult probe_gpus() {
  GpuProbeResult result;
  try {
    if (auto version = read_driver_version()) {
      result.driver_version = *version;
      result.driver_major = driver_major_of(*version);
    }
    probe_cuda_devices(result);
  } catch (const std::exception& error) {
    try {
      append_problem(result, std::string("GPU probe failed: ") + error.what());
    } catch (...) {
    }
  } catch (...) {
    try {
      append_problem(result, "GPU probe failed with an unknown exception");
    } catch (...) {
    }
  }
  return result;
}

}  // namespace algenta::loader
