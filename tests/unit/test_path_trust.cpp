// The who-may-write rule: owner, group (and who is in it), other, POSIX
// ACLs, on the file, its parent and a directory further up; sticky
// directories; symlinks. Each refusal names the path and the fact.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "path_trust/path_trust.hpp"
#include "support/bundle_fixture.hpp"
#include "support/permission_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using algenta::path_trust::untrusted_reason;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// temp/ancestor/parent/file.txt, all trusted (owned by the test's user, no
// group or other write).
struct Tree {
  test::TempDir temp;
  fs::path ancestor = temp.path() / "ancestor";
  fs::path parent = ancestor / "parent";
  fs::path file = parent / "file.txt";
  Tree() {
    fs::create_directories(parent);
    fs::permissions(ancestor, fs::perms(0755));
    fs::permissions(parent, fs::perms(0755));
    test::write_file(file, "bytes");
    fs::permissions(file, fs::perms(0644));
  }
};

std::string reason(const fs::path& path,
                   const path_trust::Policy& policy = path_trust::host_policy()) {
  return untrusted_reason(path, "test file", policy).value_or("");
}

// Accounts a test describes: groups by gid, users by uid.
struct FakeAccounts {
  std::map<gid_t, path_trust::GroupRecord> groups;
  std::map<uid_t, std::pair<std::string, gid_t>> users;  // uid -> (name, primary gid)

  path_trust::Policy policy(uid_t host_uid) const {
    path_trust::Accounts accounts;
    accounts.group_by_gid = [this](gid_t gid) -> std::optional<path_trust::GroupRecord> {
      const auto found = groups.find(gid);
      if (found == groups.end()) return std::nullopt;
      return found->second;
    };
    accounts.users_with_primary_group = [this](gid_t gid) {
      std::vector<path_trust::UserRecord> members;
      for (const auto& [uid, user] : users) {
        if (user.second == gid) members.push_back({uid, user.first});
      }
      return members;
    };
    accounts.uid_by_name = [this](const std::string& name) -> std::optional<uid_t> {
      for (const auto& [uid, user] : users) {
        if (user.first == name) return uid;
      }
      return std::nullopt;
    };
    accounts.name_by_uid = [this](uid_t uid) -> std::optional<std::string> {
      const auto found = users.find(uid);
      if (found == users.end()) return std::nullopt;
      return found->second.first;
    };
    return {host_uid, accounts};
  }
};

}  // namespace

TEST_CASE("a tree owned by the host's user under /tmp is trusted", "[path-trust]") {
  REQUIRE(test::stranger_ids_unused());
  Tree tree;
  CHECK(reason(tree.file) == "");
  CHECK(reason(tree.parent) == "");
  // /tmp is 1777: as a directory above, its sticky bit keeps our entries ours.
  CHECK(reason(fs::temp_directory_path() / tree.temp.path().filename() / "ancestor") == "");
  // A path that does not exist yet is judged by what is above it.
  CHECK(reason(tree.parent / "absent" / "deeper") == "");
}

TEST_CASE("who may write: {file, parent, ancestor} x {owner, group, other, ACL}",
          "[path-trust]") {
  REQUIRE(test::stranger_ids_unused());
  for (const std::string object : {"file", "parent", "ancestor"}) {
    for (const std::string rule : {"owner", "group", "other", "ACL"}) {
      DYNAMIC_SECTION(object << " / " << rule) {
        Tree tree;
        const fs::path target = object == "file"     ? tree.file
                                : object == "parent" ? tree.parent
                                                     : tree.ancestor;
        // The leaf is named as itself; a directory above by its own path.
        const std::string subject = object == "file"
                                        ? "test file " + tree.file.string() + " "
                                        : "test file " + tree.file.string() +
                                              " cannot be trusted: directory " +
                                              target.string() + " ";
        std::string fact;
        if (rule == "owner") {
          test::change_owner(target, test::kStrangerUid);
          fact = "is owned by uid 4242 (no such user); only root";
        } else if (rule == "group") {
          test::change_group(target, test::kStrangerGid);
          test::add_mode(target, S_IWGRP);
          fact = "is group-writable (mode 0" + std::string(object == "file" ? "664" : "775") +
                 ") and group 4242 is unknown to the system";
        } else if (rule == "other") {
          test::add_mode(target, S_IWOTH);
          fact = "is world-writable (mode 0" + std::string(object == "file" ? "646" : "757") + ")";
        } else {
          test::set_acl(target, "u::rwx,u:4242:rwx,g::r-x,m::rwx,o::r-x");
          fact = "has ACL entry user:4242:rwx (mask::rwx) letting uid 4242 (no such user) write";
        }
        CHECK_THAT(reason(tree.file), StartsWith(subject + fact));
      }
    }
  }
}

