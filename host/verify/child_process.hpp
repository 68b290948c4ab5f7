// Runs another program to completion and collects what it printed: how the
// repeat gate starts fresh host processes.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace algenta::host {

struct ChildResult {
  int exit_code = 0;  // the exit status, or 128 + the signal that ended it
  std::string out;    // stdout
  std::string err;    // stderr
};

struct ChildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// argv[0] is the program's path (no PATH search). stdout and stderr go
// through files in `scratch_dir`, which must exist. Throws ChildError when
// the program cannot be started.
ChildResult run_child(const std::vector<std::string>& argv,
                      const std::filesystem::path& scratch_dir);

}  // namespace algenta::host
