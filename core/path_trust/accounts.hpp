// Who is who: the account lookups the write-trust rule needs, behind an
// interface so tests can describe users and groups the machine lacks.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace algenta::path_trust {

struct GroupRecord {
  std::string name;
  std::vector<std::string> member_names;  // supplementary members (gr_mem)
};

struct UserRecord {
  uid_t uid = 0;
  std::string name;
};

struct Accounts {
  std::function<std::optional<GroupRecord>(gid_t)> group_by_gid;    // nullopt: unknown gid
  std::function<std::vector<UserRecord>(gid_t)> users_with_primary_group;
  std::function<std::optional<uid_t>(const std::string&)> uid_by_name;  // nullopt: no such user
  std::function<std::optional<std::string>(uid_t)> name_by_uid;
};

// The system's account database (getgrgid_r, getpwnam_r, getpwuid_r, getpwent).
Accounts system_accounts();

}  // namespace algenta::path_trust