TEST_CASE("a group may write only when all its members are trusted", "[path-trust]") {
  Tree tree;
  FakeAccounts accounts;
  accounts.users[0] = {"root", 0};
  accounts.users[1000] = {"alice", 1000};
  accounts.users[1001] = {"bob", 51};
  accounts.groups[0] = {"root", {}};
  accounts.groups[50] = {"staff", {"root", "alice"}};
  accounts.groups[51] = {"devs", {}};
  accounts.groups[52] = {"ghosts", {"ghost"}};
  accounts.groups[53] = {"admins", {"root"}};
  const path_trust::Policy as_root = accounts.policy(0);
  test::add_mode(tree.parent, S_IWGRP);

  SECTION("a supplementary member who is not trusted") {
    test::change_group(tree.parent, 50);
    CHECK_THAT(reason(tree.file, as_root),
               Contains("directory " + tree.parent.string() +
                        " is group-writable (mode 0775) and group staff (gid 50) has member "
                        "alice (uid 1000), who is neither root"));
  }
  SECTION("a user whose primary group it is") {
    test::change_group(tree.parent, 51);
    CHECK_THAT(reason(tree.file, as_root),
               Contains("group devs (gid 51) is the primary group of bob (uid 1001)"));
  }
  SECTION("a member name no user has") {
    test::change_group(tree.parent, 52);
    CHECK_THAT(reason(tree.file, as_root),
               Contains("group ghosts (gid 52) lists member ghost, who is no user of this system"));
  }
  SECTION("members root and the host's user only: trusted") {
    test::change_group(tree.parent, 53);
    CHECK(reason(tree.file, as_root) == "");
    test::change_group(tree.parent, 50);
    CHECK(reason(tree.file, accounts.policy(1000)) == "");  // the host runs as alice
  }
  SECTION("the owning group's ACL entry, under the mask") {
    test::remove_mode(tree.parent, S_IWGRP);
    test::change_group(tree.parent, 50);
    test::set_acl(tree.parent, "u::rwx,g::rwx,m::rwx,o::r-x");
    CHECK_THAT(reason(tree.file, as_root),
               Contains("is group-writable (ACL entry group::rwx (mask::rwx)) and group staff"));
    test::set_acl(tree.parent, "u::rwx,g::rwx,u:0:rwx,m::r-x,o::r-x");  // the mask takes w away
    CHECK(reason(tree.file, as_root) == "");
  }
  SECTION("a named group's ACL entry") {
    test::remove_mode(tree.parent, S_IWGRP);
    test::set_acl(tree.parent, "u::rwx,g::r-x,g:50:rwx,m::rwx,o::r-x");
    CHECK_THAT(reason(tree.file, as_root),
               Contains("has ACL entry group:50:rwx (mask::rwx) letting a group write, and "
                        "group staff (gid 50) has member alice (uid 1000)"));
  }
  SECTION("the host's own user may own it") {
    test::remove_mode(tree.parent, S_IWGRP);
    test::change_owner(tree.file, 1000);
    CHECK(reason(tree.file, accounts.policy(1000)) == "");
    CHECK_THAT(reason(tree.file, accounts.policy(1001)),
               Contains("is owned by uid 1000 (alice); only root or uid 1001 (bob) may own it"));
  }
}

