// The verified load path: every fail-closed case names its fact, and only
// the bytes that were verified ever run.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include "loader/host_config.hpp"
#include "loader/plugin_calls.hpp"
#include "loader/verified_loader.hpp"
#include "manifest/trust.hpp"
#include "support/bundle_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using Catch::Matchers::Contains;

namespace {

// A bundle directory holding one copy of a built test plugin.
struct OnePluginBundle {
  test::TempDir dir;
  fs::path file;
  manifest::PluginEntry entry;

  explicit OnePluginBundle(const std::string& plugin, const std::string& name = "",
                           const std::string& target = "sm_86") {
    const fs::path source = test::test_plugin_dir() / ("lib" + plugin + ".so");
    file = dir.path() / source.filename();
    fs::copy_file(source, file);
    entry = test::entry_for_file(file, name.empty() ? plugin : name, "engine", target);
  }
};

// The build's vendor bundle, verified under the build's keyring.
manifest::BundleVerdict verified_vendor_bundle() {
  const fs::path keyring_dir = test::vendor_bundle_dir() / ".." / ".." / ".." / ".." / "etc" /
                               "algenta" / "keyring";
  const manifest::Keyring keyring = manifest::Keyring::load(keyring_dir);
  manifest::VersionState state;
  manifest::BundleVerdict verdict =
      manifest::verify_bundle(test::vendor_bundle_dir(), keyring, state, test::now_unix());
  INFO(verdict.reason);
  REQUIRE(verdict.accepted);
  return verdict;
}

// The library directories the build's host configuration lists (the CUDA
// toolkit's, where the CUDA engines' cuBLAS comes from).
std::vector<fs::path> build_library_directories() {
  const fs::path config = test::vendor_bundle_dir() / ".." / ".." / ".." / ".." / "etc" /
                          "algenta" / "host.json";
  return loader::load_host_config(config).library_directories;
}

}  // namespace

TEST_CASE("a third-party plugin signed under its own key loads and answers", "[loader]") {
  OnePluginBundle bundle("acme_engine");
  const test::TestKey acme_key = test::make_test_key();
  manifest::Manifest m = test::make_manifest(acme_key, 1);
  m.plugins.push_back(bundle.entry);
  test::write_signed_manifest(bundle.dir.path(), m, acme_key);

  manifest::Keyring keyring;
  keyring.add(acme_key.pair.public_pem);
  manifest::VersionState state;
  const manifest::BundleVerdict verdict =
      manifest::verify_bundle(bundle.dir.path(), keyring, state, test::now_unix());
  INFO(verdict.reason);
  REQUIRE(verdict.accepted);

  const auto plugin = loader::load_verified_plugin(bundle.dir.path(), verdict.manifest->plugins[0]);
  CHECK(std::string(plugin->descriptor().name) == "acme_engine");
  CHECK(std::string(plugin->descriptor().target) == "sm_86");
  CHECK(plugin->descriptor().role == ALGENTA_ROLE_ENGINE);

  // The plugin answers calls through the table, with errors it owns.
  AlgentaEngineOpen_Args args{};
  args.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
  AlgentaError* error = plugin->table().engine_open(&args);
  REQUIRE(error != nullptr);
  const loader::PluginFailure failure = loader::take_error(plugin->table(), error);
  CHECK(failure.code == ALGENTA_STATUS_UNIMPLEMENTED);
  CHECK(failure.message == "acme_engine runs no models");
}

TEST_CASE("the loader refuses files that do not match their entry", "[loader]") {
  OnePluginBundle bundle("acme_engine");

  SECTION("digest mismatch") {
    bundle.entry.sha256 = std::string(64, 'a');
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("has sha256") && Contains("the manifest says " + std::string(64, 'a')));
  }
  SECTION("size mismatch") {
    bundle.entry.size += 1;
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("bytes; the manifest says " + std::to_string(bundle.entry.size)));
  }
  SECTION("file missing") {
    fs::remove(bundle.file);
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("is missing"));
  }
  SECTION("symlink") {
    fs::rename(bundle.file, bundle.dir.path() / "real.so");
    fs::create_symlink(bundle.dir.path() / "real.so", bundle.file);
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("is a symlink"));
  }
  SECTION("world-writable plugin file") {
    fs::permissions(bundle.file, fs::perms::others_write, fs::perm_options::add);
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("is world-writable"));
  }
  SECTION("world-writable bundle directory") {
    fs::permissions(bundle.dir.path(), fs::perms::others_write, fs::perm_options::add);
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("bundle directory") && Contains("world-writable"));
  }
  SECTION("manifest declares another ABI major") {
    bundle.entry.abi_major = 2;
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("declares ABI major 2") && Contains("speaks ABI major 1"));
  }
  SECTION("manifest target disagrees with the descriptor") {
    bundle.entry.target = "sm_90a";
    REQUIRE_THROWS_WITH(
        loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
        Contains("descriptor target 'sm_86' disagrees with manifest target 'sm_90a'"));
  }
  SECTION("manifest name disagrees with the descriptor") {
    bundle.entry.name = "acme_other";
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("descriptor name 'acme_engine' disagrees"));
  }
  SECTION("manifest role disagrees with the descriptor") {
    bundle.entry.role = "oracle";
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("descriptor role 'engine' disagrees with manifest role 'oracle'"));
  }
  SECTION("declared host library missing") {
    bundle.entry.host_libraries = {"libalgenta-absent-test.so.7"};
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("declared host library libalgenta-absent-test.so.7 cannot be loaded"));
  }
}

