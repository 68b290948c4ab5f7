// The ABI's own rules, as both sides apply them: the host checks a table
// against the sizes ABI 1.0 defines and walks arrays by their stride; a
// plugin checks Args against 1.0 sizes and walks chunks by the caller's
// stride; close reports failure; a 1.3 host refuses a plugin needing 1.4.
#include <catch2/catch.hpp>

#include <cstring>
#include <iterator>
#include <memory>
#include <optional>

#include "loader/plugin_calls.hpp"
#include "loader/table_check.hpp"
#include "loader/verified_loader.hpp"
#include "plugin_support/plugin_table.hpp"
#include "step_plan.hpp"
#include "support/bundle_fixture.hpp"

using namespace algenta;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

// ---- a plugin table in memory, with arrays of a later minor's larger size --

template <typename T>
struct Grown {  // an element as a later minor might lay it out
  T base;
  char appended[24];
};

struct FakeEngine {
  bool close_fails = false;
  static inline int closed = 0;
  static std::unique_ptr<FakeEngine> open(AlgentaEngineOpen_Args& args, const AlgentaDescriptor&) {
    auto engine = std::make_unique<FakeEngine>();
    engine->close_fails = args.requested_max_context == 13;
    return engine;
  }
  void step(AlgentaEngineStep_Args&) {}
  std::uint64_t device_to_host_bytes() const { return 4096; }
  void free_sequences(const AlgentaSequencesFree_Args&) {}
  void report_memory(AlgentaMemoryReport_Args&) {}
  void close() {
    ++closed;
    if (close_fails) throw plugin::StatusError{ALGENTA_STATUS_DEVICE, "device fault on close"};
  }
};

const char* const kFamilies[] = {"llama"};
Grown<AlgentaKernelInfo> kernels[2] = {
    {{ALGENTA_KernelInfo_STRUCT_SIZE, "k0", "gemm", "m", "*"}, {}},
    {{ALGENTA_KernelInfo_STRUCT_SIZE, "k1", "norm", "m", "*"}, {}}};
Grown<AlgentaPrecisionPolicy> precisions[1] = {
    {{ALGENTA_PrecisionPolicy_STRUCT_SIZE, ALGENTA_PRECISION_EXACT, "exact",
      ALGENTA_DTYPE_BIT(ALGENTA_DTYPE_F32)},
     {}}};
AlgentaDescriptor descriptor{};

AlgentaDescriptor valid_descriptor() {
  AlgentaDescriptor d{};
  d.struct_size = ALGENTA_Descriptor_STRUCT_SIZE;
  d.name = "fake";
  d.role = ALGENTA_ROLE_ENGINE;
  d.target = "cpu";
  d.version = "1";
  d.families = kFamilies;
  d.family_count = 1;
  d.fact_range_stride = sizeof(AlgentaFactRange);
  d.kernels = &kernels[0].base;
  d.kernel_count = 2;
  d.kernel_stride = sizeof(Grown<AlgentaKernelInfo>);
  d.precisions = &precisions[0].base;
  d.precision_count = 1;
  d.precision_stride = sizeof(Grown<AlgentaPrecisionPolicy>);
  return d;
}

AlgentaPluginV1 valid_table() {
  descriptor = valid_descriptor();
  return plugin::make_plugin_table(&descriptor,
                                   plugin::EngineBinding<FakeEngine, &descriptor>::calls());
}

std::string table_refusal(const AlgentaPluginV1& table) {
  try {
    loader::check_plugin_table(&table, "fake (libfake.so)");
  } catch (const loader::LoadError& e) {
    return e.what();
  }
  return {};
}

// ---- chunks for the plugin-side step planner ------------------------------

struct NoSequences final : decoder::LiveSequences {
  std::optional<std::size_t> cached_length(std::uint64_t) const override { return std::nullopt; }
  std::size_t live_count() const override { return 0; }
};

}  // namespace

TEST_CASE("the host accepts a table whose arrays have a later minor's stride", "[abi]") {
  const AlgentaPluginV1 table = valid_table();
  CHECK(table_refusal(table).empty());
  const AlgentaDescriptor& d = *table.descriptor;
  CHECK(std::string(ALGENTA_ELEMENT_AT(AlgentaKernelInfo, d.kernels, d.kernel_stride, 1)->name) ==
        "k1");
}

TEST_CASE("the host refuses tables that break the ABI, naming the field and the numbers", "[abi]") {
  AlgentaPluginV1 table = valid_table();
  SECTION("a table smaller than ABI 1.0 defines") {
    table.struct_size = ALGENTA_PluginV1_STRUCT_SIZE_1_0 - 8;
    CHECK_THAT(table_refusal(table),
               Contains("AlgentaPluginV1.struct_size is 88 bytes; ABI 1.0 defines 96"));
  }
  SECTION("a descriptor smaller than ABI 1.0 defines") {
    descriptor.struct_size = 16;
    CHECK_THAT(table_refusal(table), Contains("AlgentaDescriptor.struct_size is 16 bytes"));
  }
  SECTION("an array stride below the 1.0 element") {
    descriptor.kernel_stride = 16;
    CHECK_THAT(table_refusal(table),
               Contains("kernels stride is 16 bytes; an element of ABI 1.0 takes 40"));
  }
  SECTION("an element larger than its stride") {
    descriptor.kernel_stride = ALGENTA_KernelInfo_STRUCT_SIZE_1_0;
    kernels[0].base.struct_size = 48;
    CHECK_THAT(table_refusal(table), Contains("kernels[0].struct_size is 48"));
    kernels[0].base.struct_size = ALGENTA_KernelInfo_STRUCT_SIZE;
  }
  SECTION("no precision policy") {
    descriptor.precision_count = 0;
    CHECK_THAT(table_refusal(table), Contains("declares no precision policy"));
  }
  SECTION("a missing call") {
    table.engine_close = nullptr;
    CHECK_THAT(table_refusal(table), Contains("engine_close is NULL"));
  }
  SECTION("a table that needs a later minor names both versions") {
    table.abi_minor = ALGENTA_ABI_MINOR + 1;
    CHECK_THAT(table_refusal(table),
               Contains("needs ABI 1.4; this host provides ABI 1.3"));
  }
}

