// The algenta-host subcommands. Each returns the process exit code:
// 0 success, 1 usage or input error, 2 refused (verification, selection,
// missing accelerator), 3 the engine failed, 4 (verify) a correctness gate
// failed or did not run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/host_paths.hpp"
#include "http/server.hpp"

// CLI11's App, declared only: its header costs seconds in every file that
// includes this one, and only the option builders need it.
namespace CLI {
class App;
}

namespace algenta::host {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 1;
inline constexpr int kExitRefused = 2;
inline constexpr int kExitEngine = 3;
inline constexpr int kExitGateFailed = 4;

// How an engine computes and whether it may round weights (serve, generate,
// verify): a precision policy the plugin declares, and the operator's consent.
struct PrecisionOptions {
  std::string precision = "exact";
  bool allow_weight_rounding = false;
};

struct ServeOptions {
  std::string backend = "auto";  // auto | cuda | plugin name
  PrecisionOptions precision;
  bool allow_oracle = false;
  bool list_backends = false;
  std::string model_dir;          // a prepared checkpoint, or
  std::string synthetic_seed;     // weights made from this seed for
  std::string config_file;        // this config.json (served without a tokenizer)
  std::string served_model_name;  // empty: the model folder's name (<model_type>-synthetic)
  std::string api_key_file;       // empty: ALGENTA_API_KEYS alone (or no keys)
  bool metrics_without_key = false;  // /metrics open to scrapers that send no key
  std::string chat_template;      // a file replacing the checkpoint's template
  std::uint32_t max_context = 0;  // 0: the model's
  std::uint32_t max_prompt_tokens = 0;  // 0: the context less one
  std::size_t max_queue = 256;    // waiting requests; 429 above
  // Continuous batching: sequences running at once (each gets a row in every
  // step; the engine is opened to hold as many) and tokens per engine step.
  std::uint32_t max_running = 64;
  std::uint32_t max_step_tokens = 512;
  // --kv-cache-memory-bytes: the engine's KV cache size; 0: the engine sizes it
  // from the free device memory (most of it), so two servers cannot share a card.
  std::uint64_t kv_cache_bytes = 0;
  // --prefix-cache on|off; empty: on when the engine takes the host's KV
  // block tables (ABI 1.1), off when it keeps its own cache.
  std::string prefix_cache;
  // --sampling engine|host: sampled tokens drawn inside the engine when it
  // can (ABI 1.2), or always by the host from the engine's logits.
  std::string sampling_on = "engine";
  std::int64_t drain_timeout_ms = 30000;  // SIGTERM: how long in-flight requests may finish
  http::ServerOptions http;
};

struct ConformOptions {
  std::string checkpoint_dir;
  std::string backend = "cuda";  // cuda | cpu_oracle | a plugin name | all
  bool backend_defaulted = true;
  std::string json_file;
  bool probe = false;
  bool table = false;
};

struct PrepareOptions {
  std::string checkpoint_dir;
  std::string out_dir;
  // f32 | bf16 | f16 | source: "source" keeps the stored values (the stored
  // dtype, or the narrowest of f32/bf16/f16 that holds every stored tensor).
  std::string dtype = "source";
};

struct GenerateOptions {
  std::string model_dir;         // prepared checkpoint
  std::string backend = "auto";  // auto | cuda | plugin name
  PrecisionOptions precision;
  std::vector<std::int32_t> prompt_ids;
  std::size_t max_tokens = 16;
  std::uint32_t max_context = 0;  // 0 = the model's maximum
  std::string logits_file;
};

struct VerifyOptions {
  std::string model_dir;         // prepared checkpoint
  std::string backend = "auto";  // auto | cuda | plugin name
  PrecisionOptions precision;
  bool allow_oracle = false;
  std::string json_file;
  std::string transformers_reference;  // reference file of the transformers gate
  std::vector<std::size_t> lengths = {256, 550, 1024, 4096};  // oracle gate prompts
  std::size_t tokens = 64;  // greedy tokens per oracle gate prompt
};

// Numeric flags are kept as typed so that bench can name a bad value and the
// allowed range itself (bench/bench_arguments.hpp checks them).
struct BenchOptions {
  std::string model_dir;          // a prepared checkpoint, or
  std::string synthetic_seed;     // weights made from this seed for
  std::string config_file;        // this config.json
  std::string backend = "auto";   // auto | cuda | plugin name
  PrecisionOptions precision;
  bool allow_oracle = false;
  std::string shapes = "256,550,1024,4096";  // prompt lengths
  std::string gen = "64,256";                // generated tokens per run
  std::string runs = "5";                    // timed runs per cell
  std::string warmup = "1";                  // untimed runs per cell first
  std::string concurrency = "1";             // comma-separated
  std::string json_file;
};

struct KernelsOptions {
  std::string backend = "all";  // cuda | cpu_oracle | a plugin name | all
  std::string family;           // empty = every family
  bool json = false;
};

// Renders chat messages with a model's chat template as transformers does.
struct TemplateOptions {
  std::string model_dir;      // a checkpoint directory (Hugging Face or prepared)
  std::string messages_file;  // a JSON array of messages
  bool add_generation_prompt = false;
  bool ids = false;                // print token ids instead of the text
  std::string chat_template_file;  // replaces the model's template
  std::string extra_json;          // a JSON object of extra template variables
  std::optional<std::int64_t> now;  // strftime_now's clock, seconds since the epoch (UTC)
};

int run_doctor(const HostPaths& paths);
int run_kernels(const HostPaths& paths, const KernelsOptions& options);
int run_generate(const HostPaths& paths, const GenerateOptions& options);
// Exit codes: 0 every gate ran and passed, 4 a gate failed or did not run,
// 1 unusable input, 2 refused, 3 the engine failed.
int run_verify(const HostPaths& paths, const VerifyOptions& options);
// Exit codes: 0 supported, 3 supported pending the tensor probe, 2 refused,
// 1 unusable input.
int run_conform(const HostPaths& paths, const ConformOptions& options);
int run_prepare(const PrepareOptions& options);
// Exit codes: 0 measured, 1 unusable input (each bad flag named with its
// value and the allowed range), 2 refused (no passing verify record for the
// plugin and policy, selection), 3 the engine failed.
int run_bench(const HostPaths& paths, const BenchOptions& options);
int run_serve(const HostPaths& paths, const ServeOptions& options);
// serve's flags beyond the engine choice (serve_options.cpp).
void add_serve_flags(CLI::App* serve, ServeOptions& options);
// `serve --backends`: every backend, its requirements and this host's verdict.
int list_backends(const HostPaths& paths);
// Exit codes: 0 rendered, 1 unusable input (files, messages, no template, the
// template raised or failed on them), 2 refused (the template uses Jinja
// outside the supported subset, or a render limit was reached).
int run_template(const TemplateOptions& options);

}  // namespace algenta::host
