// Helpers for tests that build signed bundles in temporary directories.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "manifest/crypto.hpp"
#include "manifest/manifest.hpp"

namespace algenta::test {

// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct TestKey {
  manifest::KeyPair pair;
  std::string key_id;
};
TestKey make_test_key();

std::string read_file(const std::filesystem::path& file);
void write_file(const std::filesystem::path& file, const std::string& bytes);

// An entry describing `file` as it is on disk (sha256 and size computed).
manifest::PluginEntry entry_for_file(const std::filesystem::path& file, const std::string& name,
                                     const std::string& role, const std::string& target);

// A manifest valid from an hour ago for `valid_days`, signed by `key`.
manifest::Manifest make_manifest(const TestKey& key, std::uint64_t version, int valid_days = 30);

// Writes manifest.json (canonical bytes) and manifest.json.sig into `bundle`.
void write_signed_manifest(const std::filesystem::path& bundle, const manifest::Manifest& m,
                           const TestKey& key);

std::int64_t now_unix();

// Where the build put things (compile definitions from tests/CMakeLists.txt).
std::filesystem::path test_plugin_dir();   // unsigned test plugins
std::filesystem::path vendor_bundle_dir(); // the build's signed vendor bundle
std::filesystem::path host_exe();
std::filesystem::path sign_exe();

// Runs a shell command; returns its exit status and captures stdout+stderr.
struct CommandResult {
  int exit_code = -1;
  std::string output;
};
CommandResult run_command(const std::string& command);

}  // namespace algenta::test
