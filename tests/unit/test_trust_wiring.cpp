// The who-may-write rule where the host reads what it trusts: plugin files
// and bundle directories (loader), manifest and signature (verify_bundle),
// keyring, version state file, plugins root, host configuration.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "loader/verified_loader.hpp"
#include "manifest/trust.hpp"
#include "manifest/trusted_paths.hpp"
#include "support/bundle_fixture.hpp"
#include "support/permission_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using Catch::Matchers::Contains;

namespace {

// temp/root/bundle holding a copy of the acme_engine plugin, signed.
struct Bundle {
  test::TempDir temp;
  fs::path root = temp.path() / "root";
  fs::path bundle = root / "bundle";
  fs::path plugin = bundle / "libacme_engine.so";
  test::TestKey key = test::make_test_key();
  manifest::Keyring keyring;
  manifest::PluginEntry entry;

  Bundle() {
    fs::create_directories(bundle);
    fs::permissions(root, fs::perms(0755));
    fs::permissions(bundle, fs::perms(0755));
    fs::copy_file(test::test_plugin_dir() / "libacme_engine.so", plugin);
    entry = test::entry_for_file(plugin, "acme_engine", "engine", "sm_86");
    manifest::Manifest m = test::make_manifest(key, 1);
    m.plugins.push_back(entry);
    test::write_signed_manifest(bundle, m, key);
    keyring.add(key.pair.public_pem);
  }

  std::string verdict() const {
    manifest::VersionState state;
    const manifest::BundleVerdict v = manifest::verify_bundle(bundle, keyring, state, test::now_unix());
    return v.accepted ? "accepted" : v.reason;
  }
};

}  // namespace

TEST_CASE("the loader refuses plugins and bundles others could change", "[loader][path-trust]") {
  REQUIRE(test::stranger_ids_unused());
  Bundle b;
  REQUIRE(loader::load_verified_plugin(b.bundle, b.entry) != nullptr);

  SECTION("a group-writable plugin file") {
    test::change_group(b.plugin, test::kStrangerGid);
    test::add_mode(b.plugin, S_IWGRP);
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(b.bundle, b.entry),
                        Contains("plugin file " + b.plugin.string() +
                                 " is group-writable (mode 0775) and group 4242 is unknown"));
  }
  SECTION("a plugin file owned by another user") {
    test::change_owner(b.plugin, test::kStrangerUid);
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(b.bundle, b.entry),
                        Contains("plugin file " + b.plugin.string() +
                                 " is owned by uid 4242 (no such user)"));
  }
  SECTION("a group-writable bundle directory") {
    test::change_group(b.bundle, test::kStrangerGid);
    test::add_mode(b.bundle, S_IWGRP);
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(b.bundle, b.entry),
                        Contains("bundle directory " + b.bundle.string() +
                                 " is group-writable (mode 0775)"));
  }
  SECTION("a bundle directory owned by another user") {
    test::change_owner(b.bundle, test::kStrangerUid);
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(b.bundle, b.entry),
                        Contains("bundle directory " + b.bundle.string() +
                                 " is owned by uid 4242 (no such user)"));
  }
  SECTION("an ACL on a directory above the bundle") {
    test::set_acl(b.root, "u::rwx,u:4242:rwx,g::r-x,m::rwx,o::r-x");
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(b.bundle, b.entry),
                        Contains("bundle directory " + b.bundle.string() +
                                 " cannot be trusted: directory " + b.root.string() +
                                 " has ACL entry user:4242:rwx (mask::rwx)"));
  }
}

TEST_CASE("verify_bundle refuses a manifest, signature or bundle others could change",
          "[trust][path-trust]") {
  REQUIRE(test::stranger_ids_unused());
  Bundle b;
  REQUIRE(b.verdict() == "accepted");
  SECTION("a group-writable manifest.json") {
    test::change_group(b.bundle / "manifest.json", test::kStrangerGid);
    test::add_mode(b.bundle / "manifest.json", S_IWGRP);
    CHECK_THAT(b.verdict(), Contains("bundle file " + (b.bundle / "manifest.json").string() +
                                     " is group-writable"));
  }
  SECTION("a signature owned by another user") {
    test::change_owner(b.bundle / "manifest.json.sig", test::kStrangerUid);
    CHECK_THAT(b.verdict(), Contains("bundle file " + (b.bundle / "manifest.json.sig").string() +
                                     " is owned by uid 4242"));
  }
  SECTION("a bundle directory owned by another user") {
    test::change_owner(b.bundle, test::kStrangerUid);
    CHECK_THAT(b.verdict(), Contains("bundle directory " + b.bundle.string() + " is owned by uid 4242"));
  }
  SECTION("a bundle directory with an ACL entry for a group nobody knows") {
    test::set_acl(b.bundle, "u::rwx,g::r-x,g:4242:rwx,m::rwx,o::r-x");
    CHECK_THAT(b.verdict(), Contains("bundle directory " + b.bundle.string() +
                                     " has ACL entry group:4242:rwx (mask::rwx)"));
  }
}

