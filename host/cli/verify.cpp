// `algenta-host verify`: the correctness gates of one engine plugin on a
// prepared checkpoint (DESIGN.md, "Correctness gates"). The plugin under
// test and the cpu_oracle it is judged against are loaded side by side
// through the verified loader; the repeat gate starts fresh processes of
// this executable. The result is printed as a table, optionally written as
// JSON, and recorded against the plugin's digest for later commands.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/commands.hpp"
#include "engine/engine_session.hpp"
#include "manifest/manifest.hpp"
#include "engine/plugin_catalog.hpp"
#include "engine/plugin_choice.hpp"
#include "engine/plugin_report.hpp"
#include "verify/transformers_reference.hpp"
#include "verify/verification_record.hpp"
#include "verify/verify_gates.hpp"
#include "verify/verify_inputs.hpp"
#include "verify/verify_report.hpp"
#include "verify/verify_result.hpp"

#ifndef ALGENTA_HOST_VERSION
#define ALGENTA_HOST_VERSION "unknown"
#endif

namespace algenta::host {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

// The reference every plugin is judged against, loaded by name.
constexpr const char* kReferenceOracle = "cpu_oracle";
constexpr const char* kCommand = "algenta-host verify: ";

// The bundle directory a loaded plugin came from.
std::string bundle_of(const Catalog& catalog, const manifest::PluginEntry& entry) {
  for (const loader::Candidate& candidate : catalog.candidates) {
    if (candidate.entry == entry) return candidate.bundle;
  }
  return {};
}

// Opens the engine; on failure says why and gives the exit code, as
// generate does (exit_code_for).
std::optional<int> open_session(std::optional<EngineSession>& session,
                                std::unique_ptr<loader::LoadedPlugin> plugin,
                                const EngineOpenOptions& options) {
  const std::string name = plugin->entry().name;
  const std::string& model_dir = options.checkpoint_dir;
  try {
    session.emplace(std::move(plugin), options);
  } catch (const EngineError& e) {
    std::cerr << kCommand << name << " could not open " << model_dir << " (" << status_name(e.code)
              << "): " << e.what() << "\n";
    return exit_code_for(e);
  }
  return std::nullopt;
}

int refuse(const std::vector<std::string>& refusals) {
  for (const std::string& line : refusals) std::cerr << kCommand << line << "\n";
  return kExitRefused;
}

// Runs one in-process gate; an engine error ends the run: the gate is
// reported failed with the error, later gates are not run.
template <typename Body>
GateResult run_gate(VerifyRun& run, const std::string& name, Body&& body) {
  if (!run.stopped_by.empty()) {
    return gate_not_run(name, "not run: the engine failed in an earlier gate");
  }
  try {
    return body();
  } catch (const EngineError& e) {
    const std::string error =
        "engine error (" + std::string(status_name(e.code)) + "): " + e.what();
    run.stopped_by = name + " gate: " + error;
    GateResult failed;
    failed.gate = name;
    CheckResult check;
    check.check = "engine";
    check.verdict = Verdict::fail;
    check.details = error;
    check.data = {{"status", status_name(e.code)}, {"message", e.what()}};
    failed.checks.push_back(std::move(check));
    return failed;
  }
}

bool write_json(const std::string& file, const VerifyRun& run, int exit_code) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << to_json(run, exit_code).dump(2) << "\n";
  if (!out.flush()) {
    std::cerr << kCommand << "cannot write --json " << file << "\n";
    return false;
  }
  return true;
}

bool record(const HostPaths& paths, const VerifyRun& run) {
  VerificationRecord entry;
  entry.digest = run.plugin_digest;
  entry.plugin = run.plugin_name;
  entry.precision = run.precision;
  entry.model_dir = run.model_dir;
  entry.passed = run.passed();
  for (const GateResult& gate : run.gates) entry.gates[gate.gate] = verdict_name(gate.verdict());
  entry.time = run.finished;
  entry.host_version = run.host_version;
  if (paths.state_file.empty()) {
    std::cerr << kCommand
              << "the result was not recorded: no --state-file, so no state directory\n";
    return true;
  }
  const fs::path file = verification_file_beside(paths.state_file);
  try {
    record_verification(file, entry);
  } catch (const VerificationRecordError& e) {
    std::cerr << kCommand << "the result could not be recorded: " << e.what() << "\n";
    return false;
  }
  std::cerr << kCommand << "recorded " << (entry.passed ? "passed" : "failed") << " for sha256 "
            << entry.digest << " under precision " << entry.precision << " in " << file.string()
            << "\n";
  return true;
}

