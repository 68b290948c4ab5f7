#include "path_trust/acl_entries.hpp"

#include <acl/libacl.h>
#include <sys/acl.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "path_trust/path_trust.hpp"

namespace algenta::path_trust {
namespace {

struct AclFree {
  void operator()(void* p) const { ::acl_free(p); }
};

struct Entry {
  acl_tag_t tag = ACL_UNDEFINED_TAG;
  id_t id = 0;
  bool read = false, write = false, execute = false;
};

std::string perms_text(const Entry& e) {
  return std::string(e.read ? "r" : "-") + (e.write ? "w" : "-") + (e.execute ? "x" : "-");
}

Entry read_entry(acl_entry_t entry) {
  Entry e;
  ::acl_get_tag_type(entry, &e.tag);
  if (e.tag == ACL_USER || e.tag == ACL_GROUP) {
    void* qualifier = ::acl_get_qualifier(entry);
    if (qualifier != nullptr) {
      e.id = e.tag == ACL_USER ? *static_cast<uid_t*>(qualifier) : *static_cast<gid_t*>(qualifier);
      ::acl_free(qualifier);
    }
  }
  acl_permset_t perms = nullptr;
  if (::acl_get_permset(entry, &perms) == 0) {
    e.read = ::acl_get_perm(perms, ACL_READ) == 1;
    e.write = ::acl_get_perm(perms, ACL_WRITE) == 1;
    e.execute = ::acl_get_perm(perms, ACL_EXECUTE) == 1;
  }
  return e;
}

}  // namespace

AclWrite acl_writers(const std::filesystem::path& path) {
  AclWrite result;
  std::unique_ptr<void, AclFree> acl(::acl_get_file(path.c_str(), ACL_TYPE_ACCESS));
  if (!acl) {
    if (errno == ENOTSUP || errno == ENOSYS) return result;
    throw UntrustedPath("the ACL of " + path.string() + " cannot be read: " +
                        std::strerror(errno));
  }
  std::vector<Entry> entries;
  acl_entry_t entry = nullptr;
  for (int which = ACL_FIRST_ENTRY;
       ::acl_get_entry(static_cast<acl_t>(acl.get()), which, &entry) == 1;
       which = ACL_NEXT_ENTRY) {
    entries.push_back(read_entry(entry));
  }
  const Entry* mask = nullptr;
  for (const Entry& e : entries) {
    if (e.tag == ACL_MASK) mask = &e;
  }
  result.extended = mask != nullptr;
  const bool mask_writes = mask == nullptr || mask->write;
  const std::string under_mask = mask != nullptr ? " (mask::" + perms_text(*mask) + ")" : "";
  for (const Entry& e : entries) {
    if (!e.write || !mask_writes) continue;
    if (e.tag == ACL_USER) {
      result.named.push_back({AclWriter::Kind::user, e.id,
                              "user:" + std::to_string(e.id) + ":" + perms_text(e) + under_mask});
    } else if (e.tag == ACL_GROUP) {
      result.named.push_back({AclWriter::Kind::group, e.id,
                              "group:" + std::to_string(e.id) + ":" + perms_text(e) + under_mask});
    } else if (e.tag == ACL_GROUP_OBJ) {
      result.group_object = "group::" + perms_text(e) + under_mask;
    }
  }
  return result;
}

}  // namespace algenta::path_trust
