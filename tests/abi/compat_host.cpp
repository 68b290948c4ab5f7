// A host built against a newer header than the plugin it drives: the loader's
// table check, then open (offering host block tables), a step over chunks
// laid out at the host's larger stride, memory report, refused steps and
// close. Built twice:
//  - against the live 1.3 header, driving a plugin built from the frozen 1.0
//    copy (it never writes a 1.1 field, so the offer of block tables reads
//    as declined and the host keeps the engine's own cache), one built from
//    the frozen 1.1 copy (it takes the block tables and checks them, and
//    never writes a 1.2 field, so engine sampling reads as declined and a
//    chunk's sampling is ignored) and one built from the frozen 1.2 copy (it
//    takes tables and engine sampling, draws a sampled chunk's token itself,
//    and never writes the 1.3 transfer count, which stays "not reported");
//  - against the 1.4 test header, driving a plugin built from the frozen 1.3
//    copy: all of that, it reports the step's transfers (0 bytes: the echo
//    engine has no device), and never writes a 1.4 field.
// Prints "N passed, M failed".
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "loader/plugin_calls.hpp"
#include "loader/table_check.hpp"
#include "loader/verified_loader.hpp"

static_assert(ALGENTA_ABI_MINOR >= 3,
              "build this host with the live header or a later test header");

namespace {

using namespace algenta;

constexpr std::uint32_t kUntouched = 0xdeadbeef;  // what a field nobody wrote still holds

int passed = 0, failed = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  ok ? ++passed : ++failed;
}

void expect_refused(const AlgentaPluginV1& table, AlgentaError* error, const std::string& what) {
  expect(error != nullptr, what + " is refused");
  if (error == nullptr) return;
  const loader::PluginFailure failure = loader::take_error(table, error);
  expect(failure.code == ALGENTA_STATUS_INVALID_ARGUMENT,
         what + " is INVALID_ARGUMENT (" + failure.message + ")");
}

struct Opened {
  AlgentaEngine* engine = nullptr;
  bool block_tables = false;
  bool sampling = false;
};

enum class Mode { declines, takes_tables, takes_tables_and_sampling, reports_transfers };

Opened open_engine(const AlgentaPluginV1& table, Mode mode) {
  const bool plugin_takes_tables = mode != Mode::declines;
  const bool plugin_samples =
      mode == Mode::takes_tables_and_sampling || mode == Mode::reports_transfers;
  AlgentaEngineOpen_Args open{};
  open.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;  // larger than the plugin's
  open.precision = ALGENTA_PRECISION_EXACT;
  open.checkpoint_dir = "unused";
  open.host_block_tables = 1;
  // What a real host sets; a plugin that knows the field overwrites it.
  open.block_tables_accepted = 0;
  open.kv_tokens_per_block = kUntouched;
  open.kv_blocks_total = kUntouched;
  open.engine_samples = 1;
  open.sampling_accepted = kUntouched;  // a 1.2 out field no 1.1 plugin writes
#if ALGENTA_ABI_MINOR >= 4
  open.test_open_out = kUntouched;  // a 1.4 out field no 1.3 plugin writes
#endif
  AlgentaError* error = table.engine_open(&open);
  expect(error == nullptr, "engine_open with an Args struct of minor " +
                               std::to_string(ALGENTA_ABI_MINOR));
  if (error != nullptr) {
    std::printf("  %s\n", loader::take_error(table, error).message.c_str());
    return {};
  }
  expect(open.served_max_context == 128 && open.vocab_size == 1000, "1.0 out fields written");
  if (plugin_takes_tables) {
    expect(open.block_tables_accepted == 1 && open.kv_tokens_per_block == 16 &&
               open.kv_blocks_total == 8,
           "the 1.1 plugin takes host block tables: 8 blocks of 16 tokens");
  } else {
    expect(open.block_tables_accepted == 0, "the 1.0 plugin's silence reads as declined");
    expect(open.kv_tokens_per_block == kUntouched && open.kv_blocks_total == kUntouched,
           "1.1 out fields left alone by the 1.0 plugin");
  }
  if (plugin_samples) {
    expect(open.sampling_accepted == 1, "the 1.2 plugin takes engine sampling");
  } else {
    expect(open.sampling_accepted == kUntouched, "1.2 out field left alone by an older plugin");
  }
#if ALGENTA_ABI_MINOR >= 4
  expect(open.test_open_out == kUntouched, "1.4 out field left alone");
#endif
  return {open.engine, open.block_tables_accepted == 1, open.sampling_accepted == 1};
}

