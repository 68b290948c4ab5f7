// Times the CPU oracle plugin on a Qwen3-0.6B-shaped checkpoint (hidden 1024,
// 28 layers, 16 heads, 8 kv heads, head_dim 128, intermediate 3072, vocab
// 151936, tied, bf16, q/k norm) whose weights come from a seed: a prefill
// of --prompt tokens, then --decode single-token steps.
//
//   algenta_oracle_bench --plugin libalgenta_cpu_oracle.so --checkpoint DIR
//                        [--seed N] [--prompt 32] [--decode 32]
//
// DIR is written when it holds no checkpoint yet (about 1.2 GB), and reused.
#include <dlfcn.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "algenta/plugin_abi.h"
#include "checkpoint/dtype_convert.hpp"
#include "checkpoint/resident_format.hpp"
#include "loader/plugin_calls.hpp"
#include "random/splitmix64.hpp"

namespace {

namespace fs = std::filesystem;
using algenta::checkpoint::Dtype;

struct Options {
  std::string plugin;
  fs::path checkpoint;
  std::uint64_t seed = 1;
  std::uint32_t prompt = 32;
  std::uint32_t decode = 32;
};

constexpr std::int64_t kHidden = 1024, kLayers = 28, kHeads = 16, kKvHeads = 8, kHeadDim = 128,
                       kIntermediate = 3072, kVocab = 151936;

// Values drawn from a SplitMix64 stream: the same for a seed everywhere.
class Random {
 public:
  explicit Random(std::uint64_t seed) : stream_(seed) {}
  std::uint64_t next() { return stream_.next(); }
  // Uniform in [-scale, scale).
  float uniform(float scale) {
    return scale * (static_cast<float>(next() >> 40) * 0x1p-23f - 1.0f);
  }

 private:
  algenta::SplitMix64 stream_;
};

nlohmann::json qwen3_config() {
  return {{"architectures", {"Qwen3ForCausalLM"}},
          {"model_type", "qwen3"},
          {"hidden_size", kHidden},
          {"num_hidden_layers", kLayers},
          {"num_attention_heads", kHeads},
          {"num_key_value_heads", kKvHeads},
          {"head_dim", kHeadDim},
          {"intermediate_size", kIntermediate},
          {"vocab_size", kVocab},
          {"max_position_embeddings", 40960},
          {"rope_theta", 1000000.0},
          {"rms_norm_eps", 1e-6},
          {"tie_word_embeddings", true},
          {"attention_bias", false},
          {"hidden_act", "silu"},
          {"torch_dtype", "bfloat16"}};
}

void add_bf16(algenta::checkpoint::ResidentWriter& writer, const std::string& name,
              std::vector<std::int64_t> shape, Random& random, float scale, float offset = 0.0f) {
  std::int64_t count = 1;
  for (const std::int64_t d : shape) count *= d;
  std::vector<std::uint16_t> values(static_cast<std::size_t>(count));
  for (std::uint16_t& v : values) {
    v = algenta::checkpoint::f32_bits_to_bf16(
        std::bit_cast<std::uint32_t>(offset + random.uniform(scale)));
  }
  writer.add_tensor(name, shape, Dtype::BF16, std::as_bytes(std::span(values)));
}

void write_checkpoint(const fs::path& dir, std::uint64_t seed) {
  std::printf("writing a seeded Qwen3-0.6B-shaped checkpoint to %s\n", dir.c_str());
  // add_side_file keeps the file's name, so config.json is written apart first.
  const fs::path side = dir.string() + ".side";
  fs::create_directories(side);
  const fs::path config = side / "config.json";
  std::ofstream(config) << qwen3_config().dump(2);
  algenta::checkpoint::ResidentWriter writer(
      dir, Dtype::BF16, {{"bench", "qwen3-0.6b-shape"}, {"seed", seed}}, nlohmann::json::object());
  Random random(seed);
  const float w = 0.035f;  // uniform scale: std about 0.02, like initialisation
  add_bf16(writer, "model.embed_tokens.weight", {kVocab, kHidden}, random, w);
  add_bf16(writer, "model.norm.weight", {kHidden}, random, 0.1f, 1.0f);
  for (std::int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    add_bf16(writer, p + "input_layernorm.weight", {kHidden}, random, 0.1f, 1.0f);
    add_bf16(writer, p + "post_attention_layernorm.weight", {kHidden}, random, 0.1f, 1.0f);
    add_bf16(writer, p + "self_attn.q_proj.weight", {kHeads * kHeadDim, kHidden}, random, w);
    add_bf16(writer, p + "self_attn.k_proj.weight", {kKvHeads * kHeadDim, kHidden}, random, w);
    add_bf16(writer, p + "self_attn.v_proj.weight", {kKvHeads * kHeadDim, kHidden}, random, w);
    add_bf16(writer, p + "self_attn.o_proj.weight", {kHidden, kHeads * kHeadDim}, random, w);
    add_bf16(writer, p + "self_attn.q_norm.weight", {kHeadDim}, random, 0.1f, 1.0f);
    add_bf16(writer, p + "self_attn.k_norm.weight", {kHeadDim}, random, 0.1f, 1.0f);
    add_bf16(writer, p + "mlp.gate_proj.weight", {kIntermediate, kHidden}, random, w);
    add_bf16(writer, p + "mlp.up_proj.weight", {kIntermediate, kHidden}, random, w);
    add_bf16(writer, p + "mlp.down_proj.weight", {kHidden, kIntermediate}, random, w);
  }
  writer.add_side_file(config);
  writer.commit();
  fs::remove_all(side);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--plugin")
      o.plugin = value;
    else if (flag == "--checkpoint")
      o.checkpoint = value;
    else if (flag == "--seed")
      o.seed = std::stoull(value);
    else if (flag == "--prompt")
      o.prompt = static_cast<std::uint32_t>(std::stoul(value));
    else if (flag == "--decode")
      o.decode = static_cast<std::uint32_t>(std::stoul(value));
    else
      throw std::invalid_argument("unknown flag " + flag);
  }
  if (o.plugin.empty() || o.checkpoint.empty()) {
    throw std::invalid_argument(
        "usage: algenta_oracle_bench --plugin SO --checkpoint DIR "
        "[--seed N] [--prompt N] [--decode N]");
  }
  if (o.prompt == 0) throw std::invalid_argument("--prompt must be at least 1");
  return o;
}

