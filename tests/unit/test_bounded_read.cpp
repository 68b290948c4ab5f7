// Whole-file reads check the size before reading: a huge sparse file costs
// one fstat, a FIFO is refused without waiting for a writer, and every
// refusal names the path, the size and the cap.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/mapped_file.hpp"
#include "files/bounded_read.hpp"
#include "files/file_caps.hpp"
#include "manifest/trust.hpp"
#include "support/bundle_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using Catch::Contains;
using files::FileReadError;

namespace {

constexpr std::uint64_t kTwoGiB = std::uint64_t{2} << 30;
constexpr files::SizeCap kConfigCap{4u << 20, "a config.json"};

// A file of `size` bytes that occupies no disk: ftruncate leaves a hole.
void make_sparse(const fs::path& file, std::uint64_t size) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  const int truncated = ::ftruncate(fd, static_cast<off_t>(size));
  ::close(fd);
  REQUIRE(truncated == 0);
}

FileReadError::Kind kind_of_refusal(const fs::path& file, files::SizeCap cap) {
  try {
    files::read_bounded(file, cap);
  } catch (const FileReadError& error) {
    return error.kind;
  }
  FAIL("read_bounded accepted " << file);
  return FileReadError::Kind::unreadable;
}

}  // namespace

TEST_CASE("a file within its cap is read whole", "[files]") {
  test::TempDir temp;
  const fs::path file = temp.path() / "config.json";
  test::write_file(file, "{\"a\": 1}");
  CHECK(files::read_bounded(file, kConfigCap) == "{\"a\": 1}");
  CHECK(files::read_bounded(file, {8, "an eight-byte file"}) == "{\"a\": 1}");
  test::write_file(file, "");
  CHECK(files::read_bounded(file, kConfigCap).empty());
}

TEST_CASE("a sparse 2 GiB file is refused by size and cap before it is read", "[files]") {
  test::TempDir temp;
  const fs::path file = temp.path() / "config.json";
  make_sparse(file, kTwoGiB);
  REQUIRE_THROWS_WITH(files::read_bounded(file, kConfigCap),
                      file.string() + " is 2147483648 bytes, over the cap of 4194304 bytes for a "
                                      "config.json");
  CHECK(kind_of_refusal(file, kConfigCap) == FileReadError::Kind::too_large);
  // One byte over is over.
  test::write_file(file, "123456789");
  REQUIRE_THROWS_WITH(files::read_bounded(file, {8, "an eight-byte file"}),
                      Contains("is 9 bytes, over the cap of 8 bytes for an eight-byte file"));
}

TEST_CASE("a FIFO is refused, not waited on", "[files]") {
  test::TempDir temp;
  const fs::path fifo = temp.path() / "config.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // No writer ever opens it: a blocking open or read would hang here.
  REQUIRE_THROWS_WITH(files::read_bounded(fifo, kConfigCap),
                      fifo.string() + " is a FIFO, not a regular file");
  CHECK(kind_of_refusal(fifo, kConfigCap) == FileReadError::Kind::not_regular);
  REQUIRE_THROWS_WITH(files::read_bounded_if_present(fifo, kConfigCap),
                      Contains("is a FIFO, not a regular file"));
  // The checkpoint reader's open does not block on one either.
  REQUIRE_THROWS_WITH(checkpoint::ReadOnlyFile::open(fifo), Contains("is not a regular file"));
}

TEST_CASE("a directory and a missing file are named as such", "[files]") {
  test::TempDir temp;
  REQUIRE_THROWS_WITH(files::read_bounded(temp.path(), kConfigCap),
                      temp.path().string() + " is a directory, not a regular file");
  const fs::path absent = temp.path() / "absent.json";
  REQUIRE_THROWS_WITH(files::read_bounded(absent, kConfigCap), absent.string() + " does not exist");
  CHECK(kind_of_refusal(absent, kConfigCap) == FileReadError::Kind::missing);
  CHECK_FALSE(files::read_bounded_if_present(absent, kConfigCap).has_value());
  // A dangling symlink is something: it is refused, not taken for absent.
  fs::create_symlink(temp.path() / "nowhere", temp.path() / "dangling.json");
  REQUIRE_THROWS_WITH(files::read_bounded_if_present(temp.path() / "dangling.json", kConfigCap),
                      Contains("dangling.json does not exist"));
}

TEST_CASE("checkpoint JSON files are refused over their cap before reading", "[files]") {
  test::TempDir temp;
  const fs::path index = temp.path() / "model.safetensors.index.json";
  make_sparse(index, kTwoGiB);
  REQUIRE_THROWS_AS(checkpoint::read_whole_file(index, {64u << 20, "a safetensors index"}),
                    checkpoint::CheckpointError);
  REQUIRE_THROWS_WITH(checkpoint::read_whole_file(index, {64u << 20, "a safetensors index"}),
                      index.string() + ": is 2147483648 bytes, over the cap of 67108864 bytes for "
                                       "a safetensors index");
}

TEST_CASE("the version state and keyring files are read within their caps", "[files][trust]") {
  test::TempDir temp;
  const fs::path state = temp.path() / "versions.json";
  make_sparse(state, kTwoGiB);
  REQUIRE_THROWS_WITH(manifest::VersionState::load(state),
                      "version state file " + state.string() +
                          " is 2147483648 bytes, over the cap of 1048576 bytes for a version state "
                          "file");
  const fs::path keyring = temp.path() / "keyring";
  fs::create_directory(keyring);
  make_sparse(keyring / "vendor.pub", kTwoGiB);
  REQUIRE_THROWS_WITH(manifest::Keyring::load(keyring),
                      "keyring file " + (keyring / "vendor.pub").string() +
                          " is 2147483648 bytes, over the cap of 65536 bytes for a key file");
}

TEST_CASE("conform and prepare refuse a sparse 2 GiB config.json naming size and cap",
          "[files][host-cli]") {
  test::TempDir temp;
  const fs::path model = temp.path() / "model";
  fs::create_directory(model);
  make_sparse(model / "config.json", kTwoGiB);
  const std::string refusal = (model / "config.json").string() +
                              ": is 2147483648 bytes, over the cap of 4194304 bytes for a config.json";
  const std::string host = test::host_exe().string() + " --state-file " +
                           (temp.path() / "state.json").string();
  const test::CommandResult conform = test::run_command(host + " conform " + model.string());
  INFO(conform.output);
  CHECK(conform.exit_code == 1);
  CHECK_THAT(conform.output, Contains("algenta-host conform: unusable input: " + refusal));
  const test::CommandResult prepare = test::run_command(
      host + " prepare " + model.string() + " --out " + (temp.path() / "out").string());
  INFO(prepare.output);
  CHECK(prepare.exit_code == 1);
  CHECK_THAT(prepare.output, Contains("algenta-host prepare: unusable input: " + refusal));
}
