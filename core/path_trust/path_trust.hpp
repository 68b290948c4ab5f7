// Who may write: a path is trusted only when no user other than root or the
// user the host runs as (its euid) could change it, nor any directory above
// it up to /, following symlinks through their targets.
//
// Per object on the way: the owner must be trusted; group write (mode bits,
// or the ACL's group entry under its mask) is allowed only for a group whose
// every member (supplementary, and users whose primary group it is) is
// trusted, and a gid unknown to the system is refused; other write is
// refused; a POSIX ACL entry granting write (through the mask) to an
// untrusted user or to a group with an untrusted member is refused. An
// ancestor directory with the sticky bit (like /tmp) is exempt from the
// write rules when every entry looked up in it is owned by a trusted user:
// nobody else can then rename or remove those entries.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "path_trust/accounts.hpp"

namespace algenta::path_trust {

struct UntrustedPath : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Policy {
  uid_t host_uid = 0;  // trusted besides root
  Accounts accounts;
};

// geteuid() and the system's account database.
Policy host_policy();

// The reason `path` cannot be trusted, e.g. "plugin file /p/x.so cannot be
// trusted: directory /p above it is group-writable (mode 0775) by group
// staff (gid 50) whose member alice (uid 1000) is neither root nor uid 0";
// nullopt when it can. `what` names the object ("plugin file"). A path that
// does not exist is judged by what exists above it (its creator must be
// trusted to create it there); a relative path is taken from the current
// directory.
std::optional<std::string> untrusted_reason(const std::filesystem::path& path,
                                            const std::string& what,
                                            const Policy& policy = host_policy());

// untrusted_reason, thrown as UntrustedPath.
void require_trusted_path(const std::filesystem::path& path, const std::string& what,
                          const Policy& policy = host_policy());

}  // namespace algenta::path_trust
