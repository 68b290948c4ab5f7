// The POSIX access ACL of one path, reduced to who it lets write.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace algenta::path_trust {

struct AclWriter {
  enum class Kind { user, group };
  Kind kind = Kind::user;
  id_t id = 0;         // uid or gid
  std::string entry;   // as getfacl writes it, e.g. "user:4242:rw-" (plus the mask)
};

struct AclWrite {
  bool extended = false;                    // has named entries and a mask
  std::optional<std::string> group_object;  // "group::rw-" when it writes (under the mask)
  std::vector<AclWriter> named;             // user:/group: entries that write (under the mask)
};

// Named entries and the owning group's entry that grant write once the mask
// is applied. A file system without ACLs yields an empty, non-extended
// answer. Throws UntrustedPath when the ACL cannot be read for another reason.
AclWrite acl_writers(const std::filesystem::path& path);

}  // namespace algenta::path_trust
