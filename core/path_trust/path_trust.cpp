#include "path_trust/path_trust.hpp"

#include <unistd.h>

#include <cstdio>

#include "path_trust/acl_entries.hpp"
#include "path_trust/path_walk.hpp"

namespace algenta::path_trust {
namespace fs = std::filesystem;
namespace {

std::string mode_text(mode_t mode) {
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
  return octal;
}

class Judge {
 public:
  explicit Judge(const Policy& policy) : policy_(policy) {}

  bool trusted(uid_t uid) const { return uid == 0 || uid == policy_.host_uid; }

  std::string user(uid_t uid) const {
    const std::optional<std::string> name = policy_.accounts.name_by_uid(uid);
    return "uid " + std::to_string(uid) + " (" + (name ? *name : "no such user") + ")";
  }

  std::string trusted_users() const {
    return policy_.host_uid == 0 ? "root" : "root or " + user(policy_.host_uid);
  }

  // Why a group that can write is not trusted: a member who is not, or a
  // gid nobody can vouch for. nullopt when every member is trusted.
  std::optional<std::string> untrusted_group(gid_t gid) const {
    const std::optional<GroupRecord> group = policy_.accounts.group_by_gid(gid);
    if (!group) {
      return "group " + std::to_string(gid) +
             " is unknown to the system (who is in it cannot be known)";
    }
    const std::string which = "group " + group->name + " (gid " + std::to_string(gid) + ")";
    for (const std::string& member : group->member_names) {
      const std::optional<uid_t> uid = policy_.accounts.uid_by_name(member);
      if (!uid) return which + " lists member " + member + ", who is no user of this system";
      if (!trusted(*uid)) {
        return which + " has member " + member + " (uid " + std::to_string(*uid) +
               "), who is neither " + trusted_users();
      }
    }
    for (const UserRecord& member : policy_.accounts.users_with_primary_group(gid)) {
      if (!trusted(member.uid)) {
        return which + " is the primary group of " + member.name + " (uid " +
               std::to_string(member.uid) + "), who is neither " + trusted_users();
      }
    }
    return std::nullopt;
  }

  // The first way someone untrusted could change this object, or nullopt.
  // `sticky_exempt`: a sticky ancestor whose looked-up entries are all
  // trusted-owned, so its write permissions cannot touch them.
  std::optional<std::string> problem(const WalkStep& step, bool sticky_exempt) const {
    const struct stat& info = step.info;
    if (!trusted(info.st_uid)) {
      return "is owned by " + user(info.st_uid) + "; only " + trusted_users() + " may own it";
    }
    if (sticky_exempt) return std::nullopt;
    const std::string mode = "mode " + mode_text(info.st_mode);
    const AclWrite acl = acl_writers(step.path);
    const bool group_writes = acl.extended ? acl.group_object.has_value()
                                           : (info.st_mode & S_IWGRP) != 0;
    if (group_writes) {
      if (const auto why = untrusted_group(info.st_gid)) {
        const std::string how = acl.extended ? "ACL entry " + *acl.group_object : mode;
        return "is group-writable (" + how + ") and " + *why;
      }
    }
    if ((info.st_mode & S_IWOTH) != 0) {
      return "is world-writable (" + mode + ")" + sticky_note(step);
    }
    for (const AclWriter& writer : acl.named) {
      if (writer.kind == AclWriter::Kind::user && !trusted(static_cast<uid_t>(writer.id))) {
        return "has ACL entry " + writer.entry + " letting " +
               user(static_cast<uid_t>(writer.id)) + " write";
      }
      if (writer.kind == AclWriter::Kind::group) {
        if (const auto why = untrusted_group(static_cast<gid_t>(writer.id))) {
          return "has ACL entry " + writer.entry + " letting a group write, and " + *why;
        }
      }
    }
    return std::nullopt;
  }

  bool sticky_exempt(const WalkStep& step, bool is_leaf) const {
    if (is_leaf || !S_ISDIR(step.info.st_mode) || (step.info.st_mode & S_ISVTX) == 0) return false;
    if (step.looked_up.empty()) return false;
    for (const LookedUpEntry& entry : step.looked_up) {
      if (!entry.owner || !trusted(*entry.owner)) return false;
    }
    return true;
  }

 private:
  // Why a sticky directory's bit does not help: the entry it leads to.
  std::string sticky_note(const WalkStep& step) const {
    if ((step.info.st_mode & S_ISVTX) == 0) return "";
    for (const LookedUpEntry& entry : step.looked_up) {
      if (!entry.owner) return " and its entry " + entry.name + " does not exist (anyone could create it)";
      if (!trusted(*entry.owner)) {
        return " and its entry " + entry.name + " is owned by " + user(*entry.owner);
      }
    }
    return "";
  }

  const Policy& policy_;
};

}  // namespace

Policy host_policy() { return {::geteuid(), system_accounts()}; }

std::optional<std::string> untrusted_reason(const fs::path& path, const std::string& what,
                                            const Policy& policy) {
  const std::string subject = what + " " + path.string();
  PathWalk walk;
  try {
    walk = walk_path(path);
  } catch (const UntrustedPath& failed) {
    return subject + " cannot be trusted: " + failed.what();
  }
  const Judge judge(policy);
  for (std::size_t i = 0; i < walk.steps.size(); ++i) {
    const WalkStep& step = walk.steps[i];
    const bool is_leaf = walk.leaf == i;
    std::optional<std::string> why;
    try {
      why = judge.problem(step, judge.sticky_exempt(step, is_leaf));
    } catch (const UntrustedPath& failed) {
      return subject + " cannot be trusted: " + failed.what();
    }
    if (!why) continue;
    if (is_leaf) return subject + " " + *why;
    return subject + " cannot be trusted: directory " + step.path.string() + " " + *why;
  }
  return std::nullopt;
}

void require_trusted_path(const fs::path& path, const std::string& what, const Policy& policy) {
  if (const auto why = untrusted_reason(path, what, policy)) throw UntrustedPath(*why);
}

}  // namespace algenta::path_trust
