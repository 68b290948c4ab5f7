#include "loader/gpu_driver_version.hpp"

#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>

#include "loader/gpu_shared_library.hpp"

namespace algenta::loader {
namespace {

// NVML's C types, declared here so the host builds without NVIDIA headers.
using NvmlReturn = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using NvmlInitFn = NvmlReturn (*)();
using NvmlShutdownFn = NvmlReturn (*)();
using NvmlSystemGetDriverVersionFn = NvmlReturn (*)(char*, unsigned int);
constexpr unsigned int kNvmlDriverVersionBufferSize = 80;

// "580.95.05", "535.129.03": digits and dots, starting with a digit, at
// least one dot (so "x86_64" and "09:55:41" on the same line never match).
bool looks_like_version(std::string_view word) {
  if (word.empty() || word.front() < '0' || word.front() > '9') return false;
  bool has_dot = false;
  for (char c : word) {
    if (c == '.') {
      has_dot = true;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return has_dot && word.back() != '.';
}

std::optional<std::string> version_from_nvml() {
  GpuSharedLibrary nvml("libnvidia-ml.so.1");
  auto init = nvml.symbol<NvmlInitFn>("nvmlInit_v2");
  auto shutdown = nvml.symbol<NvmlShutdownFn>("nvmlShutdown");
  auto get_version =
      nvml.symbol<NvmlSystemGetDriverVersionFn>("nvmlSystemGetDriverVersion");
  if (init == nullptr || shutdown == nullptr || get_version == nullptr) {
    return std::nullopt;
  }
  if (init() != 0) return std::nullopt;
  char buffer[kNvmlDriverVersionBufferSize] = {};
  const NvmlReturn status = get_version(buffer, sizeof buffer);
  shutdown();
  if (status != 0) return std::nullopt;
  buffer[sizeof buffer - 1] = '\0';
  std::string version(buffer);
  if (!looks_like_version(version)) return std::nullopt;
  return version;
}

std::optional<std::string> version_from_proc() {
  std::ifstream file("/proc/driver/nvidia/version");
  if (!file) return std::nullopt;
  const std::string text{std::istreambuf_iterator<char>(file),
                         std::istreambuf_iterator<char>()};
  return parse_proc_driver_version(text);
}

}  // namespace

std::optional<std::string> parse_proc_driver_version(std::string_view text) {
  constexpr std::string_view kPrefix = "NVRM version:";
  const std::size_t start = text.find(kPrefix);
  if (start == std::string_view::npos) return std::nullopt;
  std::string_view line = text.substr(start + kPrefix.size());
  line = line.substr(0, line.find('\n'));

  std::istringstream words{std::string(line)};
  for (std::string word; words >> word;) {
    if (looks_like_version(word)) return word;
  }
  return std::nullopt;
}

int driver_major_of(std::string_view version) {
  int major = 0;
  const auto [end, error] =
      std::from_chars(version.data(), version.data() + version.size(), major);
  if (error != std::errc{} || end == version.data() || major < 0) return 0;
  return major;
}

std::optional<std::string> read_driver_version() {
  try {
    if (auto version = version_from_nvml()) return version;
    return version_from_proc();
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace algenta::loader
