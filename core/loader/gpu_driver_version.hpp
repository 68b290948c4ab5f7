// The NVIDIA driver version ("580.95.05"), read from NVML or, without NVML,
// from /proc/driver/nvidia/version. Split out so the parsing is testable
// without a driver.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace algenta::loader {

// The version on the "NVRM version:" line of /proc/driver/nvidia/version
// (proprietary and open kernel module formats); nullopt if there is none.
std::optional<std::string> parse_proc_driver_version(std::string_view text);

// 580 for "580.95.05"; 0 when the text does not start with a number.
int driver_major_of(std::string_view version);

// NVML first (libnvidia-ml.so.1, loaded and unloaded here), then /proc.
// nullopt when neither answers. Never throws.
std::optional<std::string> read_driver_version();

}  // namespace algenta::loader
