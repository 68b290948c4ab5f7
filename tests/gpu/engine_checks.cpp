// Engine-level checks of a CUDA plugin on the card, driven through the C ABI
// the host uses (the plugin file is dlopen'ed directly: signatures are the
// host's business and are tested elsewhere).
//   engine_checks PLUGIN.so PREPARED_CHECKPOINT
// Checks, one line each (PASS/FAIL), exit status non-zero on any FAIL:
//  - open refuses a KV cache larger than the device (OUT_OF_MEMORY naming
//    bytes asked and free), and the next open succeeds;
//  - a checkpoint outside the declared facts is refused before any GPU work
//    (UNSUPPORTED naming the fact), and the real one opens after it;
//  - a prompt past the context is refused (INVALID_ARGUMENT naming the
//    positions) and the engine still serves other sequences;
//  - KV blocks freed out of order are reused (the pool holds too few blocks
//    otherwise), and the new sequence's logits equal those of the same
//    sequence alone in a fresh engine, bit for bit;
//  - a prompt prefilled in chunks of two or more tokens gives the same
//    logits, bit for bit, as the whole prompt in one chunk;
//  - the memory report (weights, KV, workspace) and the device memory used by
//    a 4096-token prefill, which must not grow with the prompt.
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algenta/plugin_abi.h"
#include "loader/plugin_calls.hpp"

namespace {

const AlgentaPluginV1* plugin = nullptr;
int failures = 0;

void report(const std::string& name, bool passed, const std::string& detail) {
  std::printf("%-34s %s  %s\n", name.c_str(), passed ? "PASS" : "FAIL", detail.c_str());
  if (!passed) ++failures;
}

// Status and message of a call; the error is destroyed.
struct Outcome {
  AlgentaStatusCode code = ALGENTA_STATUS_OK;
  std::string message;
};
Outcome outcome_of(AlgentaError* error) {
  Outcome outcome;
  if (error == nullptr) return outcome;
  const algenta::loader::PluginFailure failure = algenta::loader::take_error(*plugin, error);
  outcome.code = failure.code;
  outcome.message = failure.message;
  return outcome;
}

struct Engine {
  AlgentaEngine* handle = nullptr;
  std::uint32_t vocab = 0;
  ~Engine() {
    if (handle != nullptr) algenta::loader::close_engine(*plugin, handle);
  }
};

Outcome open_engine(Engine& engine, const std::string& dir, std::uint32_t context,
                    std::uint64_t kv_bytes) {
  AlgentaEngineOpen_Args args{};
  args.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
  args.checkpoint_dir = dir.c_str();
  args.precision = ALGENTA_PRECISION_EXACT;
  args.requested_max_context = context;
  args.max_sequences = 8;
  args.kv_cache_bytes = kv_bytes;
  Outcome outcome = outcome_of(plugin->engine_open(&args));
  engine.handle = args.engine;
  engine.vocab = args.vocab_size;
  return outcome;
}

// One chunk; returns its LOGITS_LAST logits (empty on failure, with `outcome`).
std::vector<float> run_chunk(Engine& engine, std::uint64_t id, const std::vector<int32_t>& tokens,
                             std::uint32_t start, int32_t* next, Outcome* outcome = nullptr) {
  AlgentaSequenceChunk chunk{ALGENTA_SequenceChunk_STRUCT_SIZE, id, tokens.data(),
                             static_cast<std::uint32_t>(tokens.size()), start,
                             ALGENTA_LOGITS_LAST};
  std::vector<float> logits(engine.vocab);
  AlgentaEngineStep_Args args{};
  args.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE;
  args.engine = engine.handle;
  args.chunks = &chunk;
  args.chunk_count = 1;
  args.chunk_stride = sizeof chunk;
  args.next_tokens = next;
  args.logits = logits.data();
  args.logits_capacity = logits.size();
  const Outcome result = outcome_of(plugin->engine_step(&args));
  if (outcome != nullptr) *outcome = result;
  if (result.code != ALGENTA_STATUS_OK) return {};
  return logits;
}

void free_sequence(Engine& engine, std::uint64_t id) {
  AlgentaSequencesFree_Args args{ALGENTA_SequencesFree_Args_STRUCT_SIZE, nullptr, engine.handle, &id, 1};
  outcome_of(plugin->sequences_free(&args));
}

std::vector<int32_t> prompt(std::size_t length, std::uint32_t seed, std::uint32_t vocab) {
  std::vector<int32_t> tokens(length);
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& t : tokens) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    t = static_cast<int32_t>(state % vocab);
  }
  return tokens;
}

