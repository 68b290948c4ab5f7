// `algenta-host generate`: the direct way to run any engine on token ids.
// Greedy continuation of a prompt; prints the new ids, optionally writes the
// logits of every prompt position and every generated step.
#include <chrono>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "engine/engine_session.hpp"
#include "cli/logits_file.hpp"
#include "engine/plugin_choice.hpp"
#include "engine/plugin_report.hpp"

namespace algenta::host {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int generate(const HostPaths& paths, const GenerateOptions& options) {
  if (const std::string problem = unprepared_checkpoint(options.model_dir); !problem.empty()) {
    std::cerr << "algenta-host generate: " << problem << "\n";
    return kExitUsage;
  }
  std::unique_ptr<loader::LoadedPlugin> plugin;
  try {
    // Naming a plugin is asking for it: an oracle named here may run.
    plugin = choose_and_load(paths, options.backend, options.backend != "auto");
  } catch (const ChoiceRefused& e) {
    std::cerr << "algenta-host generate: " << e.what() << "\n";
    return kExitRefused;
  }
  EngineSession session(std::move(plugin),
                        {options.model_dir, options.max_context, options.precision.precision,
                         options.precision.allow_weight_rounding});
  report_weight_rounding(std::cerr, "generate", session);
  const bool keep_logits = !options.logits_file.empty();
  const AlgentaLogitsRequest decode_logits = keep_logits ? ALGENTA_LOGITS_LAST : ALGENTA_LOGITS_NONE;

  const auto prefill_start = Clock::now();
  StepResult step = session.step({{1, options.prompt_ids, 0,
                                   keep_logits ? ALGENTA_LOGITS_ALL : ALGENTA_LOGITS_NONE}});
  const double prefill_seconds = seconds_since(prefill_start);
  std::vector<float> logits = std::move(step.logits);
  std::vector<std::int32_t> generated = {step.next_tokens[0]};

  const auto decode_start = Clock::now();
  while (generated.size() < options.max_tokens) {
    const auto position = static_cast<std::uint32_t>(options.prompt_ids.size() + generated.size() - 1);
    step = session.step({{1, {generated.back()}, position, decode_logits}});
    logits.insert(logits.end(), step.logits.begin(), step.logits.end());
    generated.push_back(step.next_tokens[0]);
  }
  const double decode_seconds = seconds_since(decode_start);

  std::string ids;
  for (std::int32_t id : generated) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  std::cout << ids << "\n";
  std::cerr << "prefill: " << options.prompt_ids.size() << " tokens in " << prefill_seconds
            << " s; decode: " << generated.size() - 1 << " tokens in " << decode_seconds << " s";
  if (generated.size() > 1) std::cerr << " (" << (generated.size() - 1) / decode_seconds << " tokens/s)";
  std::cerr << "\n";
  if (keep_logits) {
    // Rows: every prompt position, then each decode step's input position.
    write_logits_safetensors(options.logits_file, logits, logits.size() / session.vocab_size(),
                             session.vocab_size());
  }
  return kExitOk;
}

}  // namespace

int run_generate(const HostPaths& paths, const GenerateOptions& options) {
  if (options.prompt_ids.empty() || options.max_tokens == 0) {
    std::cerr << "algenta-host generate: --prompt-ids needs at least one id and --max-tokens at "
                 "least 1\n";
    return kExitUsage;
  }
  try {
    return generate(paths, options);
  } catch (const EngineError& e) {
    std::cerr << "algenta-host generate: engine refused (" << status_name(e.code) << "): "
              << e.what() << "\n";
    return exit_code_for(e);
  } catch (const std::exception& e) {
    std::cerr << "algenta-host generate: " << e.what() << "\n";
    return kExitEngine;
  }
}

}  // namespace algenta::host