AlgentaSequenceChunk chunk_of(std::uint64_t id, const std::vector<int32_t>& tokens,
                              const std::vector<uint32_t>& blocks) {
  AlgentaSequenceChunk chunk{};
  chunk.struct_size = ALGENTA_SequenceChunk_STRUCT_SIZE;
  chunk.sequence_id = id;
  chunk.tokens = tokens.data();
  chunk.token_count = static_cast<uint32_t>(tokens.size());
  chunk.block_table = blocks.data();
  chunk.block_count = static_cast<uint32_t>(blocks.size());
  chunk.sampling = nullptr;
#if ALGENTA_ABI_MINOR >= 4
  chunk.test_chunk_value = 1234;
#endif
  return chunk;
}

// The step's device_to_host_bytes after the call (the host sets
// ALGENTA_BYTES_NOT_REPORTED before it).
std::uint64_t last_transfer = 0;

AlgentaError* step(const AlgentaPluginV1& table, AlgentaEngine* engine,
                   std::vector<AlgentaSequenceChunk>& chunks, std::vector<int32_t>& next,
                   std::size_t stride) {
  next.assign(chunks.size(), -1);
  AlgentaEngineStep_Args args{};
  args.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE;
  args.engine = engine;
  args.chunks = chunks.data();
  args.chunk_count = chunks.size();
  args.chunk_stride = stride;
  args.next_tokens = next.data();
  args.device_to_host_bytes = ALGENTA_BYTES_NOT_REPORTED;
  AlgentaError* error = table.engine_step(&args);
  last_transfer = args.device_to_host_bytes;
  return error;
}

// Chunk 2 of three asks for a sampled token: the echo plugin "draws" the
// seed when it took engine sampling; one that did not gives its greedy echo.
void step_with_sampling(const AlgentaPluginV1& table, const Opened& opened,
                        std::vector<AlgentaSequenceChunk> chunks) {
  double logprob = 0.0;
  uint32_t top_count = kUntouched;
  AlgentaSampling sampling{};
  sampling.struct_size = ALGENTA_Sampling_STRUCT_SIZE;
  sampling.temperature = 0.5;
  sampling.top_p = 1.0;
  sampling.top_k = -1;
  sampling.repetition_penalty = 1.0;
  sampling.seed = 77;
  sampling.want_logprob = 1;
  sampling.top_logprobs = 2;
  int32_t top_tokens[2] = {0, 0};
  double top_values[2] = {0.0, 0.0};
  sampling.logprob = &logprob;
  sampling.top_tokens = top_tokens;
  sampling.top_values = top_values;
  sampling.top_count = &top_count;
  chunks[1].sampling = &sampling;
  std::vector<int32_t> next;
  AlgentaError* error = step(table, opened.engine, chunks, next, sizeof(AlgentaSequenceChunk));
  if (opened.sampling) {
    expect(error == nullptr && next == std::vector<int32_t>{6, 77, 42} && logprob == -1.0 &&
               top_count == 0,
           "the sampled chunk's token and logprob come from the engine");
  } else {
    expect(error == nullptr && next == std::vector<int32_t>{6, 9, 42} && top_count == kUntouched,
           "an engine without engine sampling ignores a chunk's sampling");
  }
  if (error != nullptr) loader::take_error(table, error);
}

