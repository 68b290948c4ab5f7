#include "path_trust/accounts.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

namespace algenta::path_trust {
namespace {

// The *_r lookups want a caller buffer; grow it until the record fits.
template <typename Lookup>
bool with_buffer(Lookup lookup) {
  std::vector<char> buffer(4096);
  for (;;) {
    const int error = lookup(buffer);
    if (error != ERANGE) return error == 0;
    if (buffer.size() > (1u << 24)) return false;
    buffer.resize(buffer.size() * 2);
  }
}

std::optional<GroupRecord> group_by_gid(gid_t gid) {
  std::optional<GroupRecord> record;
  with_buffer([&](std::vector<char>& buffer) {
    struct group entry {};
    struct group* found = nullptr;
    const int error = ::getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found);
    if (error == 0 && found != nullptr) {
      GroupRecord r;
      r.name = found->gr_name != nullptr ? found->gr_name : "";
      for (char** member = found->gr_mem; member != nullptr && *member != nullptr; ++member) {
        r.member_names.emplace_back(*member);
      }
      record = std::move(r);
    }
    return error;
  });
  return record;
}

// getpwent walks one process-wide cursor; serialise its users.
std::vector<UserRecord> users_with_primary_group(gid_t gid) {
  static std::mutex cursor;
  const std::lock_guard<std::mutex> hold(cursor);
  std::vector<UserRecord> users;
  ::setpwent();
  while (const struct passwd* entry = ::getpwent()) {
    if (entry->pw_gid == gid) users.push_back({entry->pw_uid, entry->pw_name});
  }
  ::endpwent();
  return users;
}

std::optional<uid_t> uid_by_name(const std::string& name) {
  std::optional<uid_t> uid;
  with_buffer([&](std::vector<char>& buffer) {
    struct passwd entry {};
    struct passwd* found = nullptr;
    const int error = ::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
    if (error == 0 && found != nullptr) uid = found->pw_uid;
    return error;
  });
  return uid;
}

std::optional<std::string> name_by_uid(uid_t uid) {
  std::optional<std::string> name;
  with_buffer([&](std::vector<char>& buffer) {
    struct passwd entry {};
    struct passwd* found = nullptr;
    const int error = ::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found);
    if (error == 0 && found != nullptr) name = found->pw_name;
    return error;
  });
  return name;
}

}  // namespace

Accounts system_accounts() {
  return {group_by_gid, users_with_primary_group, uid_by_name, name_by_uid};
}

}  // namespace algenta::path_trust