TEST_CASE("a plugin checks Args against ABI 1.0 sizes and close reports failure", "[abi]") {
  const AlgentaPluginV1 table = valid_table();
  AlgentaEngineOpen_Args open{};
  open.struct_size = 16;
  const loader::PluginFailure small = loader::take_error(table, table.engine_open(&open));
  CHECK(small.code == ALGENTA_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(small.message, Contains("AlgentaEngineOpen_Args.struct_size is 16") &&
                                Contains("at least " + std::to_string(
                                                           ALGENTA_EngineOpen_Args_STRUCT_SIZE_1_0)));

  open.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
  open.requested_max_context = 13;  // this fake's close then fails
  REQUIRE(table.engine_open(&open) == nullptr);
  const int closed_before = FakeEngine::closed;
  const auto failure = loader::close_engine(table, open.engine);
  REQUIRE(failure.has_value());
  CHECK(failure->code == ALGENTA_STATUS_DEVICE);
  CHECK(failure->message == "device fault on close");
  CHECK(FakeEngine::closed == closed_before + 1);
}

TEST_CASE("a step reports its transfers only to a caller whose Args has the 1.3 field", "[abi]") {
  const AlgentaPluginV1 table = valid_table();
  AlgentaEngineOpen_Args open{};
  open.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
  REQUIRE(table.engine_open(&open) == nullptr);
  AlgentaEngineStep_Args step{};
  step.engine = open.engine;
  step.device_to_host_bytes = ALGENTA_BYTES_NOT_REPORTED;
  SECTION("a 1.0 caller's struct ends before the field: left alone") {
    step.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE_1_0;
    REQUIRE(table.engine_step(&step) == nullptr);
    CHECK(step.device_to_host_bytes == ALGENTA_BYTES_NOT_REPORTED);
  }
  SECTION("a 1.3 caller gets the engine's count") {
    step.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE_1_3;
    REQUIRE(table.engine_step(&step) == nullptr);
    CHECK(step.device_to_host_bytes == 4096);
  }
  CHECK_FALSE(loader::close_engine(table, open.engine).has_value());
}

TEST_CASE("the step planner walks chunks by the caller's stride", "[abi]") {
  const std::int32_t a[] = {3, 4}, b[] = {9};
  Grown<AlgentaSequenceChunk> chunks[2] = {
      {{ALGENTA_SequenceChunk_STRUCT_SIZE, 1, a, 2, 0, ALGENTA_LOGITS_NONE}, {}},
      {{ALGENTA_SequenceChunk_STRUCT_SIZE, 2, b, 1, 0, ALGENTA_LOGITS_LAST}, {}}};
  std::memset(chunks[0].appended, 0x7f, sizeof chunks[0].appended);
  std::int32_t next[2];
  AlgentaEngineStep_Args args{};
  args.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE;
  args.chunks = &chunks[0].base;
  args.chunk_count = 2;
  args.chunk_stride = sizeof(Grown<AlgentaSequenceChunk>);
  args.next_tokens = next;
  float logits[10];
  args.logits = logits;
  args.logits_capacity = 10;
  const decoder::EngineLimits limits{64, 10, 8};
  const decoder::StepPlan plan = decoder::plan_step(args, NoSequences(), limits);
  REQUIRE(plan.chunks.size() == 2);
  CHECK(plan.chunks[1].sequence_id == 2);
  CHECK(plan.chunks[1].tokens[0] == 9);
  CHECK(plan.logits_floats == 10);

  args.chunk_stride = 8;
  try {
    decoder::plan_step(args, NoSequences(), limits);
    FAIL("a stride below the 1.0 chunk was accepted");
  } catch (const plugin::StatusError& e) {
    CHECK_THAT(e.message, Contains("chunk_stride is 8 bytes") &&
                              Contains(std::to_string(ALGENTA_SequenceChunk_STRUCT_SIZE_1_0)));
  }
}

TEST_CASE("a 1.3 host refuses a plugin that needs ABI 1.4, naming both versions", "[abi][loader]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "libacme_abi14.so";
  fs::copy_file(test::test_plugin_dir() / "libacme_abi14.so", file);
  manifest::PluginEntry entry = test::entry_for_file(file, "acme_abi14", "engine", "sm_86");
  SECTION("declared in the manifest") {
    entry.abi_minor = 4;
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(dir.path(), entry),
                        Contains("declares ABI 1.4; this host provides ABI 1.3"));
  }
  SECTION("found in the plugin's table") {
    REQUIRE_THROWS_WITH(loader::load_verified_plugin(dir.path(), entry),
                        Contains("needs ABI 1.4; this host provides ABI 1.3"));
  }
}
