// serve's flags: what is served and how, the API's limits, and the transport's.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "http/http_options.hpp"

namespace algenta::host {

void add_serve_flags(CLI::App* serve, ServeOptions& options) {
  serve->add_option("--synthetic-weights", options.synthetic_seed,
                    "instead of --model: serve the checkpoint prepare would write for --config, "
                    "with normally distributed weights from this seed, made in a temporary "
                    "directory removed at exit; no tokenizer: token-id prompts on /v1/completions");
  serve->add_option("--config", options.config_file, "config.json for --synthetic-weights");
  serve->add_option("--served-model-name", options.served_model_name,
                    "the model id clients name (default: the model folder's name, or "
                    "<model_type>-synthetic)");
  serve->add_option("--api-key-file", options.api_key_file,
                    "API keys, one per line (also ALGENTA_API_KEYS, comma-separated); every "
                    "route but /health and /ready then needs one");
  serve->add_flag("--metrics-without-key", options.metrics_without_key,
                  "GET /metrics answers without an API key too, for scrapers that cannot send "
                  "one (the Inference Extension's endpoint picker); every other route stays keyed");
  serve->add_option("--chat-template", options.chat_template,
                    "a Jinja chat template file used instead of the checkpoint's");
  serve->add_option("--max-context", options.max_context,
                    "tokens per sequence (default: the model's maximum)");
  serve->add_option("--max-prompt-tokens", options.max_prompt_tokens,
                    "prompt length cap (default: the context less one)");
  serve->add_option("--max-queue", options.max_queue, "requests that may wait; 429 above")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  // Each running sequence gets a row in every step, so this is also the
  // engine's resident sequence count (it is opened with as many).
  serve->add_option("--max-running", options.max_running,
                    "requests batched into each engine step (and held by the engine at once)")
      ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{4096}))
      ->capture_default_str();
  // Three at least: a prompt chunk is never one token (a one-token chunk would
  // take the decode path), so two could never take a three-token remainder.
  serve->add_option("--max-step-tokens", options.max_step_tokens,
                    "tokens per engine step, decode tokens and prompt chunks together")
      ->check(CLI::Range(std::uint32_t{3}, std::uint32_t{1} << 20))
      ->capture_default_str();
  // The engine refuses a size below one sequence of the context or above what
  // the device has left after the weights, naming both.
  serve->add_option("--kv-cache-memory-bytes", options.kv_cache_bytes,
                    "bytes for the engine's KV cache (default: sized from the free device "
                    "memory); set it to leave room for another process on the same device")
      ->check(CLI::Range(std::uint64_t{1} << 20, std::uint64_t{1} << 50));
  serve->add_option("--prefix-cache", options.prefix_cache,
                    "share the KV blocks of a prompt's start between requests that begin alike "
                    "(default: on when the engine takes the host's KV block tables, off when it "
                    "keeps its own cache; on with such an engine is an error)")
      ->check(CLI::IsMember({"on", "off"}));
  serve->add_option("--sampling", options.sampling_on,
                    "where sampled tokens are drawn: engine (inside the engine when it can, so "
                    "logits stay on its device; else the host) or host (always the host, from "
                    "the engine's logits); both run the same pipeline")
      ->check(CLI::IsMember({"engine", "host"}))
      ->capture_default_str();
  serve->add_option("--drain-timeout-ms", options.drain_timeout_ms,
                    "on SIGTERM, how long requests in flight may take to finish")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{3600000}))
      ->capture_default_str();
  http::add_server_options(*serve, options.http);
}

}  // namespace algenta::host
