// What the build and algenta-sign create carries no group or other write,
// whatever the umask: the host would refuse it otherwise.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "path_trust/path_trust.hpp"
#include "support/bundle_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta;

namespace {

mode_t mode_of(const fs::path& path) {
  struct stat info {};
  REQUIRE(::lstat(path.c_str(), &info) == 0);
  return info.st_mode & 07777;
}

}  // namespace

TEST_CASE("algenta-sign makes keys, keyrings and manifests without group or other write under umask 0002",
          "[sign-cli][path-trust]") {
  test::TempDir temp;
  const fs::path keys = temp.path() / "keys";
  fs::create_directory(keys);
  fs::permissions(keys, fs::perms(0700));
  const fs::path keyring = temp.path() / "etc" / "algenta" / "keyring";
  const fs::path bundle = temp.path() / "bundle";
  fs::create_directory(bundle);
  fs::permissions(bundle, fs::perms(0755));
  fs::copy_file(test::test_plugin_dir() / "libacme_engine.so", bundle / "libacme_engine.so");
  fs::permissions(bundle / "libacme_engine.so", fs::perms(0644));

  const std::string sign = "umask 0002 && " + test::sign_exe().string();
  const test::CommandResult made = test::run_command(
      sign + " keygen --private " + (keys / "k.key").string() + " --public " + (keys / "k.pub").string() +
      " && " + sign + " trust --public " + (keys / "k.pub").string() + " --keyring " + keyring.string() +
      " && " + sign + " sign --key " + (keys / "k.key").string() + " --plugins " + bundle.string());
  INFO(made.output);
  REQUIRE(made.exit_code == 0);

  CHECK(mode_of(keys / "k.key") == 0600);
  CHECK(mode_of(keys / "k.pub") == 0644);
  for (const fs::path& dir : {temp.path() / "etc", temp.path() / "etc" / "algenta", keyring}) {
    INFO(dir.string());
    CHECK(mode_of(dir) == 0755);
  }
  for (const auto& item : fs::directory_iterator(keyring)) {
    INFO(item.path().string());
    CHECK(mode_of(item.path()) == 0644);
    CHECK(path_trust::untrusted_reason(item.path(), "keyring file") == std::nullopt);
  }
  CHECK(mode_of(bundle / "manifest.json") == 0644);
  CHECK(mode_of(bundle / "manifest.json.sig") == 0644);

  const test::CommandResult verified = test::run_command(
      test::sign_exe().string() + " verify --keyring " + keyring.string() + " --plugins " + bundle.string());
  INFO(verified.output);
  CHECK(verified.exit_code == 0);
}

TEST_CASE("the build tree's bundle, keyring and host configuration carry no group or other write",
          "[path-trust][vendor]") {
  const fs::path build = ALGENTA_TEST_BUILD_DIR;
  for (const fs::path& path :
       {build, build / "lib" / "algenta" / "plugins", test::vendor_bundle_dir(),
        build / "etc" / "algenta" / "keyring", build / "etc" / "algenta" / "host.json",
        test::test_plugin_dir()}) {
    INFO(path.string());
    CHECK((mode_of(path) & 022) == 0);
  }
  for (const fs::path& dir : {test::vendor_bundle_dir(), build / "etc" / "algenta" / "keyring"}) {
    for (const auto& item : fs::directory_iterator(dir)) {
      INFO(item.path().string());
      CHECK((mode_of(item.path()) & 022) == 0);
    }
  }
}
