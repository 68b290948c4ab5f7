// What the dynamic linker may pull in for a plugin: RPATH/RUNPATH entries,
// NEEDED libraries, declared host libraries resolved by absolute path in the
// allowed directories, and the host configuration that adds directories.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "loader/elf_dynamic.hpp"
#include "loader/host_config.hpp"
#include "loader/library_policy.hpp"
#include "loader/verified_loader.hpp"
#include "support/bundle_fixture.hpp"
#include "support/permission_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using Catch::Matchers::Contains;

namespace {

constexpr const char* kDependency = "libalgenta_testdep.so.1";

struct VariantBundle {
  test::TempDir dir;
  fs::path bundle = dir.path() / "bundle";
  fs::path libraries = dir.path() / "libs";
  manifest::PluginEntry entry;

  explicit VariantBundle(const std::string& plugin) {
    fs::create_directory(bundle);
    fs::create_directory(libraries);
    fs::permissions(bundle, fs::perms(0755));
    fs::permissions(libraries, fs::perms(0755));
    const fs::path source = test::test_plugin_dir() / ("lib" + plugin + ".so");
    fs::copy_file(source, bundle / source.filename());
    entry = test::entry_for_file(bundle / source.filename(), plugin, "engine", "sm_86");
    fs::copy_file(ALGENTA_TEST_DEPENDENCY, libraries / kDependency);
  }

  std::unique_ptr<loader::LoadedPlugin> load(const std::vector<fs::path>& configured = {}) const {
    return loader::load_verified_plugin(bundle, entry, {}, configured);
  }
};

void write_config(const fs::path& file, const std::string& text) {
  test::write_file(file, text);
  fs::permissions(file, fs::perms(0644));
}

}  // namespace

TEST_CASE("search paths that could lead the dynamic linker to unverified code are refused",
          "[loader][library-policy]") {
  SECTION("RUNPATH .") {
    VariantBundle b("acme_rpath_dot");
    REQUIRE_THROWS_WITH(b.load(), Contains("acme_rpath_dot (libacme_rpath_dot.so): RUNPATH entry "
                                           "'.' is relative"));
  }
  SECTION("RUNPATH $ORIGIN") {
    VariantBundle b("acme_rpath_origin");
    REQUIRE_THROWS_WITH(b.load(), Contains("RUNPATH entry '$ORIGIN' contains '$'"));
  }
  SECTION("RUNPATH with an empty element") {
    VariantBundle b("acme_rpath_empty");
    REQUIRE_THROWS_WITH(b.load(), Contains("RUNPATH entry '' is empty") &&
                                      Contains("search the working directory"));
  }
  SECTION("DT_RPATH relative") {
    VariantBundle b("acme_old_rpath");
    REQUIRE_THROWS_WITH(b.load(), Contains("RPATH entry 'lib' is relative"));
  }
  SECTION("RUNPATH outside the allowed directories, then configured") {
    VariantBundle b("acme_rpath_opt");
    REQUIRE_THROWS_WITH(b.load(), Contains("RUNPATH entry '/opt/acme/lib' is not an allowed "
                                           "library directory (allowed: /lib/x86_64-linux-gnu"));
    CHECK(std::string(b.load({"/opt/acme/lib"})->descriptor().name) == "acme_rpath_opt");
  }
}

TEST_CASE("NEEDED libraries must be system libraries or declared host libraries",
          "[loader][library-policy]") {
  REQUIRE(test::stranger_ids_unused());
  VariantBundle b("acme_needs_dep");

  SECTION("undeclared: refused naming it") {
    REQUIRE_THROWS_WITH(b.load({b.libraries}),
                        Contains(std::string("NEEDED library ") + kDependency +
                                 " is neither a system library (in /lib/x86_64-linux-gnu") &&
                            Contains("nor declared in the manifest's host_libraries"));
  }
  SECTION("declared, but in no allowed directory") {
    b.entry.host_libraries = {kDependency};
    REQUIRE_THROWS_WITH(b.load(), Contains(std::string("declared host library ") + kDependency +
                                           " cannot be loaded: not found in /lib/x86_64-linux-gnu"));
  }
  SECTION("declared and in a configured directory: loaded from there, path reported") {
    b.entry.host_libraries = {kDependency};
    const auto plugin = b.load({b.libraries});
    CHECK(std::string(plugin->descriptor().name) == "acme_needs_dep");
    REQUIRE(plugin->host_libraries().size() == 1);
    CHECK(plugin->host_libraries()[0].soname == kDependency);
    CHECK(plugin->host_libraries()[0].path == b.libraries / kDependency);
  }
  SECTION("declared, in a configured directory someone else could write") {
    b.entry.host_libraries = {kDependency};
    test::change_group(b.libraries, test::kStrangerGid);
    test::add_mode(b.libraries, S_IWGRP);
    REQUIRE_THROWS_WITH(b.load({b.libraries}),
                        Contains(std::string("declared host library ") + kDependency +
                                 " cannot be trusted: host library " +
                                 (b.libraries / kDependency).string() +
                                 " cannot be trusted: directory " + b.libraries.string() +
                                 " is group-writable (mode 0775) and group 4242 is unknown"));
  }
}

