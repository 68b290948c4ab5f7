// `algenta-host bench`: prefill and decode timings per prompt length and
// generated-token count on one engine, as a client of the ABI sees them,
// next to the device's plain read bandwidth. Only builds that passed verify
// under the policy timed are benchmarked (the oracle only when named with
// --allow-oracle). The pieces live in host/bench/; this file wires them in
// the order a cold start needs: weights, plugin, engine, runs, then the
// stream tool once the engine has given the device back.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "bench/bench_arguments.hpp"
#include "bench/bench_report.hpp"
#include "bench/cell_summary.hpp"
#include "bench/cells.hpp"
#include "bench/decode_bytes.hpp"
#include "bench/host_info.hpp"
#include "bench/process_start.hpp"
#include "bench/stream_bandwidth.hpp"
#include "bench/verified_build.hpp"
#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/resident_reader.hpp"
#include "cli/checkpoint_probe.hpp"
#include "cli/commands.hpp"
#include "cli/synthetic_weights.hpp"
#include "engine/engine_session.hpp"
#include "engine/plugin_catalog.hpp"
#include "engine/plugin_choice.hpp"
#include "engine/plugin_report.hpp"
#include "facts/config_parse.hpp"
#include "facts/facts_error.hpp"
#include "facts/json_document.hpp"
#include "manifest/manifest.hpp"

