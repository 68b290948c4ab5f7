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
//    a 4096-token prefill, which must not grow with the prompt;
//  - the host's KV block tables (ABI 1.1, host_block_tables.cpp): taken with
//    32-token blocks, the same bits as the engine's own cache, a prefix hit
//    on another sequence's blocks, and bad tables refused.
// Run by tests/gpu/run.sh; alone, with the host's tables and serve's prefix
// cache test on cuda_sm90a after it: tests/gpu/host_tables_quick.sh RESULTS_DIR
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine_calls.hpp"
#include "host_block_tables.hpp"

using namespace engine_checks;

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
  engine_checks::plugin = entry != nullptr ? entry(ALGENTA_ABI_MAJOR) : nullptr;
  if (plugin == nullptr) {
    std::fprintf(stderr, "%s: no ABI %d table\n", argv[1], ALGENTA_ABI_MAJOR);
    return 2;
  }
  const std::string dir = argv[2];

  {
    Engine engine;
    const Outcome refused = open_engine(engine, dir, {.context = 4096, .kv_bytes = 1ull << 50});
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
    const Outcome refused = open_engine(engine, odd.string(), {.context = 4096});
    report("fact_outside_ranges_refused", refused.code == ALGENTA_STATUS_UNSUPPORTED &&
                                              refused.message.find("hidden_act") != std::string::npos,
           refused.message);
    fs::remove_all(odd);
  }

  {
    Engine engine;
    const Outcome opened = open_engine(engine, dir, {.context = 4096});
    report("open_after_refusal", opened.code == ALGENTA_STATUS_OK, opened.message);
    if (opened.code != ALGENTA_STATUS_OK) return 1;

    AlgentaMemoryReport_Args memory = memory_of(engine);
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
    memory = memory_of(engine);
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
    Outcome opened = open_engine(engine, dir, {.context = 320, .kv_bytes = pool});
    report("open_small_kv_pool", opened.code == ALGENTA_STATUS_OK, opened.message);
    if (opened.code != ALGENTA_STATUS_OK) return 1;
    generate(engine, 10, prompt(100, 10, engine.vocab), 4);
    generate(engine, 11, prompt(70, 11, engine.vocab), 4);
    generate(engine, 12, prompt(36, 12, engine.vocab), 4);
    free_sequence(engine, 11);
    free_sequence(engine, 10);
    const std::vector<float> reused = generate(engine, 13, prompt(150, 13, engine.vocab), 8);

    Engine fresh;
    opened = open_engine(fresh, dir, {.context = 320, .kv_bytes = pool});
    const std::vector<float> alone = generate(fresh, 13, prompt(150, 13, engine.vocab), 8);
    report_identical("kv_blocks_reused_out_of_order", reused, alone, engine.vocab,
                     "the sequence on reused blocks vs alone");
  }

  check_host_block_tables(dir);
  return failure_count() == 0 ? 0 : 1;
}
