#include "support/permission_fixture.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace algenta::test {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
}

mode_t mode_of(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) fail("stat", path);
  return info.st_mode & 07777;
}

}  // namespace

bool stranger_ids_unused() {
  return ::getpwuid(kStrangerUid) == nullptr && ::getgrgid(kStrangerGid) == nullptr;
}

void change_owner(const fs::path& path, uid_t uid) {
  if (::lchown(path.c_str(), uid, static_cast<gid_t>(-1)) != 0) fail("chown", path);
}

void change_group(const fs::path& path, gid_t gid) {
  if (::lchown(path.c_str(), static_cast<uid_t>(-1), gid) != 0) fail("chgrp", path);
}

void add_mode(const fs::path& path, mode_t bits) {
  if (::chmod(path.c_str(), mode_of(path) | bits) != 0) fail("chmod", path);
}

void remove_mode(const fs::path& path, mode_t bits) {
  if (::chmod(path.c_str(), mode_of(path) & ~bits) != 0) fail("chmod", path);
}

void set_acl(const fs::path& path, const std::string& text) {
  acl_t acl = ::acl_from_text(text.c_str());
  if (acl == nullptr) throw std::runtime_error("bad ACL text " + text);
  const int rc = ::acl_set_file(path.c_str(), ACL_TYPE_ACCESS, acl);
  ::acl_free(acl);
  if (rc != 0) fail("acl_set_file", path);
}

}  // namespace algenta::test
