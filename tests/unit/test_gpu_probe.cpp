// The GPU probe on whatever machine runs the tests (with or without a driver),
// and the driver-version parsing on fixed text.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "loader/gpu_driver_version.hpp"
#include "loader/gpu_probe.hpp"

using algenta::loader::driver_major_of;
using algenta::loader::GpuProbeResult;
using algenta::loader::parse_proc_driver_version;
using algenta::loader::probe_gpus;

TEST_CASE("probe_gpus reports devices or names why there are none", "[gpu-probe]") {
  GpuProbeResult result;
  REQUIRE_NOTHROW(result = probe_gpus());
  INFO("driver_problem: " << result.driver_problem);

  if (result.driver_found && !result.devices.empty()) {
    for (const auto& device : result.devices) {
      INFO("device " << device.ordinal << ": " << device.name);
      CHECK(device.major >= 3);
      CHECK(device.minor >= 0);
      CHECK_FALSE(device.name.empty());
      CHECK(device.total_memory_bytes > 0);
    }
    CHECK(result.cuda_driver_api > 0);
  } else {
    CHECK_FALSE(result.driver_problem.empty());
  }
  if (!result.driver_version.empty()) {
    CHECK(result.driver_major == driver_major_of(result.driver_version));
  }
}

TEST_CASE("probe_gpus can run twice (libraries are closed in between)", "[gpu-probe]") {
  const GpuProbeResult first = probe_gpus();
  const GpuProbeResult second = probe_gpus();
  CHECK(first.driver_found == second.driver_found);
  CHECK(first.devices.size() == second.devices.size());
  CHECK(first.driver_version == second.driver_version);
}

TEST_CASE("parse_proc_driver_version reads the NVRM line", "[gpu-probe]") {
  SECTION("proprietary kernel module") {
    const std::string text =
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:55:41 UTC "
        "2025\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14+deb12u1)\n";
    CHECK(parse_proc_driver_version(text) == std::optional<std::string>("580.95.05"));
  }
  SECTION("open kernel module") {
    const std::string text =
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.129.03  Release Build  "
        "(dvs-builder@U16-T02-35-3)  Thu Oct 19 18:56:32 UTC 2023\n"
        "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n";
    CHECK(parse_proc_driver_version(text) == std::optional<std::string>("535.129.03"));
  }
  SECTION("no NVRM line") {
    CHECK_FALSE(parse_proc_driver_version("GCC version:  gcc version 12.2.0\n"));
    CHECK_FALSE(parse_proc_driver_version(""));
  }
  SECTION("NVRM line without a version") {
    CHECK_FALSE(parse_proc_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"
                                          "GCC version:  gcc version 12.2.0\n"));
  }
}

TEST_CASE("driver_major_of takes the number before the first dot", "[gpu-probe]") {
  CHECK(driver_major_of("580.95.05") == 580);
  CHECK(driver_major_of("535.129.03") == 535);
  CHECK(driver_major_of("") == 0);
  CHECK(driver_major_of("unknown") == 0);
}
