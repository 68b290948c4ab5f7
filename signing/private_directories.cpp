#include "private_directories.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "file_io.hpp"

namespace algenta::sign {
namespace fs = std::filesystem;

void make_private_directories(const fs::path& directory) {
  fs::path made;
  for (const fs::path& part : fs::absolute(directory).lexically_normal()) {
    made /= part;
    if (part.empty() || made == made.root_path()) continue;
    if (::mkdir(made.c_str(), 0755) != 0) {
      if (errno == EEXIST) continue;
      throw IoError("cannot create directory " + made.string() + ": " + std::strerror(errno));
    }
    // mkdir's mode passed through the umask; pin it.
    if (::chmod(made.c_str(), 0755) != 0) {
      throw IoError("cannot set the mode of " + made.string() + ": " + std::strerror(errno));
    }
  }
}

}  // namespace algenta::sign
