// Helpers for tests of the who-may-write rule: a uid and gid no account
// uses, and ACL entries added through libacl.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace algenta::test {

// 4242: checked to be unknown to the system (tests REQUIRE it).
inline constexpr uid_t kStrangerUid = 4242;
inline constexpr gid_t kStrangerGid = 4242;
bool stranger_ids_unused();

void change_owner(const std::filesystem::path& path, uid_t uid);
void change_group(const std::filesystem::path& path, gid_t gid);
void add_mode(const std::filesystem::path& path, mode_t bits);
void remove_mode(const std::filesystem::path& path, mode_t bits);

// Sets the access ACL from its text form, e.g. "u::rwx,u:4242:rwx,g::r-x,m::rwx,o::r-x".
void set_acl(const std::filesystem::path& path, const std::string& text);

}  // namespace algenta::test
