// `algenta-host conform`: will this checkpoint run on that backend? Decided
// from config.json (and, with --probe, the safetensors headers) before any
// weights are converted or any GPU work is done.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/checkpoint_probe.hpp"
#include "cli/commands.hpp"
#include "facts/config_parse.hpp"
#include "facts/facts_json.hpp"
#include "manifest/crypto.hpp"
#include "cli/onboarded_registry.hpp"
#include "engine/plugin_declarations.hpp"
#include "engine/plugin_report.hpp"

namespace algenta::host {
namespace fs = std::filesystem;
namespace {

constexpr int kExitPendingProbe = 3;

struct Unusable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

nlohmann::json refusals_json(const std::vector<facts::Refusal>& refusals) {
  nlohmann::json out = nlohmann::json::array();
  for (const facts::Refusal& r : refusals) {
    out.push_back({{"fact", r.fact}, {"value", r.value}, {"allowed", r.allowed},
                   {"message", r.message}});
  }
  return out;
}

const char* verdict_name(int exit_code) {
  switch (exit_code) {
    case kExitOk: return "supported";
    case kExitPendingProbe: return "supported_pending_probe";
    case kExitRefused: return "refused";
  }
  return "unusable";
}

void print_refusals(const std::vector<facts::Refusal>& refusals) {
  for (const facts::Refusal& r : refusals) std::cout << "  refused: " << r.message << "\n";
}

// config.json's torch_dtype in the resident spelling, or empty.
std::string declared_weight_dtype(const facts::ModelFacts& model) {
  if (model.torch_dtype == "bfloat16") return "bf16";
  if (model.torch_dtype == "float16") return "f16";
  if (model.torch_dtype == "float32") return "f32";
  return {};
}

// Whether each precision policy of `plugin` runs weights of `dtype` exactly.
nlohmann::json weight_verdicts(const PluginDeclaration& plugin, const std::string& dtype) {
  nlohmann::json verdicts = nlohmann::json::array();
  for (const PrecisionDeclaration& policy : plugin.precisions) {
    const bool exact = std::find(policy.weight_dtypes.begin(), policy.weight_dtypes.end(),
                                 dtype) != policy.weight_dtypes.end();
    std::string holds;
    for (const std::string& d : policy.weight_dtypes) holds += (holds.empty() ? "" : "/") + d;
    const std::string text =
        exact ? "runs the " + dtype + " weights exactly"
              : "holds weights as " + holds + ": " + dtype +
                    " values that do not convert exactly are refused at open (prepare --dtype " +
                    policy.weight_dtypes.front() + " rounds once and reports it, or consent with "
                    "--allow-weight-rounding)";
    std::cout << "  precision " << policy.name << ": " << text << "\n";
    verdicts.push_back({{"precision", policy.name}, {"exact", exact}, {"detail", text}});
  }
  return verdicts;
}

void write_json(const std::string& file, const nlohmann::json& report) {
  if (file.empty()) return;
  std::ofstream out(file, std::ios::trunc);
  out << report.dump(2) << "\n";
  if (!out.flush()) throw Unusable("cannot write " + file);
}

int conform_checkpoint(const HostPaths& paths, const ConformOptions& options) {
  const fs::path dir = options.checkpoint_dir;
  std::string config_text;
  try {
    config_text = read_checkpoint_config(dir);
  } catch (const std::exception& e) {
    throw Unusable(e.what());
  }
  facts::ModelFacts model;
  try {
    model = facts::parse_model_facts(config_text, (dir / "config.json").string());
  } catch (const facts::FactsError& e) {
    throw Unusable(e.what());
  }

  const Catalog catalog = build_catalog(paths, unix_now());
  log_rejections(catalog.rejected);
  const std::vector<PluginDeclaration> plugins =
      load_declarations(catalog, loader::probe_gpus(), options.backend);

  nlohmann::json report = {{"checkpoint", fs::absolute(dir).lexically_normal().string()},
                           {"config_sha256", manifest::sha256_hex(config_text)},
                           {"facts", facts::facts_to_json(model)},
                           {"backends", nlohmann::json::array()}};
  std::cout << "conform " << dir.string() << " (" << facts::family_name(model.family) << ", "
            << model.architecture << ")\n";
  bool refused = false;
  for (const PluginDeclaration& plugin : plugins) {
    const std::vector<facts::Refusal> refusals = facts::check_facts(model, plugin.support);
    std::cout << plugin.candidate.entry.name << " (" << plugin.candidate.entry.target
              << "): " << (refusals.empty() ? "facts supported" : "refused") << "\n";
    print_refusals(refusals);
    refused = refused || !refusals.empty();
    report["backends"].push_back({{"plugin", plugin.candidate.entry.name},
                                  {"target", plugin.candidate.entry.target},
                                  {"refusals", refusals_json(refusals)}});
  }

  report["probe"] = {{"ran", options.probe}};
  std::string weight_dtype = declared_weight_dtype(model);
  std::string weight_dtype_source = "torch_dtype in config.json; --probe reads the stored dtype";
  if (options.probe) {
    TensorProbe probe;
    try {
      probe = probe_checkpoint_tensors(dir, model);
    } catch (const std::exception& e) {
      throw Unusable(e.what());
    }
    const facts::TensorCheck& check = probe.check;
    weight_dtype = probe.weight_dtype;
    weight_dtype_source = "the safetensors headers";
    std::cout << "tensor probe (headers only): " << check.stored_name.size()
              << " expected tensors found, " << check.ignored.size() << " ignored, "
              << check.refusals.size() << " refusals\n";
    print_refusals(check.refusals);
    for (const std::string& ignored : check.ignored) std::cout << "  ignored: " << ignored << "\n";
    refused = refused || !check.refusals.empty();
    report["probe"]["refusals"] = refusals_json(check.refusals);
    report["probe"]["ignored"] = check.ignored;
    report["probe"]["tensors_found"] = check.stored_name.size();
  }

  report["weights"] = {{"dtype", weight_dtype}, {"from", weight_dtype_source}};
  if (!weight_dtype.empty()) {
    std::cout << "weights: " << weight_dtype << " (from " << weight_dtype_source << ")\n";
    for (std::size_t i = 0; i < plugins.size(); ++i) {
      std::cout << plugins[i].candidate.entry.name << ":\n";
      report["backends"][i]["weights"] = weight_verdicts(plugins[i], weight_dtype);
    }
  } else {
    std::cout << "weights: dtype unknown (config.json names none; --probe reads it)\n";
  }

  const int exit_code = refused ? kExitRefused : options.probe ? kExitOk : kExitPendingProbe;
  report["verdict"] = verdict_name(exit_code);
  report["exit_code"] = exit_code;
  std::cout << "verdict: " << verdict_name(exit_code)
            << (exit_code == kExitPendingProbe ? " (run with --probe to inspect the tensors)" : "")
            << "\n";
  write_json(options.json_file, report);
  record_onboarded(onboarded_registry_path(paths.state_file), report["checkpoint"],
                   {{"verdict", report["verdict"]},
                    {"family", facts::family_name(model.family)},
                    {"architecture", model.architecture},
                    {"backend", options.backend},
                    {"config_sha256", report["config_sha256"]},
                    {"checked_at", unix_now()}});
  return exit_code;
}

void print_table(const HostPaths& paths, const std::string& backend) {
  const Catalog catalog = build_catalog(paths, unix_now());
  log_rejections(catalog.rejected);
  for (const PluginDeclaration& plugin :
       load_declarations(catalog, loader::probe_gpus(), backend)) {
    std::cout << plugin.candidate.entry.name << " (" << plugin.candidate.entry.role << ", target "
              << plugin.candidate.entry.target << ")\n";
    for (const std::string& family : plugin.support.families) {
      std::cout << "  family " << family << "\n";
      for (const facts::DeclaredRange& range : facts::ranges_for_family(plugin.support, family)) {
        std::cout << "    " << range.fact << ": " << facts::describe_allowed(range) << "\n";
      }
      std::string kernels;
      for (const KernelDeclaration& k : plugin.kernels) {
        if (k.families == "*" || ("," + k.families + ",").find("," + family + ",") != std::string::npos) {
          kernels += (kernels.empty() ? "" : ", ") + k.name;
        }
      }
      std::cout << "    kernels: " << (kernels.empty() ? "none declared" : kernels) << "\n";
    }
  }
  std::cout << "onboarded checkpoints:\n";
  const nlohmann::json onboarded = load_onboarded(onboarded_registry_path(paths.state_file));
  if (onboarded.empty()) std::cout << "  none yet (run conform DIR)\n";
  for (const auto& [checkpoint, entry] : onboarded.items()) {
    std::cout << "  " << checkpoint << ": " << entry.value("verdict", "?") << " ("
              << entry.value("family", "?") << ", backend " << entry.value("backend", "?") << ")\n";
  }
}

}  // namespace

int run_conform(const HostPaths& paths, const ConformOptions& options) {
  try {
    if (options.table) {
      print_table(paths, options.backend == "cuda" && options.backend_defaulted ? "all"
                                                                                : options.backend);
      return kExitOk;
    }
    if (options.checkpoint_dir.empty()) {
      std::cerr << "algenta-host conform: give a checkpoint directory, or --table\n";
      return kExitUsage;
    }
    return conform_checkpoint(paths, options);
  } catch (const Unusable& e) {
    std::cerr << "algenta-host conform: unusable input: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "algenta-host conform: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace algenta::host
