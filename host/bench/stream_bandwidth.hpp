// The device's plain read bandwidth, measured in the same bench run by
// algenta-stream-bandwidth (host/stream_bandwidth/, built with CUDA only),
// which bench starts as a child process from beside its own executable. The
// host itself has no CUDA code. Without the tool, or when it fails, the
// bandwidth is "not available" with the reason; never a made-up number.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace algenta::host::bench {

inline constexpr const char* kStreamToolName = "algenta-stream-bandwidth";

struct StreamBandwidth {
  bool available = false;
  double gbytes_per_s = 0.0;  // 1e9 bytes per second
  std::uint64_t bytes = 0;    // buffer size read per run
  std::uint64_t runs = 0;
  std::string tool;    // the path bench ran, or looked for
  std::string reason;  // why it is not available
};

// The tool beside this executable.
std::filesystem::path stream_tool_path();

// The tool's result line {"gbytes_per_s": X, "bytes": N, "runs": R}: the
// last non-empty line of its stdout. A missing or malformed line, or a
// bandwidth that is not a positive finite number, gives available = false
// with the reason.
StreamBandwidth parse_stream_output(const std::string& stdout_text);

// Runs the tool on device `device` (its output goes through a temporary
// directory, removed afterwards).
StreamBandwidth measure_stream_bandwidth(const std::filesystem::path& tool, int device);

// available = false with `reason`.
StreamBandwidth stream_not_available(std::string reason, std::string tool = {});

}  // namespace algenta::host::bench
