// `algenta-host serve`: verify bundles, find the GPU, select exactly one
// engine, open the checkpoint on it (--model, or one made from
// --synthetic-weights), and answer OpenAI clients over HTTP until SIGTERM or
// SIGINT; then stop accepting, let requests in flight finish within
// --drain-timeout-ms, and exit 0.
#include <signal.h>

#include <filesystem>
#include <iostream>

#include "chat/template_error.hpp"
#include "cli/commands.hpp"
#include "cli/serve_weights.hpp"
#include "engine/engine_session.hpp"
#include "engine/plugin_choice.hpp"
#include "engine/plugin_report.hpp"
#include "openai/routes.hpp"
#include "serve/api_handler.hpp"
#include "serve/error_responses.hpp"
#include "serve/prefix_cache_choice.hpp"
#include "tokenizer/tokenizer_error.hpp"

namespace algenta::host {
namespace {

constexpr const char* kCommand = "algenta-host serve";

// SIGTERM and SIGINT are taken by sigwait in the main thread. They are
// blocked before any thread starts (the engine's included), since threads
// inherit the mask and a stray delivery would kill the process undrained.
sigset_t block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

serve::ApiKeys load_keys(const ServeOptions& options) {
  std::vector<std::string> warnings;
  serve::ApiKeys keys = serve::ApiKeys::from_flag_and_environment(options.api_key_file, warnings);
  for (const std::string& w : warnings) std::cerr << kCommand << ": warning: " << w << "\n";
  if (!keys.enabled()) {
    std::cerr << kCommand << ": no API keys configured: every route is open to anyone who can "
                             "reach " << options.http.host << "\n";
  }
  return keys;
}

prompt::ModelText load_model_text(const ServeOptions& options, const ServeWeights& weights) {
  if (weights.synthetic()) {
    std::cerr << kCommand << ": synthetic weights have no tokenizer: /v1/completions takes "
                             "token-id prompts and answers with token ids (text \"\"); chat and "
                             "text prompts answer 400\n";
    return prompt::ModelText::without_tokenizer();
  }
  const auto override_file = options.chat_template.empty()
                                 ? std::nullopt
                                 : std::optional<std::filesystem::path>(options.chat_template);
  prompt::ModelText text = prompt::ModelText::load(weights.model_dir(), override_file);
  if (text.has_chat_template()) {
    std::cerr << kCommand << ": chat template from " << text.chat_template_source() << "\n";
  } else {
    std::cerr << kCommand << ": this checkpoint has no chat template: /v1/chat/completions "
                             "answers 400 (give one with --chat-template FILE)\n";
  }
  return text;
}

int serve_http(EngineSession& session, const prompt::ModelText& text, const ServeOptions& options,
               const std::string& model_name, serve::ApiKeys keys, const sigset_t& stop_signals) {
  const serve::PrefixCacheChoice prefix_cache = serve::choose_prefix_cache(
      options.prefix_cache, session.host_block_geometry(), session.plugin().entry().name);
  if (!prefix_cache.refusal.empty()) {
    std::cerr << kCommand << ": " << prefix_cache.refusal << "\n";
    return kExitUsage;
  }
  serve::ApiSettings settings;
  settings.model_name = model_name;
  settings.is_oracle = session.plugin().entry().role == "oracle";
  settings.keys = std::move(keys);
  settings.metrics_without_key = options.metrics_without_key;
  settings.limits = {session.max_context(), options.max_prompt_tokens};
  settings.caps.max_tokens = session.max_context();
  settings.caps.max_token_id = std::int64_t(session.vocab_size()) - 1;
  settings.caps.max_prompt_token_ids = session.max_context();

  serve::ServeMetrics metrics(settings.model_name);
  serve::SessionStepEngine engine(session);
  serve::EngineLoop loop(engine, text.has_tokenizer() ? &text.tokenizer() : nullptr, metrics,
                         {options.max_queue, options.max_running, options.max_step_tokens,
                          prefix_cache.enabled});
  serve::ApiHandler api(settings, text, loop, metrics);

  http::ServerOptions server_options = options.http;
  server_options.error_response = serve::transport_error_response;
  server_options.on_refused = [&metrics](int status, std::string_view path) {
    metrics.request_done(openai::route_name(openai::match_route(path)), status);
  };
  http::Server server(server_options, [&api](http::Request request,
                                             std::shared_ptr<http::ResponseWriter> writer) {
    api.handle(std::move(request), std::move(writer));
  });
  server.start();
  api.set_ready(true);
  std::cerr << kCommand << ": serving model '" << settings.model_name << "' on "
            << session.plugin().entry().name << " (precision " << session.precision()
            << ", context " << session.max_context() << " tokens) at http://"
            << server_options.host << ":" << server.port() << "/v1\n";
  const sched::SchedulerLimits& batch = loop.limits();
  std::cerr << kCommand << ": batching up to " << batch.max_step_rows << " requests and "
            << batch.max_step_tokens << " tokens per step over " << batch.total_blocks
            << " KV blocks of " << batch.tokens_per_block << " tokens ("
            << (session.host_block_geometry() ? "the host's block tables"
                                              : "the engine's own cache")
            << "); prefix cache " << prefix_cache.reason << "\n";
  std::cerr << kCommand << ": sampled tokens drawn "
            << (session.engine_samples() ? "inside the engine (its logits stay where they are)"
                : options.sampling_on == "host"
                    ? "by the host from the engine's logits (--sampling host)"
                    : "by the host from the engine's logits (the engine does not draw)")
            << "\n";
  if (settings.metrics_without_key && settings.keys.enabled()) {
    std::cerr << kCommand << ": /metrics answers without an API key (--metrics-without-key)\n";
  }
  if (settings.is_oracle) {
    std::cerr << kCommand << ": this is the CPU fp32 verification oracle: correct and slow, for "
                             "checking engines, not for production traffic\n";
  }
  std::cout << "listening on " << server_options.host << ":" << server.port() << std::endl;

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  std::cerr << kCommand << ": " << (signal_number == SIGTERM ? "SIGTERM" : "SIGINT")
            << ": no new connections; requests in flight get " << options.drain_timeout_ms
            << " ms to finish\n";
  api.set_ready(false);
  const std::size_t cut = server.stop(std::chrono::milliseconds(options.drain_timeout_ms));
  loop.stop();
  std::cerr << kCommand << ": stopped"
            << (cut ? " (" + std::to_string(cut) + " connections cut at the drain bound)" : "")
            << "\n";
  return kExitOk;
}

int open_and_serve(std::unique_ptr<loader::LoadedPlugin> plugin, const ServeOptions& options,
                   ServeWeights& weights, const sigset_t& stop_signals) {
  if (!weights.synthetic()) {
    if (const std::string problem = unprepared_checkpoint(weights.model_dir()); !problem.empty()) {
      std::cerr << kCommand << ": " << problem << "\n";
      return kExitUsage;
    }
  }
  std::optional<prompt::ModelText> text;
  serve::ApiKeys keys;
  try {
    text.emplace(load_model_text(options, weights));
    keys = load_keys(options);
  } catch (const std::exception& e) {
    std::cerr << kCommand << ": " << e.what() << "\n";
    return kExitUsage;
  }
  try {
    weights.make();
  } catch (const std::exception& e) {
    // No scratch space with room, or the checkpoint could not be written.
    std::cerr << kCommand << ": " << e.what() << "\n";
    return kExitUsage;
  }
  const std::string name = plugin->entry().name;
  const std::string model_name = options.served_model_name.empty()
                                     ? weights.default_model_name()
                                     : options.served_model_name;
  try {
    EngineOpenOptions open;
    open.checkpoint_dir = weights.model_dir();
    open.max_context = options.max_context;
    open.max_sequences = options.max_running;  // the scheduler never runs more at once
    open.kv_cache_bytes = options.kv_cache_bytes;
    // The scheduler owns the KV blocks when the engine agrees.
    open.host_block_tables = true;
    open.engine_sampling = options.sampling_on == "engine";
    open.precision = options.precision.precision;
    open.allow_weight_rounding = options.precision.allow_weight_rounding;
    EngineSession session(std::move(plugin), open);
    report_weight_rounding(std::cerr, "serve", session);
    return serve_http(session, *text, options, model_name, std::move(keys), stop_signals);
  } catch (const EngineError& e) {
    std::cerr << kCommand << ": " << name << " could not open " << weights.model_dir() << " ("
              << status_name(e.code) << "): " << e.what() << "\n";
    return exit_code_for(e);
  } catch (const std::exception& e) {
    // The listener could not bind, or a thread could not start.
    std::cerr << kCommand << ": " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace

int run_serve(const HostPaths& paths, const ServeOptions& options) {
  if (options.list_backends) return list_backends(paths);
  std::optional<ServeWeights> weights;
  try {
    weights.emplace(options);
  } catch (const WeightsRefused& refused) {
    for (const std::string& line : refused.lines) std::cerr << kCommand << ": " << line << "\n";
    return refused.exit_code;
  }
  const sigset_t stop_signals = block_stop_signals();
  std::unique_ptr<loader::LoadedPlugin> plugin;
  try {
    plugin = choose_and_load(paths, options.backend, options.allow_oracle);
  } catch (const ChoiceRefused& e) {
    std::cerr << kCommand << ": " << e.what() << "\n";
    return kExitRefused;
  }
  return open_and_serve(std::move(plugin), options, *weights, stop_signals);
}

}  // namespace algenta::host
