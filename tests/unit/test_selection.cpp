// Exact-target selection over hand-made candidates and simulated GPUs.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "loader/selection.hpp"

using algenta::loader::Candidate;
using algenta::loader::GpuDevice;
using algenta::loader::GpuProbeResult;
using algenta::loader::Selection;
using algenta::loader::select_plugin;
using algenta::loader::target_for_capability;
using Catch::Matchers::Contains;

namespace {

Candidate candidate(std::string name, std::string role, std::string target,
                    std::uint32_t min_driver = 0, std::string bundle = "vendor") {
  Candidate c;
  c.bundle = std::move(bundle);
  c.entry.name = std::move(name);
  c.entry.role = std::move(role);
  c.entry.target = std::move(target);
  c.entry.file = "lib" + c.entry.name + ".so";
  c.entry.min_driver = min_driver;
  return c;
}

// The vendor bundle as shipped: four engines and the oracle.
std::vector<Candidate> vendor_candidates() {
  return {candidate("cuda_sm75", "engine", "sm_75"), candidate("cuda_sm80", "engine", "sm_80"),
          candidate("cuda_sm89", "engine", "sm_89"), candidate("cuda_sm90a", "engine", "sm_90a"),
          candidate("cpu_oracle", "oracle", "cpu")};
}

GpuProbeResult gpu(int major, int minor, std::string name = "NVIDIA Test GPU",
                   int driver_major = 580) {
  GpuProbeResult probe;
  probe.driver_found = true;
  probe.driver_major = driver_major;
  probe.driver_version = std::to_string(driver_major) + ".95.05";
  probe.cuda_driver_api = 13000;
  GpuDevice device;
  device.ordinal = 0;
  device.name = std::move(name);
  device.major = major;
  device.minor = minor;
  device.total_memory_bytes = 80ull << 30;
  probe.devices.push_back(device);
  return probe;
}

GpuProbeResult no_driver() {
  GpuProbeResult probe;
  probe.driver_problem =
      "NVIDIA driver library libcuda.so.1 not found (no NVIDIA driver installed): "
      "libcuda.so.1: cannot open shared object file";
  return probe;
}

GpuProbeResult driver_without_devices() {
  GpuProbeResult probe;
  probe.driver_found = true;
  probe.driver_major = 580;
  probe.driver_version = "580.95.05";
  probe.driver_problem = "cuInit failed: CUDA_ERROR_NO_DEVICE (100)";
  return probe;
}

std::string chosen_name(const Selection& selection) {
  return selection.chosen ? selection.chosen->entry.name : std::string("<none>");
}

const std::string* reason_for(const Selection& selection, const std::string& plugin) {
  for (const auto& rejection : selection.rejected) {
    if (rejection.plugin == plugin) return &rejection.reason;
  }
  return nullptr;
}

// Every candidate is either the chosen one or rejected with a one-line reason.
void require_every_candidate_accounted(const std::vector<Candidate>& candidates,
                                       const Selection& selection) {
  const std::size_t chosen = selection.chosen ? 1 : 0;
  REQUIRE(selection.rejected.size() + chosen == candidates.size());
  for (const auto& rejection : selection.rejected) {
    CHECK_FALSE(rejection.reason.empty());
    CHECK(rejection.reason.find('\n') == std::string::npos);
    if (selection.chosen) CHECK(rejection.plugin != selection.chosen->entry.name);
  }
  if (!selection.chosen) CHECK_FALSE(selection.failure.empty());
  if (selection.chosen) CHECK(selection.failure.empty());
}

}  // namespace

TEST_CASE("target_for_capability names the target built for each capability", "[selection]") {
  CHECK(target_for_capability(7, 5) == "sm_75");
  CHECK(target_for_capability(8, 0) == "sm_80");
  CHECK(target_for_capability(8, 9) == "sm_89");
  CHECK(target_for_capability(9, 0) == "sm_90a");
  CHECK(target_for_capability(8, 6) == "sm_86");
  CHECK(target_for_capability(10, 0) == "sm_100");
  CHECK(target_for_capability(12, 0) == "sm_120");
}