void drive(const AlgentaPluginV1& table, Mode mode) {
  const Opened opened = open_engine(table, mode);
  if (opened.engine == nullptr) return;

  // Chunks at this host's size: a reader walking by its own sizeof would
  // read the second and third chunk from the middle of the first.
  const std::vector<std::vector<int32_t>> tokens = {{5}, {7, 8}, {41}};
  const std::vector<std::vector<uint32_t>> tables = {{0}, {1}, {2}};
  std::vector<AlgentaSequenceChunk> chunks;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    chunks.push_back(chunk_of(i + 1, tokens[i], tables[i]));
  }
  std::vector<int32_t> next;
  AlgentaError* error = step(table, opened.engine, chunks, next, sizeof(AlgentaSequenceChunk));
  expect(error == nullptr && next == std::vector<int32_t>{6, 9, 42},
         "step over chunks walked by stride " + std::to_string(sizeof(AlgentaSequenceChunk)) +
             " (1.0 chunk is " + std::to_string(ALGENTA_SequenceChunk_STRUCT_SIZE_1_0) + " bytes)");
  if (error != nullptr) loader::take_error(table, error);
  if (mode == Mode::reports_transfers) {
    expect(last_transfer == 0, "the 1.3 plugin reports the step's transfers (0 bytes, no device)");
  } else {
    expect(last_transfer == ALGENTA_BYTES_NOT_REPORTED,
           "an older plugin leaves the 1.3 transfer count as not reported");
  }
  step_with_sampling(table, opened, chunks);

  expect_refused(table, step(table, opened.engine, chunks, next, 8),
                 "a stride below the 1.0 chunk size");
  if (opened.block_tables) {
    const std::vector<uint32_t> past_the_cache = {8};
    chunks[1] = chunk_of(2, tokens[1], past_the_cache);
    expect_refused(table, step(table, opened.engine, chunks, next, sizeof(AlgentaSequenceChunk)),
                   "block id 8 of a cache of 8 blocks");
    const std::vector<uint32_t> no_blocks;
    chunks[1] = chunk_of(2, tokens[1], no_blocks);
    expect_refused(table, step(table, opened.engine, chunks, next, sizeof(AlgentaSequenceChunk)),
                   "an empty block table");
  }

  AlgentaMemoryReport_Args memory{};
  memory.struct_size = ALGENTA_MemoryReport_Args_STRUCT_SIZE;
  memory.engine = opened.engine;
  error = table.memory_report(&memory);
  expect(error == nullptr && memory.kv_tokens_per_block == 16 && memory.kv_blocks_total == 8,
         "memory report with KV geometry");
  if (error != nullptr) loader::take_error(table, error);

  const auto close_failure = loader::close_engine(table, opened.engine);
  expect(!close_failure, "engine_close reports success");
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<Mode> mode;
  if (argc == 3 && std::strcmp(argv[2], "declines") == 0) mode = Mode::declines;
  if (argc == 3 && std::strcmp(argv[2], "takes-tables") == 0) mode = Mode::takes_tables;
  if (argc == 3 && std::strcmp(argv[2], "takes-tables-and-sampling") == 0)
    mode = Mode::takes_tables_and_sampling;
  if (argc == 3 && std::strcmp(argv[2], "reports-transfers") == 0) mode = Mode::reports_transfers;
  if (!mode) {
    std::fprintf(stderr,
                 "usage: %s PLUGIN.so declines|takes-tables|takes-tables-and-sampling|"
                 "reports-transfers\n",
                 argv[0]);
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
    expect(true, "a host of minor " + std::to_string(ALGENTA_ABI_MINOR) +
                     " accepts the table of a plugin that needs minor " +
                     std::to_string(table->abi_minor));
    drive(*table, *mode);
  } catch (const loader::LoadError& e) {
    expect(false, std::string("table check: ") + e.what());
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