// Prefill `tokens` (in chunks of the given sizes, or whole), then `steps`
// greedy tokens; the logits of the prefill's last position and every step.
std::vector<float> generate(Engine& engine, std::uint64_t id, const std::vector<int32_t>& tokens,
                            int steps, const std::vector<std::size_t>& chunks = {}) {
  std::vector<float> all;
  int32_t next = 0;
  std::vector<float> logits;
  std::size_t start = 0;
  for (const std::size_t size : chunks) {
    logits = run_chunk(engine, id, {tokens.begin() + start, tokens.begin() + start + size},
                       static_cast<std::uint32_t>(start), &next);
    start += size;
  }
  if (start < tokens.size()) {
    logits = run_chunk(engine, id, {tokens.begin() + start, tokens.end()},
                       static_cast<std::uint32_t>(start), &next);
  }
  all.insert(all.end(), logits.begin(), logits.end());
  for (int s = 0; s < steps; ++s) {
    logits = run_chunk(engine, id, {next}, static_cast<std::uint32_t>(tokens.size() + s), &next);
    all.insert(all.end(), logits.begin(), logits.end());
  }
  return all;
}

std::uint64_t kv_block_bytes(const std::string& dir) {
  std::ifstream file(dir + "/config.json");
  const nlohmann::json config = nlohmann::json::parse(file);
  const std::uint64_t heads = config["num_attention_heads"];
  const std::uint64_t head_dim =
      config.contains("head_dim") ? config["head_dim"].get<std::uint64_t>()
                                  : config["hidden_size"].get<std::uint64_t>() / heads;
  return 2ull * config["num_hidden_layers"].get<std::uint64_t>() *
         config["num_key_value_heads"].get<std::uint64_t>() * 32 * head_dim * sizeof(float);
}

// Reports whether two runs' logits are the same bits.
void report_identical(const std::string& name, const std::vector<float>& a,
                      const std::vector<float>& b, std::uint32_t vocab, const std::string& what) {
  const bool same = !a.empty() && a.size() == b.size() &&
                    std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  report(name, same,
         std::to_string(a.size() / vocab) + " logits rows, " + what + ": " +
             (same ? "bit-identical" : "DIFFERENT"));
}