void check(const AlgentaPluginV1* table, AlgentaError* error, const char* what) {
  if (error == nullptr) return;
  throw std::runtime_error(std::string(what) + ": " + algenta::loader::take_error(*table, error).message);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(const Options& o) {
  if (!fs::exists(o.checkpoint / "manifest.json")) write_checkpoint(o.checkpoint, o.seed);

  void* library = dlopen(o.plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) throw std::runtime_error(std::string("dlopen: ") + dlerror());
  const auto entry =
      reinterpret_cast<AlgentaPluginEntryFn>(dlsym(library, ALGENTA_PLUGIN_ENTRY_SYMBOL));
  const AlgentaPluginV1* table = entry != nullptr ? entry(ALGENTA_ABI_MAJOR) : nullptr;
  if (table == nullptr) throw std::runtime_error("no ABI v1 table in " + o.plugin);

  const std::string dir = o.checkpoint.string();
  AlgentaEngineOpen_Args open{};
  open.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
  open.checkpoint_dir = dir.c_str();
  open.precision = ALGENTA_PRECISION_EXACT;
  auto start = std::chrono::steady_clock::now();
  check(table, table->engine_open(&open), "engine_open");
  std::printf("open: %.2f s (vocab %u, context %u)\n", seconds_since(start), open.vocab_size,
              open.served_max_context);

  Random random(o.seed ^ 0x70726f6d7074ull);
  std::vector<std::int32_t> prompt(o.prompt);
  for (std::int32_t& t : prompt) t = static_cast<std::int32_t>(random.next() % kVocab);

  AlgentaSequenceChunk chunk{};
  chunk.struct_size = ALGENTA_SequenceChunk_STRUCT_SIZE;
  chunk.sequence_id = 1;
  chunk.tokens = prompt.data();
  chunk.token_count = o.prompt;
  chunk.start_position = 0;
  chunk.want_logits = ALGENTA_LOGITS_NONE;
  std::int32_t next = 0;
  AlgentaEngineStep_Args step{};
  step.struct_size = ALGENTA_EngineStep_Args_STRUCT_SIZE;
  step.engine = open.engine;
  step.chunks = &chunk;
  step.chunk_count = 1;
  step.chunk_stride = sizeof(chunk);
  step.next_tokens = &next;

  start = std::chrono::steady_clock::now();
  check(table, table->engine_step(&step), "prefill");
  const double prefill = seconds_since(start);
  std::printf("prefill: %u tokens in %.2f s (%.1f tokens/s)\n", o.prompt, prefill,
              o.prompt / prefill);

  // Decode steps return their logits too, as when the oracle judges an engine.
  std::vector<float> logits(open.vocab_size);
  chunk.want_logits = ALGENTA_LOGITS_LAST;
  step.logits = logits.data();
  step.logits_capacity = logits.size();
  std::vector<std::int32_t> generated;
  start = std::chrono::steady_clock::now();
  for (std::uint32_t i = 0; i < o.decode; ++i) {
    std::int32_t token = next;
    generated.push_back(token);
    chunk.tokens = &token;
    chunk.token_count = 1;
    chunk.start_position = o.prompt + i;
    check(table, table->engine_step(&step), "decode");
  }
  const double decode = seconds_since(start);
  std::printf("decode: %u steps in %.2f s (%.2f tokens/s)\n", o.decode, decode, o.decode / decode);
  // Bits of the last logits: equal across thread counts and runs.
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a
  for (const float v : logits) {
    const auto bits = std::bit_cast<std::uint32_t>(v);
    for (int b = 0; b < 4; ++b) hash = (hash ^ ((bits >> (8 * b)) & 0xffu)) * 0x100000001b3ull;
  }
  std::printf("last logits fnv1a: %016llx\n", static_cast<unsigned long long>(hash));

  std::string tokens;
  for (std::size_t i = 0; i < generated.size() && i < 8; ++i)
    tokens += std::to_string(generated[i]) + " ";
  std::printf("first generated tokens: %s\n", tokens.c_str());

  AlgentaMemoryReport_Args memory{};
  memory.struct_size = ALGENTA_MemoryReport_Args_STRUCT_SIZE;
  memory.engine = open.engine;
  check(table, table->memory_report(&memory), "memory_report");
  const auto mib = [](std::uint64_t bytes) { return static_cast<double>(bytes) / 1048576.0; };
  std::printf("memory: weights %.1f MiB, kv %.1f MiB, workspace %.1f MiB\n",
              mib(memory.weight_bytes), mib(memory.kv_cache_bytes), mib(memory.workspace_bytes));
  if (const auto failure = algenta::loader::close_engine(*table, open.engine)) {
    throw std::runtime_error("engine_close: " + failure->message);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "algenta_oracle_bench: %s\n", e.what());
    return 1;
  }
}
