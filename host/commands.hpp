// The algenta-host subcommands. Each returns the process exit code:
// 0 success, 1 usage or input error, 2 refused (verification, selection,
// missing accelerator), 3 the engine failed.
#pragma once

#include <string>

#include "host_paths.hpp"

namespace algenta::host {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;
inline constexpr int kExitRefused = 2;
inline constexpr int kExitEngine = 3;

struct ServeOptions {
  std::string backend = "auto";  // auto | cuda | plugin name
  bool allow_oracle = false;
  bool list_backends = false;
  std::string model_dir;
};

int run_doctor(const HostPaths& paths);
int run_serve(const HostPaths& paths, const ServeOptions& options);

}  // namespace algenta::host