std::string mib(std::uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: engine_checks PLUGIN.so PREPARED_CHECKPOINT\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  auto entry = reinterpret_cast<AlgentaPluginEntryFn>(dlsym(library, ALGENTA_PLUGIN_ENTRY_SYMBOL));
  plugin = entry != nullptr ? entry(ALGENTA_ABI_MAJOR) : nullptr;
  if (plugin == nullptr) {
    std::fprintf(stderr, "%s: no ABI %d table\n", argv[1], ALGENTA_ABI_MAJOR);
    return 2;
  }
  const std::string dir = argv[2];

  {
    Engine engine;
    const Outcome refused = open_engine(engine, dir, 4096, 1ull << 50);
    report("oom_at_open_refused", refused.code == ALGENTA_STATUS_OUT_OF_MEMORY &&
                                      refused.message.find("free") != std::string::npos,
           refused.message);
  }

  {
    // The same weights under a config whose activation the engine lacks.
    namespace fs = std::filesystem;
    const fs::path odd = fs::temp_directory_path() / "engine_checks_gelu";
    fs::remove_all(odd);
    fs::create_directories(odd);
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().filename() != "config.json") fs::copy(entry.path(), odd / entry.path().filename());
    }
    std::ifstream in(dir + "/config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    config["hidden_act"] = "gelu_pytorch_tanh";
    std::ofstream(odd / "config.json") << config.dump();
    Engine engine;
    const Outcome refused = open_engine(engine, odd.string(), 4096, 0);
    report("fact_outside_ranges_refused", refused.code == ALGENTA_STATUS_UNSUPPORTED &&
                                              refused.message.find("hidden_act") != std::string::npos,
           refused.message);
    fs::remove_all(odd);
  }

  {
    Engine engine;
    const Outcome opened = open_engine(engine, dir, 4096, 0);
    report("open_after_refusal", opened.code == ALGENTA_STATUS_OK, opened.message);
    if (opened.code != ALGENTA_STATUS_OK) return 1;

    AlgentaMemoryReport_Args memory{};
    memory.struct_size = ALGENTA_MemoryReport_Args_STRUCT_SIZE;
    memory.engine = engine.handle;
    outcome_of(plugin->memory_report(&memory));
    const std::uint64_t free_before = memory.device_free_bytes;
    report("memory_report",
           memory.weight_bytes > 0 && memory.kv_cache_bytes > 0 &&
               memory.kv_tokens_per_block > 0 && memory.kv_blocks_free == memory.kv_blocks_total &&
               memory.kv_blocks_total > 0,
           "weights " + std::to_string(memory.weight_bytes) + " B, KV cache " +
               mib(memory.kv_cache_bytes) + ", workspace " + mib(memory.workspace_bytes) +
               ", device free " + mib(memory.device_free_bytes) + " of " +
               mib(memory.device_total_bytes) + ", KV " + std::to_string(memory.kv_blocks_free) +
               " of " + std::to_string(memory.kv_blocks_total) + " blocks of " +
               std::to_string(memory.kv_tokens_per_block) + " tokens free");

    int32_t next = 0;
    Outcome too_long;
    run_chunk(engine, 1, prompt(4097, 1, engine.vocab), 0, &next, &too_long);
    report("prompt_past_context_refused",
           too_long.code == ALGENTA_STATUS_INVALID_ARGUMENT &&
               too_long.message.find("exceed the context") != std::string::npos,
           too_long.message);
    Outcome after;
    const std::vector<float> logits = run_chunk(engine, 2, prompt(64, 2, engine.vocab), 0, &next,
                                                &after);
    report("usable_after_refusal", after.code == ALGENTA_STATUS_OK && !logits.empty(),
           after.message.empty() ? "next token " + std::to_string(next) : after.message);

    // The same prompt whole and in chunks of 100, 120, 80 tokens.
    const std::vector<int32_t> tokens = prompt(300, 4, engine.vocab);
    const std::vector<float> whole = generate(engine, 20, tokens, 8);
    const std::vector<float> chunked = generate(engine, 21, tokens, 8, {100, 120, 80});
    report_identical("chunked_prefill_bit_identical", whole, chunked, engine.vocab,
                     "prompt whole vs in chunks of 100+120+80");

    // 4096 tokens in one prefill: the workspace was fixed at open.
    Outcome full;
    run_chunk(engine, 3, prompt(4096, 3, engine.vocab), 0, &next, &full);
    outcome_of(plugin->memory_report(&memory));
    const std::int64_t grown = static_cast<std::int64_t>(free_before) -
                               static_cast<std::int64_t>(memory.device_free_bytes);
    report("prefill_4096_workspace", full.code == ALGENTA_STATUS_OK && grown < (64ll << 20),
           "workspace " + mib(memory.workspace_bytes) + " (fixed at open); device memory grew " +
               std::to_string(grown) + " B during the 4096-token prefill; a 4096^2 fp32 score "
               "matrix per head would be " + mib(4096ull * 4096 * 4));
  }

  {
    // A pool of exactly 10 blocks (max_context 320): A, B, C hold 9; after
    // freeing B then A, D's 5 blocks can only come from theirs.
    const std::uint64_t pool = 10 * kv_block_bytes(dir);
    Engine engine;
    Outcome opened = open_engine(engine, dir, 320, pool);
    report("open_small_kv_pool", opened.code == ALGENTA_STATUS_OK, opened.message);
    if (opened.code != ALGENTA_STATUS_OK) return 1;
    generate(engine, 10, prompt(100, 10, engine.vocab), 4);
    generate(engine, 11, prompt(70, 11, engine.vocab), 4);
    generate(engine, 12, prompt(36, 12, engine.vocab), 4);
    free_sequence(engine, 11);
    free_sequence(engine, 10);
    const std::vector<float> reused = generate(engine, 13, prompt(150, 13, engine.vocab), 8);

    Engine fresh;
    opened = open_engine(fresh, dir, 320, pool);
    const std::vector<float> alone = generate(fresh, 13, prompt(150, 13, engine.vocab), 8);
    report_identical("kv_blocks_reused_out_of_order", reused, alone, engine.vocab,
                     "the sequence on reused blocks vs alone");
  }
  return failures == 0 ? 0 : 1;
}
