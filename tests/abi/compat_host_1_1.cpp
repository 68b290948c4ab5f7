// A host built against the 1.1 test header (force-included) that loads a
// plugin built from the frozen 1.0 copy and drives it: the loader's table
// check, then open, a step over chunks laid out at the 1.1 stride, memory
// report, a refused step and close. Prints "N passed, M failed".
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "loader/plugin_calls.hpp"
#include "loader/table_check.hpp"
#include "loader/verified_loader.hpp"

static_assert(ALGENTA_ABI_MINOR == 1, "build this host with tests/abi/1.1/plugin_abi.h");

namespace {

using namespace algenta;

int passed = 0, failed = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  ok ? ++passed : ++failed;
}

void drive(const AlgentaPluginV1& table) {
  expect(table.abi_minor == 0, "the frozen-copy plugin needs minor 0");

  AlgentaEngineOpen_Args open{};
  open.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;  // 1.1: larger than 1.0
  open.precision = ALGENTA_PRECISION_EXACT;
  open.checkpoint_dir = "unused";
  open.scheduler_owns_kv_blocks = 1;
  open.kv_tokens_per_block = 0xdeadbeef;  // a 1.0 plugin never writes a 1.1 field
  AlgentaError* error = table.engine_open(&open);
  expect(error == nullptr, "engine_open with a 1.1 Args struct");
  if (error != nullptr) {
    std::printf("  %s\n", loader::take_error(table, error).message.c_str());
    return;
  }
  expect(open.served_max_context == 128 && open.vocab_size == 1000, "1.0 out fields written");
  expect(open.kv_tokens_per_block == 0xdeadbeef, "1.1 out field left alone");

  // Chunks at the 1.1 size: a reader walking by its own sizeof would read
  // the second and third chunk from the middle of the first.
  const std::vector<std::vector<int32_t>> tokens = {{5}, {7, 8}, {41}};
  std::vector<AlgentaSequenceChunk> chunks(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    chunks[i].struct_size = ALGENTA_SequenceChunk_STRUCT_SIZE;
    chunks[i].sequence_id = i + 1;
    chunks[i].tokens = tokens[i].data();
    chunks[i].token_count = static_cast<uint32_t>(tokens[i].size());
    chunks[i].temperature = 0.5f;
    chunks[i].seed = 1234;
  }
  std::vector<int32_t> next(tokens.size(), -1);
  AlgentaEngineStep_Args step{};
  step.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE;
  step.engine = open.engine;
  step.chunks = chunks.data();
  step.chunk_count = chunks.size();
  step.chunk_stride = sizeof(AlgentaSequenceChunk);
  step.next_tokens = next.data();
  error = table.engine_step(&step);
  expect(error == nullptr && next == std::vector<int32_t>{6, 9, 42},
         "step over 1.1 chunks walked by stride " + std::to_string(step.chunk_stride) +
             " (1.0 chunk is " + std::to_string(ALGENTA_SequenceChunk_STRUCT_SIZE_1_0) + " bytes)");
  if (error != nullptr) loader::take_error(table, error);

  step.chunk_stride = 8;
  error = table.engine_step(&step);
  expect(error != nullptr, "a stride below the 1.0 chunk size is refused");
  if (error != nullptr) {
    const loader::PluginFailure failure = loader::take_error(table, error);
    expect(failure.code == ALGENTA_STATUS_INVALID_ARGUMENT, "refused as INVALID_ARGUMENT");
  }

  AlgentaMemoryReport_Args memory{};
  memory.struct_size = ALGENTA_MemoryReport_Args_STRUCT_SIZE;
  memory.engine = open.engine;
  error = table.memory_report(&memory);
  expect(error == nullptr && memory.kv_tokens_per_block == 16 && memory.kv_blocks_total == 8,
         "memory report with KV geometry");
  if (error != nullptr) loader::take_error(table, error);

  const auto close_failure = loader::close_engine(table, open.engine);
  expect(!close_failure, "engine_close reports success");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  const auto entry =
      reinterpret_cast<AlgentaPluginEntryFn>(dlsym(library, ALGENTA_PLUGIN_ENTRY_SYMBOL));
  const AlgentaPluginV1* table = entry != nullptr ? entry(ALGENTA_ABI_MAJOR) : nullptr;
  try {
    loader::check_plugin_table(table, argv[1]);
    expect(true, "a 1.1 host accepts the 1.0 plugin's table and descriptor");
    drive(*table);
  } catch (const loader::LoadError& e) {
    expect(false, std::string("table check: ") + e.what());
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