TEST_CASE("auto selects the engine whose target equals the GPU's capability", "[selection]") {
  const auto candidates = vendor_candidates();
  struct Case {
    int major;
    int minor;
    const char* expected;
  };
  const Case cases[] = {{7, 5, "cuda_sm75"}, {8, 0, "cuda_sm80"}, {8, 9, "cuda_sm89"},
                        {9, 0, "cuda_sm90a"}};
  for (const Case& c : cases) {
    for (const char* backend : {"auto", "cuda"}) {
      INFO("capability " << c.major << "." << c.minor << ", backend " << backend);
      const Selection selection = select_plugin(candidates, gpu(c.major, c.minor), backend, false);
      CHECK(chosen_name(selection) == c.expected);
      require_every_candidate_accounted(candidates, selection);
    }
  }
}

TEST_CASE("auto on a 9.0 GPU gives each other candidate its reason", "[selection]") {
  const auto candidates = vendor_candidates();
  const Selection selection = select_plugin(candidates, gpu(9, 0, "NVIDIA H200"), "auto", false);
  REQUIRE(chosen_name(selection) == "cuda_sm90a");
  require_every_candidate_accounted(candidates, selection);
  REQUIRE(reason_for(selection, "cuda_sm80") != nullptr);
  CHECK(*reason_for(selection, "cuda_sm80") == "target sm_80 != sm_90a needed by GPU 0 (9.0)");
  REQUIRE(reason_for(selection, "cpu_oracle") != nullptr);
  CHECK(*reason_for(selection, "cpu_oracle") == "oracle: never selected automatically");
  CHECK(reason_for(selection, "cuda_sm90a") == nullptr);
}

TEST_CASE("auto refuses a capability without an engine, naming GPU and targets",
          "[selection]") {
  const auto candidates = vendor_candidates();

  SECTION("8.6") {
    const Selection selection =
        select_plugin(candidates, gpu(8, 6, "NVIDIA GeForce RTX 3090"), "auto", false);
    CHECK_FALSE(selection.chosen);
    CHECK(selection.failure ==
          "GPU 0 (NVIDIA GeForce RTX 3090) has compute capability 8.6 and needs target sm_86; "
          "engines on offer: sm_75, sm_80, sm_89, sm_90a");
    require_every_candidate_accounted(candidates, selection);
  }
  SECTION("10.0") {
    const Selection selection = select_plugin(candidates, gpu(10, 0, "NVIDIA B200"), "auto", false);
    CHECK_FALSE(selection.chosen);
    CHECK_THAT(selection.failure, Contains("NVIDIA B200") && Contains("10.0") &&
                                      Contains("sm_100") && Contains("sm_90a"));
    require_every_candidate_accounted(candidates, selection);
  }
  SECTION("9.0 with only older engines on offer") {
    const std::vector<Candidate> older = {candidate("cuda_sm75", "engine", "sm_75"),
                                          candidate("cuda_sm80", "engine", "sm_80"),
                                          candidate("cuda_sm89", "engine", "sm_89")};
    const Selection selection = select_plugin(older, gpu(9, 0, "NVIDIA H200"), "auto", false);
    CHECK_FALSE(selection.chosen);
    CHECK(selection.failure ==
          "GPU 0 (NVIDIA H200) has compute capability 9.0 and needs target sm_90a; "
          "engines on offer: sm_75, sm_80, sm_89");
    require_every_candidate_accounted(older, selection);
  }
}