int verify(const HostPaths& paths, const VerifyOptions& options) {
  const auto start = Clock::now();
  if (const std::string problem = unprepared_checkpoint(options.model_dir); !problem.empty()) {
    std::cerr << kCommand << problem << "\n";
    return kExitUsage;
  }
  ModelLimits limits;
  try {
    limits = read_model_limits(options.model_dir);
  } catch (const std::exception& e) {
    std::cerr << kCommand << e.what() << "\n";
    return kExitUsage;
  }
  std::optional<TransformersReference> reference;
  if (!options.transformers_reference.empty()) {
    try {
      reference = load_transformers_reference(options.transformers_reference);
    } catch (const ReferenceFileError& e) {
      std::cerr << kCommand << e.what() << "\n";
      return kExitUsage;
    }
    if (const auto mismatch = vocabulary_mismatch(*reference, limits.vocab)) {
      std::cerr << kCommand << *mismatch << "\n";
      return kExitUsage;
    }
  }
  const TransformersReference* reference_ptr = reference ? &*reference : nullptr;
  const std::string model_limit =
      "the model (max_position_embeddings " + std::to_string(limits.context) + ")";
  if (auto refusals = context_refusals(options, reference_ptr, limits.context, model_limit);
      !refusals.empty()) {
    return refuse(refusals);
  }

  std::unique_ptr<loader::LoadedPlugin> plugin;
  std::unique_ptr<loader::LoadedPlugin> oracle;
  const Catalog catalog = build_logged_catalog(paths, unix_now());
  try {
    plugin = choose_and_load(catalog, options.backend, options.allow_oracle);
  } catch (const ChoiceRefused& e) {
    std::cerr << kCommand << e.what() << "\n";
    return kExitRefused;
  }
  // Before the repeat gate starts processes that would each refuse it.
  try {
    precision_policy(*plugin, options.precision.precision);
  } catch (const EngineError& e) {
    std::cerr << kCommand << "--precision " << options.precision.precision << ": " << e.what()
              << "\n";
    return exit_code_for(e);
  }
  try {
    oracle = choose_and_load(catalog, kReferenceOracle, true);
  } catch (const ChoiceRefused& e) {
    std::cerr << kCommand << "the reference " << kReferenceOracle
              << " cannot be loaded: " << e.what() << "\n";
    return kExitRefused;
  }

  VerifyRun run;
  run.host_version = ALGENTA_HOST_VERSION;
  run.plugin_name = plugin->entry().name;
  run.plugin_digest = plugin->entry().sha256;
  run.plugin_target = plugin->entry().target;
  run.plugin_bundle = bundle_of(catalog, plugin->entry());
  run.reference_name = oracle->entry().name;
  run.reference_digest = oracle->entry().sha256;
  run.model_dir = fs::absolute(options.model_dir).lexically_normal().string();
  run.started = manifest::format_utc_timestamp(unix_now());

  // Before any engine opens here: the fresh processes get the device to
  // themselves (an engine sizes its KV cache from the free memory it sees).
  std::cerr << "verify: repeat: starting " << kRepeatRuns << " fresh processes of generate\n";
  GateResult repeat = run_repeat_gate(
      {paths, options.model_dir, run.plugin_name, options.precision, limits.vocab, limits.context});

  std::optional<EngineSession> plugin_session;
  std::optional<EngineSession> oracle_session;
  EngineOpenOptions plugin_options{options.model_dir, 0, options.precision.precision,
                                   options.precision.allow_weight_rounding};
  plugin_options.engine_sampling = true;  // an engine that draws is judged drawing
  if (const auto failed = open_session(plugin_session, std::move(plugin), plugin_options)) {
    return *failed;
  }
  // The oracle runs the weights the engine runs: rounded the same way when
  // the operator consented to rounding, exactly as stored otherwise.
  const WeightRounding& rounding = plugin_session->weight_rounding();
  if (const auto failed = open_session(
          oracle_session, std::move(oracle),
          {options.model_dir, 0, "exact", false, rounding.held})) {
    return *failed;
  }
  run.precision = options.precision.precision;
  run.weight_rounding = describe_weight_rounding(*plugin_session);
  if (!run.weight_rounding.empty()) {
    std::cerr << kCommand << run.weight_rounding << "; " << run.reference_name
              << " runs the same rounded weights\n";
  }
  if (plugin_session->vocab_size() != limits.vocab ||
      oracle_session->vocab_size() != limits.vocab) {
    std::cerr << kCommand
              << "the engines disagree with config.json on the vocabulary: " << run.plugin_name
              << " " << plugin_session->vocab_size() << ", " << run.reference_name << " "
              << oracle_session->vocab_size() << ", config.json " << limits.vocab << "\n";
    return kExitEngine;
  }
  for (const EngineSession* session : {&*plugin_session, &*oracle_session}) {
    const std::string who = session->plugin().entry().name + " (serving " +
                            std::to_string(session->max_context()) + " tokens)";
    if (auto refusals = context_refusals(options, reference_ptr, session->max_context(), who);
        !refusals.empty()) {
      return refuse(refusals);
    }
  }
  const std::size_t context =
      std::min(plugin_session->max_context(), oracle_session->max_context());

  // The exact policy must match the oracle token for token; bf16 cannot, and
  // is judged by its own gate instead.
  const bool bf16 = run.precision == "bf16";
  GateResult oracle_gate = run_gate(run, bf16 ? kBf16OracleGate : "oracle", [&] {
    return bf16 ? run_bf16_oracle_gate(*plugin_session, *oracle_session, options.lengths,
                                       options.tokens)
                : run_oracle_gate(*plugin_session, *oracle_session, options.lengths,
                                  options.tokens);
  });
  GateResult concurrent =
      run_gate(run, "concurrent", [&] { return run_concurrent_gate(*plugin_session, context); });
  GateResult transformers =
      reference ? run_gate(run, "transformers",
                           [&] { return run_transformers_gate(*plugin_session, *reference); })
                : gate_not_run("transformers", "no transformers reference file was given",
                               "--transformers-reference FILE");
  run.gates = {std::move(oracle_gate), std::move(repeat), std::move(concurrent),
               std::move(transformers)};
  // Only an engine that draws tokens itself has a sampler to judge; for the
  // others the host draws, with the pipeline its own tests pin.
  if (plugin_session->engine_samples()) {
    run.gates.push_back(run_gate(run, kSamplingGate,
                                 [&] { return run_sampling_gate(*plugin_session, context); }));
  }
  run.finished = manifest::format_utc_timestamp(unix_now());
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  const int verdict_code = !run.stopped_by.empty() ? kExitEngine
                           : run.passed()          ? kExitOk
                                                   : kExitGateFailed;
  print_verify_table(std::cout, run);
  std::cout << "\n";
  print_verify_summary(std::cout, run);
  bool kept = record(paths, run);
  if (!options.json_file.empty()) kept = write_json(options.json_file, run, verdict_code) && kept;
  return kept ? verdict_code : kExitUsage;
}

}  // namespace

int run_verify(const HostPaths& paths, const VerifyOptions& options) {
  if (options.lengths.empty()) {
    std::cerr << kCommand << "--lengths needs at least one prompt length\n";
    return kExitUsage;
  }
  try {
    return verify(paths, options);
  } catch (const EngineError& e) {
    std::cerr << kCommand << "engine failed (" << status_name(e.code) << "): " << e.what() << "\n";
    return kExitEngine;
  } catch (const std::exception& e) {
    std::cerr << kCommand << e.what() << "\n";
    return kExitEngine;
  }
}

}  // namespace algenta::host