TEST_CASE("ACL entries are judged through the mask and by whom they name", "[path-trust]") {
  REQUIRE(test::stranger_ids_unused());
  Tree tree;
  SECTION("a mask without write disarms a named user's write") {
    test::set_acl(tree.parent, "u::rwx,u:4242:rwx,g::r-x,m::r-x,o::r-x");
    CHECK(reason(tree.file) == "");
  }
  SECTION("a named user without write") {
    test::set_acl(tree.parent, "u::rwx,u:4242:r-x,g::r-x,m::rwx,o::r-x");
    CHECK(reason(tree.file) == "");
  }
  SECTION("a named group the system does not know") {
    test::set_acl(tree.file, "u::rw-,g::r--,g:4242:rw-,m::rw-,o::r--");
    CHECK(reason(tree.file) == "test file " + tree.file.string() +
                                   " has ACL entry group:4242:rw- (mask::rw-) letting a group "
                                   "write, and group 4242 is unknown to the system (who is in "
                                   "it cannot be known)");
  }
  SECTION("a named entry for the host's own user") {
    test::set_acl(tree.parent, "u::rwx,u:" + std::to_string(::geteuid()) + ":rwx,g::r-x,m::rwx,o::r-x");
    CHECK(reason(tree.file) == "");
  }
}

TEST_CASE("a sticky directory protects only entries trusted users own", "[path-trust]") {
  REQUIRE(test::stranger_ids_unused());
  Tree tree;
  fs::permissions(tree.ancestor, fs::perms(01777));
  SECTION("above a trusted entry: trusted") { CHECK(reason(tree.file) == ""); }
  SECTION("the sticky directory itself: anyone could add entries") {
    CHECK(reason(tree.ancestor) ==
          "test file " + tree.ancestor.string() + " is world-writable (mode 1777)");
  }
  SECTION("an entry that does not exist: anyone could create it") {
    CHECK_THAT(reason(tree.ancestor / "absent"),
               Contains("directory " + tree.ancestor.string() +
                        " is world-writable (mode 1777) and its entry absent does not exist"));
  }
  SECTION("a symlink owned by someone else: they can replace it") {
    fs::create_directory_symlink(tree.parent, tree.ancestor / "link");
    test::change_owner(tree.ancestor / "link", test::kStrangerUid);
    CHECK_THAT(reason(tree.ancestor / "link" / "file.txt"),
               Contains("directory " + tree.ancestor.string() +
                        " is world-writable (mode 1777) and its entry link is owned by uid 4242"));
  }
  SECTION("without the sticky bit") {
    fs::permissions(tree.ancestor, fs::perms(0777));
    CHECK_THAT(reason(tree.file), Contains("directory " + tree.ancestor.string() +
                                           " is world-writable (mode 0777)"));
  }
}

TEST_CASE("symlinks are followed and their targets' directories judged", "[path-trust]") {
  Tree tree;
  const fs::path wild = tree.temp.path() / "wild";
  fs::create_directories(wild / "real");
  fs::permissions(wild / "real", fs::perms(0755));
  fs::permissions(wild, fs::perms(0777));
  test::write_file(wild / "real" / "key.pub", "k");
  fs::permissions(wild / "real" / "key.pub", fs::perms(0644));

  SECTION("a link to a trusted place") {
    fs::create_directory_symlink(tree.parent, tree.temp.path() / "good");
    CHECK(reason(tree.temp.path() / "good" / "file.txt") == "");
  }
  SECTION("a link whose target lies under a world-writable directory") {
    fs::create_directory_symlink(wild / "real", tree.parent / "link");
    CHECK(reason(tree.parent / "link" / "key.pub") ==
          "test file " + (tree.parent / "link" / "key.pub").string() +
              " cannot be trusted: directory " + wild.string() + " is world-writable (mode 0777)");
  }
  SECTION("a relative link with .. is resolved physically") {
    fs::create_symlink("../wild/real/key.pub", tree.ancestor / "relative");
    CHECK_THAT(reason(tree.ancestor / "relative"), Contains("directory " + wild.string()));
  }
  SECTION("a symlink loop") {
    fs::create_symlink(tree.parent / "loop", tree.parent / "loop");
    CHECK_THAT(reason(tree.parent / "loop"), Contains("passes through more than 40 symlinks"));
  }
}