TEST_CASE("auto without a GPU names the missing NVIDIA accelerator", "[selection]") {
  const auto candidates = vendor_candidates();
  for (const GpuProbeResult& probe : {no_driver(), driver_without_devices()}) {
    for (const char* backend : {"auto", "cuda"}) {
      INFO("backend " << backend << ", probe problem: " << probe.driver_problem);
      const Selection selection = select_plugin(candidates, probe, backend, true);
      CHECK_FALSE(selection.chosen);
      CHECK_THAT(selection.failure,
                 Contains("no NVIDIA GPU found") && Contains(probe.driver_problem) &&
                     Contains("serves only on an NVIDIA accelerator") &&
                     Contains("--plugin cpu_oracle --allow-oracle"));
      require_every_candidate_accounted(candidates, selection);
      REQUIRE(reason_for(selection, "cpu_oracle") != nullptr);
      CHECK(*reason_for(selection, "cpu_oracle") == "oracle: never selected automatically");
    }
  }
}

TEST_CASE("the oracle is never chosen automatically, even alone", "[selection]") {
  const std::vector<Candidate> only_oracle = {candidate("cpu_oracle", "oracle", "cpu")};
  for (const GpuProbeResult& probe : {gpu(9, 0), no_driver()}) {
    // allow_oracle permits naming it; it never makes auto choose it.
    const Selection selection = select_plugin(only_oracle, probe, "auto", true);
    CHECK_FALSE(selection.chosen);
    CHECK_FALSE(selection.failure.empty());
    REQUIRE(selection.rejected.size() == 1);
    CHECK(selection.rejected[0].reason == "oracle: never selected automatically");
  }
}

TEST_CASE("explicit --plugin NAME overrides the GPU's target", "[selection]") {
  const auto candidates = vendor_candidates();
  const Selection selection =
      select_plugin(candidates, gpu(9, 0, "NVIDIA H200"), "cuda_sm80", false);
  REQUIRE(chosen_name(selection) == "cuda_sm80");
  require_every_candidate_accounted(candidates, selection);
  REQUIRE(reason_for(selection, "cuda_sm90a") != nullptr);
  CHECK_THAT(*reason_for(selection, "cuda_sm90a"), Contains("--plugin cuda_sm80"));
}

TEST_CASE("explicit --plugin of a GPU engine still needs an NVIDIA GPU", "[selection]") {
  const auto candidates = vendor_candidates();
  const Selection selection = select_plugin(candidates, no_driver(), "cuda_sm80", false);
  CHECK_FALSE(selection.chosen);
  CHECK_THAT(selection.failure, Contains("cuda_sm80") && Contains("NVIDIA accelerator") &&
                                    Contains("libcuda.so.1") &&
                                    Contains("--plugin cpu_oracle --allow-oracle"));
  require_every_candidate_accounted(candidates, selection);
}

TEST_CASE("explicit --plugin of the oracle needs --allow-oracle", "[selection]") {
  const auto candidates = vendor_candidates();

  SECTION("refused without allow_oracle") {
    const Selection selection = select_plugin(candidates, gpu(9, 0), "cpu_oracle", false);
    CHECK_FALSE(selection.chosen);
    CHECK(selection.failure ==
          "cpu_oracle is the verification oracle; pass --allow-oracle to run it explicitly");
    require_every_candidate_accounted(candidates, selection);
  }
  SECTION("chosen with allow_oracle, with or without a GPU") {
    for (const GpuProbeResult& probe : {gpu(9, 0), no_driver()}) {
      const Selection selection = select_plugin(candidates, probe, "cpu_oracle", true);
      CHECK(chosen_name(selection) == "cpu_oracle");
      require_every_candidate_accounted(candidates, selection);
    }
  }
}

TEST_CASE("explicit --plugin with an unknown name lists the names on offer", "[selection]") {
  const auto candidates = vendor_candidates();
  const Selection selection = select_plugin(candidates, gpu(9, 0), "cuda_sm100", false);
  CHECK_FALSE(selection.chosen);
  CHECK_THAT(selection.failure,
             Contains("cuda_sm100") &&
                 Contains("cuda_sm75, cuda_sm80, cuda_sm89, cuda_sm90a, cpu_oracle"));
  require_every_candidate_accounted(candidates, selection);
}

