#include "loader/host_config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "json/strict_json.hpp"
#include "loader/verified_loader.hpp"
#include "path_trust/path_trust.hpp"

namespace algenta::loader {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void refuse(const fs::path& file, const std::string& fact) {
  throw LoadError("host configuration " + file.string() + " " + fact);
}

// Read once through one descriptor, size-checked before reading.
std::optional<std::string> read_capped(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    refuse(file, std::string("cannot be opened: ") + std::strerror(errno));
  }
  struct stat info {};
  std::string bytes;
  std::string problem;
  if (::fstat(fd, &info) != 0) {
    problem = std::string("cannot be inspected: ") + std::strerror(errno);
  } else if (!S_ISREG(info.st_mode)) {
    problem = "is not a regular file";
  } else if (static_cast<std::uint64_t>(info.st_size) > kMaxHostConfigBytes) {
    problem = "is " + std::to_string(info.st_size) + " bytes, over the cap of " +
              std::to_string(kMaxHostConfigBytes) + " bytes";
  } else {
    bytes.resize(kMaxHostConfigBytes + 1);
    std::size_t got = 0;
    for (;;) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) problem = std::string("cannot be read: ") + std::strerror(errno);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
      if (got == bytes.size()) break;
    }
    if (problem.empty() && got > kMaxHostConfigBytes) {
      problem = "grew past the cap of " + std::to_string(kMaxHostConfigBytes) + " bytes while being read";
    }
    bytes.resize(got);
  }
  ::close(fd);
  if (!problem.empty()) refuse(file, problem);
  return bytes;
}

}  // namespace

HostConfig load_host_config(const fs::path& file) {
  if (const auto why = path_trust::untrusted_reason(file, "host configuration")) {
    throw LoadError(*why);
  }
  const std::optional<std::string> bytes = read_capped(file);
  HostConfig config;
  if (!bytes) return config;

  nlohmann::json root;
  try {
    root = strict_json::parse(*bytes, 8);
  } catch (const strict_json::StrictJsonError& error) {
    refuse(file, std::string("is not valid JSON: ") + error.what());
  }
  if (!root.is_object()) refuse(file, "is " + std::string(strict_json::type_name(root)) + ", not an object");
  for (const auto& [key, value] : root.items()) {
    if (key != "library_directories") {
      refuse(file, "has unknown field " + strict_json::shown(nlohmann::json(key)) +
                       " (known: library_directories)");
    }
  }
  const auto listed = root.find("library_directories");
  if (listed == root.end()) return config;
  if (!listed->is_array()) {
    refuse(file, "library_directories is " + std::string(strict_json::type_name(*listed)) +
                     ", not an array of strings");
  }
  for (std::size_t i = 0; i < listed->size(); ++i) {
    const nlohmann::json& item = (*listed)[i];
    const std::string where = "library_directories[" + std::to_string(i) + "]";
    if (!item.is_string()) refuse(file, where + " is " + strict_json::type_name(item) + ", not a string");
    const std::string directory = item.get<std::string>();
    if (directory.empty() || directory.front() != '/') {
      refuse(file, where + " " + strict_json::shown(item) + " is not an absolute path");
    }
    if (directory.find('$') != std::string::npos) {
      refuse(file, where + " " + strict_json::shown(item) + " contains '$'");
    }
    if (const auto why = path_trust::untrusted_reason(directory, "library directory")) {
      refuse(file, "lists " + where + ": " + *why);
    }
    config.library_directories.emplace_back(directory);
  }
  return config;
}

}  // namespace algenta::loader
