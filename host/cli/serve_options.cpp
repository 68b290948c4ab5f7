// serve's flags: what is served and how, the API's limits, and the transport's.
#include "cli/commands.hpp"
#include "http/http_options.hpp"

namespace algenta::host {

void add_serve_flags(CLI::App* serve, ServeOptions& options) {
  serve->add_option("--served-model-name", options.served_model_name,
                    "the model id clients name (default: the model folder's name)");
  serve->add_option("--api-key-file", options.api_key_file,
                    "API keys, one per line (also ALGENTA_API_KEYS, comma-separated); every "
                    "route but /health and /ready then needs one");
  serve->add_option("--chat-template", options.chat_template,
                    "a Jinja chat template file used instead of the checkpoint's");
  serve->add_option("--max-context", options.max_context,
                    "tokens per sequence (default: the model's maximum)");
  serve->add_option("--max-prompt-tokens", options.max_prompt_tokens,
                    "prompt length cap (default: the context less one)");
  serve->add_option("--max-queue", options.max_queue, "requests that may wait; 429 above")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  serve->add_option("--drain-timeout-ms", options.drain_timeout_ms,
                    "on SIGTERM, how long requests in flight may take to finish")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{3600000}))
      ->capture_default_str();
  http::add_server_options(*serve, options.http);
}

}  // namespace algenta::host