TEST_CASE("the driver minimum a manifest declares is enforced", "[selection]") {
  std::vector<Candidate> candidates = vendor_candidates();
  candidates[3].entry.min_driver = 580;  // cuda_sm90a

  SECTION("old driver refused, naming both versions") {
    for (const char* backend : {"auto", "cuda_sm90a"}) {
      INFO("backend " << backend);
      GpuProbeResult probe = gpu(9, 0, "NVIDIA H200", 535);
      probe.driver_version = "535.129.03";
      const Selection selection = select_plugin(candidates, probe, backend, false);
      CHECK_FALSE(selection.chosen);
      CHECK(selection.failure ==
            "driver 535.129.03 is older than the minimum 580 that cuda_sm90a declares");
      require_every_candidate_accounted(candidates, selection);
      REQUIRE(reason_for(selection, "cuda_sm90a") != nullptr);
      CHECK(*reason_for(selection, "cuda_sm90a") == selection.failure);
    }
  }
  SECTION("unknown driver version refused") {
    GpuProbeResult probe = gpu(9, 0, "NVIDIA H200", 0);
    probe.driver_version.clear();
    const Selection selection = select_plugin(candidates, probe, "auto", false);
    CHECK_FALSE(selection.chosen);
    CHECK_THAT(selection.failure,
               Contains("580") && Contains("cuda_sm90a") && Contains("could not be read"));
    require_every_candidate_accounted(candidates, selection);
  }
  SECTION("equal or newer driver accepted") {
    for (int driver : {580, 590}) {
      const Selection selection =
          select_plugin(candidates, gpu(9, 0, "NVIDIA H200", driver), "auto", false);
      CHECK(chosen_name(selection) == "cuda_sm90a");
    }
  }
  SECTION("no minimum declared: unknown driver version is fine") {
    const Selection selection = select_plugin(candidates, gpu(8, 0, "NVIDIA A100", 0), "auto", false);
    CHECK(chosen_name(selection) == "cuda_sm80");
  }
}

TEST_CASE("two engines for the same target are refused rather than guessed", "[selection]") {
  std::vector<Candidate> candidates = vendor_candidates();
  candidates.push_back(candidate("acme_sm90a", "engine", "sm_90a", 0, "acme"));
  const Selection selection = select_plugin(candidates, gpu(9, 0, "NVIDIA H200"), "auto", false);
  CHECK_FALSE(selection.chosen);
  CHECK_THAT(selection.failure,
             Contains("ambiguous") && Contains("cuda_sm90a") && Contains("acme_sm90a"));
  require_every_candidate_accounted(candidates, selection);
  REQUIRE(reason_for(selection, "acme_sm90a") != nullptr);
  CHECK_THAT(*reason_for(selection, "acme_sm90a"), Contains("ambiguous"));

  SECTION("naming one of them resolves it") {
    const Selection named = select_plugin(candidates, gpu(9, 0), "acme_sm90a", false);
    CHECK(chosen_name(named) == "acme_sm90a");
    require_every_candidate_accounted(candidates, named);
  }
}

TEST_CASE("one name listed by two bundles is refused when named", "[selection]") {
  std::vector<Candidate> candidates = vendor_candidates();
  candidates.push_back(candidate("cuda_sm80", "engine", "sm_80", 0, "acme"));
  const Selection selection = select_plugin(candidates, gpu(9, 0), "cuda_sm80", false);
  CHECK_FALSE(selection.chosen);
  CHECK_THAT(selection.failure,
             Contains("ambiguous") && Contains("bundle vendor") && Contains("bundle acme"));
  require_every_candidate_accounted(candidates, selection);
}

TEST_CASE("an empty candidate list is refused with a reason", "[selection]") {
  const std::vector<Candidate> none;
  const Selection selection = select_plugin(none, gpu(9, 0, "NVIDIA H200"), "auto", false);
  CHECK_FALSE(selection.chosen);
  CHECK_THAT(selection.failure, Contains("sm_90a") && Contains("engines on offer: none"));
  CHECK(selection.rejected.empty());
}
