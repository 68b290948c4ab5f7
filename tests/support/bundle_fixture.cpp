#include "support/bundle_fixture.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace algenta::test {
namespace fs = std::filesystem;

TempDir::TempDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path candidate = fs::temp_directory_path() /
                         ("algenta-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    if (fs::create_directory(candidate)) {
      fs::permissions(candidate, fs::perms::owner_all | fs::perms::group_read |
                                     fs::perms::group_exec | fs::perms::others_read |
                                     fs::perms::others_exec);
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("could not create a temporary directory");
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

TestKey make_test_key() {
  TestKey key;
  key.pair = manifest::generate_ed25519_keypair();
  key.key_id = manifest::key_id_of_public_pem(key.pair.public_pem);
  return key;
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void write_file(const fs::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + file.string());
  out << bytes;
}

manifest::PluginEntry entry_for_file(const fs::path& file, const std::string& name,
                                     const std::string& role, const std::string& target) {
  const std::string bytes = read_file(file);
  manifest::PluginEntry entry;
  entry.file = file.filename().string();
  entry.sha256 = manifest::sha256_hex(bytes);
  entry.size = bytes.size();
  entry.name = name;
  entry.role = role;
  entry.target = target;
  entry.abi_major = 1;
  entry.abi_minor = 0;
  entry.families = {"llama"};
  return entry;
}

std::int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

manifest::Manifest make_manifest(const TestKey& key, std::uint64_t version, int valid_days) {
  manifest::Manifest m;
  m.version = version;
  m.issued = manifest::format_utc_timestamp(now_unix() - 3600);
  m.expires = manifest::format_utc_timestamp(now_unix() + std::int64_t{valid_days} * 86400);
  m.key_id = key.key_id;
  return m;
}

void write_signed_manifest(const fs::path& bundle, const manifest::Manifest& m,
                           const TestKey& key) {
  const std::string bytes = manifest::serialize_manifest(m);
  write_file(bundle / "manifest.json", bytes);
  write_file(bundle / "manifest.json.sig", manifest::sign_ed25519(key.pair.private_pem, bytes));
}

fs::path test_plugin_dir() { return ALGENTA_TEST_PLUGIN_DIR; }
fs::path vendor_bundle_dir() { return ALGENTA_TEST_VENDOR_BUNDLE; }
fs::path host_exe() { return ALGENTA_TEST_HOST_EXE; }
fs::path sign_exe() { return ALGENTA_TEST_SIGN_EXE; }

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed for: " + command);
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.output.append(buffer.data(), n);
  }
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace algenta::test