TEST_CASE("a plugin built for another ABI major returns no table", "[loader]") {
  OnePluginBundle bundle("acme_abi2");
  REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                      Contains("returned no table") && Contains("ABI major 1"));
}

TEST_CASE("only the verified bytes run when the file is swapped after verification", "[loader]") {
  OnePluginBundle bundle("acme_engine");
  const fs::path impostor = test::test_plugin_dir() / "libacme_swapped.so";
  bool swapped = false;
  const auto plugin = loader::load_verified_plugin(bundle.dir.path(), bundle.entry, [&] {
    fs::copy_file(impostor, bundle.file, fs::copy_options::overwrite_existing);
    swapped = true;
  });
  REQUIRE(swapped);
  // The file on disk is now the impostor ...
  CHECK(manifest::sha256_hex(test::read_file(bundle.file)) ==
        manifest::sha256_hex(test::read_file(impostor)));
  CHECK(manifest::sha256_hex(test::read_file(bundle.file)) != bundle.entry.sha256);
  // ... but the code that runs is the one that was verified.
  CHECK(std::string(plugin->descriptor().name) == "acme_engine");
}

TEST_CASE("a plugin with a bad digest never runs its constructor", "[loader]") {
  test::TempDir scratch;
  const fs::path marker = scratch.path() / "constructor-ran";
  ::setenv("ALGENTA_TEST_MARKER", marker.c_str(), 1);
  OnePluginBundle bundle("acme_marker");

  SECTION("bad digest: refused, marker absent") {
    bundle.entry.sha256[0] = bundle.entry.sha256[0] == '0' ? '1' : '0';
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(bundle.dir.path(), bundle.entry),
                        Contains("has sha256"));
    CHECK_FALSE(fs::exists(marker));
  }
  SECTION("control: the correct digest loads it and the marker appears") {
    const auto plugin = loader::load_verified_plugin(bundle.dir.path(), bundle.entry);
    CHECK(fs::exists(marker));
  }
  ::unsetenv("ALGENTA_TEST_MARKER");
}

TEST_CASE("every plugin of the build's signed vendor bundle loads through the verified path",
          "[loader][vendor]") {
  const manifest::BundleVerdict verdict = verified_vendor_bundle();

  bool saw_oracle = false;
  for (const manifest::PluginEntry& entry : verdict.manifest->plugins) {
    INFO(entry.name);
    const auto plugin =
        loader::load_verified_plugin(test::vendor_bundle_dir(), entry, {}, build_library_directories());
    CHECK(std::string(plugin->descriptor().name) == entry.name);
    CHECK(std::string(plugin->descriptor().target) == entry.target);
    if (entry.name == "cpu_oracle") {
      saw_oracle = true;
      CHECK(plugin->descriptor().role == ALGENTA_ROLE_ORACLE);
    } else {
      // CUDA engines declare cuBLAS(Lt) and were loaded after preloading them
      // by absolute path from the build's configured library directory.
      CHECK(entry.host_libraries.size() == 2);
      REQUIRE(plugin->host_libraries().size() == 2);
      for (const loader::HostLibrary& library : plugin->host_libraries()) {
        CHECK(library.path.is_absolute());
      }
      CHECK(entry.min_driver == 580);
    }
  }
  CHECK(saw_oracle);
#ifdef ALGENTA_TEST_EXPECT_CUDA_PLUGINS
  CHECK(verdict.manifest->plugins.size() == 5);
#endif
}

TEST_CASE("plugins loaded one after another in one process each keep their own code",
          "[loader][vendor]") {
  // Each load is a fresh memfd whose number the kernel may reuse once closed;
  // the dynamic linker must never hand back an earlier plugin for it.
  const manifest::BundleVerdict verdict = verified_vendor_bundle();
  OnePluginBundle acme("acme_engine");

  std::vector<std::unique_ptr<loader::LoadedPlugin>> live;
  for (const manifest::PluginEntry& entry : verdict.manifest->plugins) {
    live.push_back(
        loader::load_verified_plugin(test::vendor_bundle_dir(), entry, {}, build_library_directories()));
  }
  live.push_back(loader::load_verified_plugin(acme.dir.path(), acme.entry));
  for (const auto& plugin : live) {
    CHECK(std::string(plugin->descriptor().name) == plugin->entry().name);
  }
  // Unloading one and loading another: the newcomer is itself.
  live.erase(live.begin());
  const auto again = loader::load_verified_plugin(acme.dir.path(), acme.entry);
  CHECK(std::string(again->descriptor().name) == "acme_engine");
}
