#include "engine_calls.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "loader/plugin_calls.hpp"

namespace engine_checks {

const AlgentaPluginV1* plugin = nullptr;

namespace {
int failures = 0;
}  // namespace

void report(const std::string& name, bool passed, const std::string& detail) {
  std::printf("%-34s %s  %s\n", name.c_str(), passed ? "PASS" : "FAIL", detail.c_str());
  if (!passed) ++failures;
}

int failure_count() { return failures; }

Outcome outcome_of(AlgentaError* error) {
  Outcome outcome;
  if (error == nullptr) return outcome;
  const algenta::loader::PluginFailure failure = algenta::loader::take_error(*plugin, error);
  outcome.code = failure.code;
  outcome.message = failure.message;
  return outcome;
}

Engine::~Engine() {
  if (handle != nullptr) algenta::loader::close_engine(*plugin, handle);
}

Outcome open_engine(Engine& engine, const std::string& dir, const OpenOptions& options) {
  AlgentaEngineOpen_Args args{};
  args.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
  args.checkpoint_dir = dir.c_str();
  args.precision = ALGENTA_PRECISION_EXACT;
  args.requested_max_context = options.context;
  args.max_sequences = 8;
  args.kv_cache_bytes = options.kv_bytes;
  args.host_block_tables = options.host_block_tables ? 1 : 0;
  args.block_tables_accepted = 0;  // as the host sets it
  Outcome outcome = outcome_of(plugin->engine_open(&args));
  engine.handle = args.engine;
  engine.vocab = args.vocab_size;
  engine.accepted = args.block_tables_accepted == 1;
  engine.tokens_per_block = args.kv_tokens_per_block;
  engine.blocks_total = args.kv_blocks_total;
  return outcome;
}

StepOutput run_step(Engine& engine, const std::vector<ChunkSpec>& chunks) {
  std::vector<AlgentaSequenceChunk> abi;
  std::size_t floats = 0;
  for (const ChunkSpec& c : chunks) {
    abi.push_back({ALGENTA_SequenceChunk_STRUCT_SIZE, c.id, c.tokens.data(),
                   static_cast<std::uint32_t>(c.tokens.size()), c.start, c.logits,
                   c.table.empty() ? nullptr : c.table.data(),
                   static_cast<std::uint32_t>(c.table.size())});
    if (c.logits == ALGENTA_LOGITS_LAST) floats += engine.vocab;
    if (c.logits == ALGENTA_LOGITS_ALL) floats += c.tokens.size() * engine.vocab;
  }
  StepOutput out;
  out.next.resize(chunks.size());
  out.logits.resize(floats);
  AlgentaEngineStep_Args args{};
  args.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE;
  args.engine = engine.handle;
  args.chunks = abi.data();
  args.chunk_count = abi.size();
  args.chunk_stride = sizeof(AlgentaSequenceChunk);
  args.next_tokens = out.next.data();
  args.logits = floats == 0 ? nullptr : out.logits.data();
  args.logits_capacity = floats;
  out.outcome = outcome_of(plugin->engine_step(&args));
  if (!out.outcome.ok()) out.logits.clear();
  return out;
}

std::vector<float> run_chunk(Engine& engine, std::uint64_t id, const std::vector<std::int32_t>& tokens,
                             std::uint32_t start, std::int32_t* next, Outcome* outcome) {
  StepOutput out = run_step(engine, {{id, tokens, start}});
  if (outcome != nullptr) *outcome = out.outcome;
  if (!out.outcome.ok()) return {};
  *next = out.next[0];
  return out.logits;
}

Outcome free_sequence(Engine& engine, std::uint64_t id) {
  AlgentaSequencesFree_Args args{ALGENTA_SequencesFree_Args_STRUCT_SIZE, nullptr, engine.handle, &id, 1};
  return outcome_of(plugin->sequences_free(&args));
}

AlgentaMemoryReport_Args memory_of(Engine& engine) {
  AlgentaMemoryReport_Args memory{};
  memory.struct_size = ALGENTA_MemoryReport_Args_STRUCT_SIZE;
  memory.engine = engine.handle;
  outcome_of(plugin->memory_report(&memory));
  return memory;
}

std::vector<std::int32_t> prompt(std::size_t length, std::uint32_t seed, std::uint32_t vocab) {
  std::vector<std::int32_t> tokens(length);
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& t : tokens) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    t = static_cast<std::int32_t>(state % vocab);
  }
  return tokens;
}

std::vector<float> generate(Engine& engine, std::uint64_t id, const std::vector<std::int32_t>& tokens,
                            int steps, const std::vector<std::size_t>& chunks,
                            const std::vector<std::uint32_t>& table) {
  std::vector<float> all;
  std::int32_t next = 0;
  StepOutput out;
  auto chunk = [&](std::vector<std::int32_t> part, std::size_t start) {
    out = run_step(engine, {{id, std::move(part), static_cast<std::uint32_t>(start), table}});
    if (out.outcome.ok()) next = out.next[0];
  };
  std::size_t start = 0;
  for (const std::size_t size : chunks) {
    chunk({tokens.begin() + start, tokens.begin() + start + size}, start);
    start += size;
  }
  if (start < tokens.size()) chunk({tokens.begin() + start, tokens.end()}, start);
  all.insert(all.end(), out.logits.begin(), out.logits.end());
  for (int s = 0; s < steps; ++s) {
    chunk({next}, tokens.size() + s);
    all.insert(all.end(), out.logits.begin(), out.logits.end());
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

}  // namespace engine_checks
