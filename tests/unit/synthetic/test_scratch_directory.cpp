// The scratch directory of a synthetic checkpoint: made where there is room,
// gone at the end - also when a signal ends the process.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "synthetic/scratch_directory.hpp"

namespace fs = std::filesystem;
using namespace algenta::host::synthetic;
using Catch::Matchers::Contains;

TEST_CASE("scratch: the first candidate with room for the need and headroom", "[synthetic]") {
  const std::uint64_t gib = std::uint64_t{1} << 30;
  std::vector<ScratchCandidate> candidates = {{"/dev/shm", 2 * gib}, {"/tmp", 100 * gib}};
  CHECK(first_with_room(candidates, gib) == 0u);
  CHECK(first_with_room(candidates, 2 * gib) == 1u);  // no headroom left in /dev/shm
  CHECK_FALSE(first_with_room(candidates, 200 * gib).has_value());
  candidates[0].free_bytes.reset();  // no /dev/shm
  CHECK(first_with_room(candidates, gib) == 1u);
}

TEST_CASE("scratch: no room anywhere names each place and the need", "[synthetic]") {
  CHECK_THROWS_WITH(ScratchDirectory(std::uint64_t{1} << 62),
                    Contains("no room for the synthetic checkpoint") && Contains("/dev/shm") &&
                        Contains("TMPDIR"));
}

TEST_CASE("scratch: removed with its contents when it goes away", "[synthetic]") {
  fs::path path;
  {
    ScratchDirectory scratch(1024);
    path = scratch.path();
    CHECK(fs::is_directory(path));
    CHECK(path.filename().string().rfind("algenta-synthetic-" + std::to_string(::getpid()) + "-", 0) ==
          0);
    fs::create_directories(path / "checkpoint");
    std::ofstream(path / "checkpoint" / "weights.blob") << "bytes";
    std::ofstream(path / "config.json") << "{}";
  }
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("scratch: removed when SIGTERM or SIGINT ends the process", "[synthetic]") {
  for (const int signal_number : {SIGTERM, SIGINT}) {
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::close(pipe_fds[0]);
      ::signal(signal_number, SIG_DFL);  // as in algenta-host, not the test runner's handler
      ScratchDirectory scratch(1024);
      fs::create_directories(scratch.path() / "checkpoint.tmp-1" / "deeper");
      for (int i = 0; i < 300; ++i) {  // more entries than one getdents64 buffer
        std::ofstream(scratch.path() / "checkpoint.tmp-1" / ("file-" + std::to_string(i))) << i;
      }
      std::ofstream(scratch.path() / "checkpoint.tmp-1" / "deeper" / "weights.blob") << "bytes";
      const std::string path = scratch.path().string();
      (void)!::write(pipe_fds[1], path.data(), path.size());
      ::close(pipe_fds[1]);
      ::raise(signal_number);
      ::_exit(99);  // not reached: the signal ends the process
    }
    ::close(pipe_fds[1]);
    char buffer[4096];
    std::string path;
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) path.append(buffer, n);
    ::close(pipe_fds[0]);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    INFO("signal " << signal_number << ", directory " << path);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal_number);
    REQUIRE_FALSE(path.empty());
    CHECK_FALSE(fs::exists(path));
  }
}

TEST_CASE("scratch: leftovers of a process that is gone are removed", "[synthetic]") {
  fs::path base;
  {
    ScratchDirectory probe(0);
    base = probe.path().parent_path();
  }
  // A pid no process can have: above the kernel's limit (at most 2^22).
  const fs::path leftover = base / "algenta-synthetic-2147483646-AbCdEf";
  fs::create_directories(leftover / "checkpoint");
  std::ofstream(leftover / "checkpoint" / "weights.blob") << "bytes";
  const fs::path alive = base / ("algenta-synthetic-" + std::to_string(::getppid()) + "-AbCdEf");
  fs::create_directories(alive);
  {
    ScratchDirectory scratch(0);
    CHECK_FALSE(fs::exists(leftover));
    CHECK(fs::exists(alive));  // its process still runs
  }
  fs::remove_all(alive);
}