TEST_CASE("a declared host library must be a soname", "[loader][library-policy]") {
  VariantBundle b("acme_engine");
  b.entry.host_libraries = {(b.libraries / kDependency).string()};
  REQUIRE_THROWS_WITH(b.load({b.libraries}), Contains("declared host library '" +
                                                      (b.libraries / kDependency).string() +
                                                      "' is a path; only sonames are allowed"));
}

TEST_CASE("the build's plugins carry no RUNPATH or RPATH", "[loader][library-policy][vendor]") {
  for (const auto& item : fs::directory_iterator(test::vendor_bundle_dir())) {
    if (item.path().extension() != ".so") continue;
    INFO(item.path().string());
    const loader::ElfDynamic d = loader::read_elf_dynamic(test::read_file(item.path()));
    CHECK(d.runpath.empty());
    CHECK(d.rpath.empty());
  }
  const loader::ElfDynamic acme =
      loader::read_elf_dynamic(test::read_file(test::test_plugin_dir() / "libacme_needs_dep.so"));
  CHECK(acme.runpath.empty());  // even when linked against a library in the build tree
  CHECK(acme.rpath.empty());
}

TEST_CASE("the host configuration lists trusted absolute library directories",
          "[loader][host-config]") {
  REQUIRE(test::stranger_ids_unused());
  test::TempDir temp;
  const fs::path file = temp.path() / "host.json";
  const fs::path libs = temp.path() / "libs";
  fs::create_directory(libs);
  fs::permissions(libs, fs::perms(0755));

  SECTION("missing: no extra directories") {
    CHECK(loader::load_host_config(file).library_directories.empty());
  }
  SECTION("a trusted directory") {
    write_config(file, "{\"library_directories\": [\"" + libs.string() + "\"]}");
    CHECK(loader::load_host_config(file).library_directories == std::vector<fs::path>{libs});
  }
  SECTION("a relative directory") {
    write_config(file, "{\"library_directories\": [\"lib\"]}");
    REQUIRE_THROWS_WITH(loader::load_host_config(file),
                        Contains("host configuration " + file.string() +
                                 " library_directories[0] \"lib\" is not an absolute path"));
  }
  SECTION("a directory with $") {
    write_config(file, "{\"library_directories\": [\"/opt/$LIB\"]}");
    REQUIRE_THROWS_WITH(loader::load_host_config(file), Contains("contains '$'"));
  }
  SECTION("a directory others may write") {
    fs::permissions(libs, fs::perms(0777));
    write_config(file, "{\"library_directories\": [\"" + libs.string() + "\"]}");
    REQUIRE_THROWS_WITH(loader::load_host_config(file),
                        Contains("lists library_directories[0]: library directory " +
                                 libs.string() + " is world-writable (mode 0777)"));
  }
  SECTION("a file others may write") {
    write_config(file, "{\"library_directories\": []}");
    test::set_acl(file, "u::rw-,u:4242:rw-,g::r--,m::rw-,o::r--");
    REQUIRE_THROWS_WITH(loader::load_host_config(file),
                        Contains("host configuration " + file.string() +
                                 " has ACL entry user:4242:rw- (mask::rw-)"));
  }
  SECTION("unknown fields, repeated keys, wrong types") {
    write_config(file, "{\"library_dirs\": []}");
    REQUIRE_THROWS_WITH(loader::load_host_config(file), Contains("unknown field \"library_dirs\""));
    write_config(file, "{\"library_directories\": [], \"library_directories\": []}");
    REQUIRE_THROWS_WITH(loader::load_host_config(file), Contains("is not valid JSON"));
    write_config(file, "{\"library_directories\": \"/usr/lib\"}");
    REQUIRE_THROWS_WITH(loader::load_host_config(file), Contains("not an array of strings"));
  }
  SECTION("over the size cap") {
    write_config(file, std::string(loader::kMaxHostConfigBytes + 1, ' '));
    REQUIRE_THROWS_WITH(loader::load_host_config(file),
                        Contains("is 65537 bytes, over the cap of 65536 bytes"));
  }
}

TEST_CASE("the build writes its host configuration beside the keyring", "[host-config]") {
  const fs::path file = fs::path(ALGENTA_TEST_BUILD_DIR) / "etc" / "algenta" / "host.json";
  const loader::HostConfig config = loader::load_host_config(file);
#ifdef ALGENTA_TEST_EXPECT_CUDA_PLUGINS
  CHECK(config.library_directories.size() == 1);
#else
  CHECK(config.library_directories.empty());
  CHECK(test::read_file(file) == "{\"library_directories\": []}\n");
#endif
}
