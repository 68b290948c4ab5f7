// algenta-host as an operator runs it: the real binary, the build's signed
// vendor bundle, and tampered copies of it.
#include <catch2/catch.hpp>
#include <filesystem>

#include "loader/gpu_probe.hpp"
#include "support/bundle_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using Catch::Matchers::Contains;

namespace {

// Runs algenta-host with a private state file, optionally on another root.
test::CommandResult host(const std::string& args, const test::TempDir& state,
                         const fs::path& plugins_root = {}) {
  std::string command = test::host_exe().string() + " --state-file " +
                        (state.path() / "state.json").string();
  if (!plugins_root.empty()) command += " --plugins-root " + plugins_root.string();
  return test::run_command(command + " " + args);
}

bool host_has_gpu() { return !loader::probe_gpus().devices.empty(); }

// A copy of the vendor bundle under a fresh plugins root.
struct CopiedVendorRoot {
  test::TempDir root;
  fs::path bundle = root.path() / "vendor";
  CopiedVendorRoot() { fs::copy(test::vendor_bundle_dir(), bundle, fs::copy_options::recursive); }
};

}  // namespace

TEST_CASE("serve on a host without an NVIDIA GPU names the missing accelerator", "[host-cli]") {
  test::TempDir state;
  const test::CommandResult r = host("serve --model /nonexistent", state);
  INFO(r.output);
#ifndef ALGENTA_TEST_EXPECT_CUDA_PLUGINS
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("built without CUDA engines") && Contains("-DALGENTA_CUDA=OFF"));
  return;
#endif
  if (host_has_gpu()) {
    CHECK(r.output.find("no NVIDIA GPU") == std::string::npos);
  } else {
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("NVIDIA") && Contains("--plugin cpu_oracle --allow-oracle"));
    CHECK_THAT(r.output, !Contains("selected cpu_oracle"));
  }
}

TEST_CASE("the oracle runs only when named and allowed", "[host-cli]") {
  test::TempDir state;
  const test::CommandResult refused = host("serve --plugin cpu_oracle --model /nonexistent", state);
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("--allow-oracle"));

  test::TempDir model;
  const test::CommandResult allowed =
      host("serve --plugin cpu_oracle --allow-oracle --model " + model.path().string(), state);
  INFO(allowed.output);
  CHECK_THAT(allowed.output, Contains("selected cpu_oracle role=oracle target=cpu"));
  // An empty directory is no prepared checkpoint: serve says which file and
  // how to make one, before the engine is opened.
  CHECK(allowed.exit_code == 1);
  CHECK_THAT(allowed.output, Contains("not a prepared checkpoint") && Contains("manifest.json") &&
                                 Contains("algenta-host prepare"));
}

TEST_CASE("serve --backends lists each backend with its requirements", "[host-cli]") {
  test::TempDir state;
  const test::CommandResult r = host("serve --backends", state);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("cpu_oracle") && Contains("role: oracle"));
  CHECK_THAT(r.output, Contains("yes (only when named, with --allow-oracle)"));
#ifdef ALGENTA_TEST_EXPECT_CUDA_PLUGINS
  CHECK_THAT(r.output, Contains("cuda_sm90a") && Contains("target: sm_90a") &&
                           Contains("libcublasLt.so.") && Contains("minimum NVIDIA driver: 580"));
  if (!host_has_gpu()) CHECK_THAT(r.output, Contains("no: cuda_sm90a (target sm_90a) needs an NVIDIA accelerator"));
#endif
}

TEST_CASE("doctor reports bundles, digests and the selection", "[host-cli]") {
  test::TempDir state;
  const test::CommandResult r = host("doctor", state);
  INFO(r.output);
  CHECK_THAT(r.output, Contains("accepted (version") && Contains("cpu_oracle  oracle  cpu"));
  CHECK_THAT(r.output, Contains("digest ok"));
  if (!host_has_gpu()) {
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("selection (--backend auto):") && Contains("none: no NVIDIA GPU"));
  }
}

TEST_CASE("a tampered vendor plugin is refused by name", "[host-cli]") {
  CopiedVendorRoot copy;
  const fs::path oracle = copy.bundle / "libalgenta_cpu_oracle.so";
  std::string bytes = test::read_file(oracle);
  bytes[bytes.size() / 2] ^= 0x01;
  test::write_file(oracle, bytes);

  test::TempDir state;
  const test::CommandResult r =
      host("serve --plugin cpu_oracle --allow-oracle --model /tmp", state, copy.root.path());
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("refused to load cpu_oracle") && Contains("has sha256"));
}

TEST_CASE("an unlisted plugin file is logged as rejected and never offered", "[host-cli]") {
  CopiedVendorRoot copy;
  fs::copy_file(test::test_plugin_dir() / "libacme_engine.so", copy.bundle / "libacme_engine.so");
  test::TempDir state;
  const test::CommandResult r = host("serve --backends", state, copy.root.path());
  INFO(r.output);
  CHECK_THAT(r.output, Contains("libacme_engine.so: not listed in the bundle's signed manifest.json"));
  CHECK_THAT(r.output, !Contains("acme_engine\n  role"));
}

TEST_CASE("an edited vendor manifest refuses the whole bundle", "[host-cli]") {
  CopiedVendorRoot copy;
  std::string manifest_bytes = test::read_file(copy.bundle / "manifest.json");
  manifest_bytes.insert(manifest_bytes.size() - 1, " ");
  test::write_file(copy.bundle / "manifest.json", manifest_bytes);
  test::TempDir state;
  const test::CommandResult r = host("serve --backends", state, copy.root.path());
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("its bundle was refused") && Contains("signature"));
}