TEST_CASE("the keyring and the version state file must be changeable only by trusted users",
          "[trust][path-trust]") {
  REQUIRE(test::stranger_ids_unused());
  test::TempDir temp;
  const fs::path keyring = temp.path() / "keyring";
  fs::create_directory(keyring);
  fs::permissions(keyring, fs::perms(0755));
  const test::TestKey key = test::make_test_key();
  const fs::path key_file = keyring / (key.key_id + ".pub");
  test::write_file(key_file, key.pair.public_pem);
  fs::permissions(key_file, fs::perms(0644));
  REQUIRE(manifest::Keyring::load(keyring).key_ids().size() == 1);

  SECTION("a group-writable keyring directory") {
    test::change_group(keyring, test::kStrangerGid);
    test::add_mode(keyring, S_IWGRP);
    REQUIRE_THROWS_WITH(manifest::Keyring::load(keyring),
                        Contains("keyring directory " + keyring.string() + " is group-writable"));
  }
  SECTION("a key file owned by another user") {
    test::change_owner(key_file, test::kStrangerUid);
    REQUIRE_THROWS_WITH(manifest::Keyring::load(keyring),
                        Contains("keyring file " + key_file.string() + " is owned by uid 4242"));
  }
  SECTION("a key file with a write ACL for another user") {
    test::set_acl(key_file, "u::rw-,u:4242:rw-,g::r--,m::rw-,o::r--");
    REQUIRE_THROWS_WITH(manifest::Keyring::load(keyring),
                        Contains("keyring file " + key_file.string() + " has ACL entry user:4242:rw-"));
  }
  SECTION("a version state file and its directory") {
    const fs::path state = temp.path() / "state" / "versions.json";
    fs::create_directory(temp.path() / "state");
    fs::permissions(temp.path() / "state", fs::perms(0755));
    CHECK_NOTHROW(manifest::require_trusted_state_file(state));  // not made yet
    test::write_file(state, "{\"versions\": {}}\n");
    fs::permissions(state, fs::perms(0644));
    CHECK_NOTHROW(manifest::require_trusted_state_file(state));
    test::add_mode(state, S_IWOTH);
    REQUIRE_THROWS_WITH(manifest::require_trusted_state_file(state),
                        Contains("version state file " + state.string() + " is world-writable"));
    test::remove_mode(state, S_IWOTH);
    test::change_owner(temp.path() / "state", test::kStrangerUid);
    REQUIRE_THROWS_WITH(manifest::require_trusted_state_file(state),
                        Contains("directory " + (temp.path() / "state").string() +
                                 " is owned by uid 4242"));
  }
}

TEST_CASE("algenta-host refuses a plugins root, state file or host configuration others could change",
          "[host-cli][path-trust]") {
  REQUIRE(test::stranger_ids_unused());
  test::TempDir temp;
  const fs::path root = temp.path() / "plugins";
  fs::create_directory(root);
  fs::copy(test::vendor_bundle_dir(), root / "vendor", fs::copy_options::recursive);
  fs::permissions(root, fs::perms(0755));
  const fs::path state = temp.path() / "state.json";
  const std::string host = test::host_exe().string() + " --plugins-root " + root.string() +
                           " --state-file " + state.string();

  SECTION("plugins root") {
    test::change_group(root, test::kStrangerGid);
    test::add_mode(root, S_IWGRP);
    const test::CommandResult r = test::run_command(host + " doctor");
    INFO(r.output);
    CHECK_THAT(r.output, Contains("plugins root " + root.string() + " is group-writable (mode 0775)"));
    CHECK_THAT(r.output, !Contains("accepted (version"));
  }
  SECTION("version state file") {
    test::write_file(state, "{\"versions\": {}}\n");
    test::change_owner(state, test::kStrangerUid);
    const test::CommandResult r = test::run_command(host + " doctor");
    INFO(r.output);
    CHECK_THAT(r.output, Contains("version state file " + state.string() + " is owned by uid 4242"));
    CHECK_THAT(r.output, !Contains("accepted (version"));
  }
  SECTION("host configuration") {
    const fs::path config = temp.path() / "host.json";
    test::write_file(config, "{\"library_directories\": []}\n");
    fs::permissions(config, fs::perms(0666));
    const test::CommandResult r =
        test::run_command("ALGENTA_HOST_CONFIG=" + config.string() + " " + host + " doctor");
    INFO(r.output);
    CHECK_THAT(r.output, Contains("host configuration " + config.string() +
                                  " is world-writable (mode 0666)"));
    CHECK_THAT(r.output, !Contains("accepted (version"));
  }
  SECTION("control: all trusted, the bundle is accepted and the host libraries listed") {
    const test::CommandResult r = test::run_command(host + " doctor");
    INFO(r.output);
    CHECK_THAT(r.output, Contains("accepted (version"));
    CHECK_THAT(r.output, Contains("library directories: /lib/x86_64-linux-gnu"));
  }
}
