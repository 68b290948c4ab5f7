#include "verify/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "files/bounded_read.hpp"
#include "files/file_caps.hpp"

extern char** environ;

namespace algenta::host {
namespace fs = std::filesystem;
namespace {

// What the child wrote; empty when it wrote nothing there at all.
std::string read_text(const fs::path& file) {
  try {
    return files::read_bounded_if_present(file, files::kChildOutputCap).value_or("");
  } catch (const files::FileReadError& error) {
    throw ChildError(std::string("child output ") + error.what());
  }
}

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, const fs::path& scratch_dir) {
  if (argv.empty()) throw ChildError("run_child: no program given");
  const fs::path out_file = scratch_dir / "child.stdout";
  const fs::path err_file = scratch_dir / "child.stderr";

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    throw ChildError("cannot start " + argv[0] + ": " + std::strerror(spawned));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw ChildError("waiting for " + argv[0] + " failed: " + std::strerror(errno));
  }
  ChildResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_text(out_file);
  result.err = read_text(err_file);
  return result;
}

}  // namespace algenta::host