namespace algenta::host {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
using namespace bench;
using synthetic::SyntheticWeights;

constexpr const char* kCommand = "algenta-host bench: ";
// Manifest spellings (core/loader/selection.cpp).
constexpr const char* kOracleRole = "oracle";
constexpr const char* kCpuTarget = "cpu";

int fail(int code, const std::vector<std::string>& lines) {
  for (const std::string& line : lines) std::cerr << kCommand << line << "\n";
  return code;
}

// The model's config.json as text and the name to report it under.
struct ConfigSource {
  std::string text;
  std::string name;
};

ConfigSource read_config(const BenchOptions& options) {
  if (!options.model_dir.empty()) {
    return {read_checkpoint_config(options.model_dir),
            (fs::path(options.model_dir) / "config.json").string()};
  }
  return {read_config_flag(options.config_file), options.config_file};
}

// The command that would make the missing verify record.
std::string verify_command(const HostPaths& paths, const BenchOptions& options,
                           const std::string& plugin) {
  std::string command = "algenta-host";
  if (paths.state_file != default_host_paths().state_file) {
    command += " --state-file " + paths.state_file.string();
  }
  command += " verify --model " +
             (options.model_dir.empty() ? std::string("<a prepared checkpoint of this model>")
                                        : options.model_dir) +
             " --plugin " + plugin + " --precision " + options.precision.precision +
             " --transformers-reference <reference.json>";
  return command;
}

nlohmann::json record_json(const VerificationRecord& record) {
  return {{"required", true},
          {"record",
           {{"precision", record.precision},
            {"passed", record.passed},
            {"gates", record.gates},
            {"model_dir", record.model_dir},
            {"time", record.time},
            {"host_version", record.host_version}}}};
}

ByteModel byte_model_for(const facts::ModelFacts& model, const PolicyElementBytes& policy,
                         checkpoint::Dtype prepared, const std::string& precision) {
  ByteModel m;
  m.weight_element_bytes = policy.weights != 0
                               ? policy.weights
                               : static_cast<unsigned>(checkpoint::dtype_element_size(prepared));
  m.kv_element_bytes = policy.kv;
  if (m.kv_element_bytes == 0) {
    m.reason = "the KV cache element size of precision " + precision + " is not known to bench";
    return m;
  }
  m.bytes = decode_bytes_of(model, m.weight_element_bytes, m.kv_element_bytes);
  return m;
}

int benchmark(const HostPaths& paths, const BenchOptions& options) {
  const auto started = Clock::now();
  const std::optional<Clock::time_point> process_start = process_start_time();
  BenchReport report;
  report.started = manifest::format_utc_timestamp(unix_now());
  report.precision = options.precision.precision;

  const ParsedArguments parsed = parse_bench_arguments(options);
  if (!parsed.errors.empty()) return fail(kExitUsage, parsed.errors);
  const BenchArguments& arguments = parsed.arguments;
  report.arguments = arguments;
  if (!options.model_dir.empty()) {
    if (const std::string problem = unprepared_checkpoint(options.model_dir); !problem.empty()) {
      return fail(kExitUsage, {problem});
    }
  }

  // The model, from its config alone: nothing is loaded before the flags fit it.
  ConfigSource config;
  try {
    config = read_config(options);
    report.model = facts::parse_model_facts(config.text, config.name);
  } catch (const std::invalid_argument& e) {
    return fail(kExitUsage, {e.what()});
  } catch (const facts::FactsError& e) {
    return fail(kExitUsage, {e.what()});
  } catch (const checkpoint::CheckpointError& e) {
    return fail(kExitUsage, {e.what()});
  }
  const facts::ModelFacts& model = report.model;
  if (const auto refusals = unconvertible_model(model); !refusals.empty()) {
    std::vector<std::string> lines;
    for (const facts::Refusal& r : refusals) lines.push_back("refused: " + r.message);
    return fail(kExitRefused, lines);
  }
  if (auto errors =
          context_errors(arguments, static_cast<std::size_t>(model.max_position_embeddings),
                         "the model (max_position_embeddings " +
                             std::to_string(model.max_position_embeddings) + ")");
      !errors.empty()) {
    return fail(kExitUsage, errors);
  }
  std::optional<SyntheticWeights> seeded;
  if (arguments.synthetic_seed) {
    try {
      seeded = synthetic::synthetic_weights_for(model, config.text, config.name,
                                                *arguments.synthetic_seed);
    } catch (const std::invalid_argument& e) {
      return fail(kExitUsage, {e.what()});
    }
  }

  // The plugin: chosen, cleared by its verify record, then loaded.
  const Catalog catalog = build_logged_catalog(paths, unix_now());
  loader::Candidate chosen;
  std::unique_ptr<loader::LoadedPlugin> plugin;
  try {
    chosen = choose_plugin(catalog, options.backend, options.allow_oracle);
  } catch (const ChoiceRefused& e) {
    return fail(kExitRefused, {e.what()});
  }
  report.plugin = {chosen.entry.name, chosen.entry.sha256, chosen.entry.target, chosen.entry.role,
                   chosen.bundle};
  if (chosen.entry.role == kOracleRole) {
    const std::string why = chosen.entry.name +
                            " is the verification oracle, benchmarked as asked with "
                            "--allow-oracle; the reference needs no verify record";
    std::cerr << "bench: " << why << "\n";
    report.verification = {{"required", false}, {"why", why}};
  } else {
    const BuildVerification cleared = check_verified_build(
        verification_file_beside(paths.state_file), chosen.entry.name, chosen.entry.sha256,
        options.precision.precision, verify_command(paths, options, chosen.entry.name));
    if (!cleared.passing) return fail(kExitRefused, {"refused: " + cleared.refusal});
    report.verification = record_json(*cleared.passing);
  }
  try {
    plugin = load_chosen_plugin(catalog, chosen);
  } catch (const ChoiceRefused& e) {
    return fail(kExitRefused, {e.what()});
  }
  PolicyElementBytes policy_bytes;
  try {
    policy_bytes = policy_element_bytes(precision_policy(*plugin, options.precision.precision));
  } catch (const EngineError&) {
    return fail(kExitUsage, {"--precision " + options.precision.precision + ": " +
                             chosen.entry.name + " declares " + precision_names(*plugin)});
  }

  // The weights: the prepared checkpoint, or one made now in scratch space.
  std::optional<SyntheticCheckpoint> made;
  std::string model_dir = options.model_dir;
  if (seeded) {
    try {
      made.emplace("bench", config.text, model, *seeded);
      model_dir = made->dir().string();
    } catch (const synthetic::ScratchError& e) {
      return fail(kExitUsage, {e.what()});
    }
    report.weights = {{"source", "synthetic"},
                      {"seed", seeded->seed},
                      {"config", config.name},
                      {"initializer_range", seeded->init_std},
                      {"norm_weight_std", synthetic::kNormWeightStd},
                      {"in_memory", made->in_memory()}};
  } else {
    report.weights = {{"source", "model"},
                      {"model_dir", fs::absolute(model_dir).lexically_normal().string()}};
  }
  const checkpoint::Dtype prepared_dtype =
      checkpoint::ResidentCheckpoint::open(model_dir, false).dtype();
  report.weight_dtype = std::string(*checkpoint::resident_dtype_name(prepared_dtype));
  report.byte_model = byte_model_for(model, policy_bytes, prepared_dtype, report.precision);

  // The engine and the runs. Closed before the stream tool runs, so that the
  // tool has the device to itself.
  CellsResult measured;
  {
    // Opened for what the cells need (the longest prompt and generation,
    // the highest concurrency), so that its KV cache is what they use and
    // the peak memory is the model's, not 90% of the device.
    const CellNeeds needs = cell_needs(arguments);
    EngineOpenOptions open{model_dir, static_cast<std::uint32_t>(needs.context),
                           options.precision.precision, options.precision.allow_weight_rounding};
    open.max_sequences = static_cast<std::uint32_t>(needs.sequences);
    EngineSession session(std::move(plugin), open);
    report_weight_rounding(std::cerr, "bench", session);
    report.served_context = session.max_context();
    const MemoryReport memory = session.memory_report();
    report.engine_memory = {memory.weight_bytes, memory.kv_cache_bytes, memory.workspace_bytes,
                            open.max_sequences};
    if (auto errors = context_errors(
            arguments, session.max_context(),
            chosen.entry.name + " (serving " + std::to_string(session.max_context()) + " tokens)");
        !errors.empty()) {
      return fail(kExitUsage, errors);
    }
    measured = run_cells(session, arguments, std::cerr);
  }
  report.peak_device_bytes = measured.device.bytes();

  if (seeded) {
    report.cold_start.note =
        "not measured: with --synthetic-weights the checkpoint is made in "
        "this process, so its first token is no cold start (use --model)";
  } else if (!process_start) {
    report.cold_start.note = "not measured: the process start time could not be read";
  } else {
    report.cold_start.seconds =
        std::chrono::duration<double>(measured.first_token_at - *process_start).count();
    report.cold_start.note = "measured once: from process start to the first token of the first " +
                             std::string(arguments.warmup > 0 ? "(warm-up) " : "") +
                             "run, including plugin verification, engine open and weight upload";
  }

  if (chosen.entry.target == kCpuTarget) {
    report.bandwidth = stream_not_available(
        chosen.entry.name + " runs on the CPU; the stream kernel measures GPU memory");
  } else {
    std::cerr << "bench: measuring the stream read bandwidth\n";
    report.bandwidth = measure_stream_bandwidth(stream_tool_path(), 0);
  }

  const DecodeBytes* bytes = report.byte_model.bytes ? &*report.byte_model.bytes : nullptr;
  for (const CellResult& cell : measured.cells) {
    report.cells.push_back(summarize(cell, bytes, report.bandwidth));
  }
  report.host = host_info();
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  print_table(std::cout, report);
  if (!options.json_file.empty()) {
    std::ofstream out(options.json_file, std::ios::binary | std::ios::trunc);
    out << to_json(report).dump(2) << "\n";
    if (!out.flush()) return fail(kExitUsage, {"cannot write --json " + options.json_file});
  }
  return kExitOk;
}

}  // namespace

int run_bench(const HostPaths& paths, const BenchOptions& options) {
  try {
    return benchmark(paths, options);
  } catch (const EngineError& e) {
    std::cerr << kCommand << "engine " << (exit_code_for(e) == kExitRefused ? "refused" : "failed")
              << " (" << status_name(e.code) << "): " << e.what() << "\n";
    return exit_code_for(e);
  } catch (const checkpoint::CheckpointError& e) {
    std::cerr << kCommand << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << kCommand << e.what() << "\n";
    return kExitEngine;
  }
}

}  // namespace algenta::host
