#include "verify/verify_result.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace algenta::host {

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::pass:
      return "PASS";
    case Verdict::fail:
      return "FAIL";
    case Verdict::not_run:
      return "NOT RUN";
  }
  return "NOT RUN";
}

Verdict GateResult::verdict() const {
  if (!not_run_reason.empty() || checks.empty()) return Verdict::not_run;
  const bool any_failed = std::any_of(checks.begin(), checks.end(), [](const CheckResult& c) {
    return c.verdict != Verdict::pass;
  });
  return any_failed ? Verdict::fail : Verdict::pass;
}

GateResult gate_not_run(std::string gate, std::string reason, std::string how_to_run) {
  GateResult result;
  result.gate = std::move(gate);
  result.not_run_reason = std::move(reason);
  result.how_to_run = std::move(how_to_run);
  return result;
}

bool VerifyRun::passed() const {
  return stopped_by.empty() && !gates.empty() &&
         std::all_of(gates.begin(), gates.end(),
                     [](const GateResult& g) { return g.verdict() == Verdict::pass; });
}

nlohmann::json to_json(const VerifyRun& run, int exit_code) {
  using nlohmann::json;
  json gates = json::array();
  for (const GateResult& gate : run.gates) {
    json checks = json::array();
    for (const CheckResult& check : gate.checks) {
      json item = {{"check", check.check},
                   {"verdict", verdict_name(check.verdict)},
                   {"details", check.details},
                   {"seconds", check.seconds}};
      item.update(check.data);
      checks.push_back(std::move(item));
    }
    json item = {{"gate", gate.gate},
                 {"verdict", verdict_name(gate.verdict())},
                 {"seconds", gate.seconds},
                 {"checks", std::move(checks)}};
    item.update(gate.data);
    if (!gate.not_run_reason.empty()) item["not_run_reason"] = gate.not_run_reason;
    if (!gate.how_to_run.empty()) item["how_to_run"] = gate.how_to_run;
    gates.push_back(std::move(item));
  }
  json out = {{"host_version", run.host_version},
              {"plugin",
               {{"name", run.plugin_name},
                {"sha256", run.plugin_digest},
                {"target", run.plugin_target},
                {"bundle", run.plugin_bundle},
                {"precision", run.precision},
                {"weight_rounding", run.weight_rounding}}},
              {"reference", {{"name", run.reference_name}, {"sha256", run.reference_digest}}},
              {"model_dir", run.model_dir},
              {"started", run.started},
              {"finished", run.finished},
              {"seconds", run.seconds},
              {"passed", run.passed()},
              {"exit_code", exit_code},
              {"gates", std::move(gates)}};
  if (!run.stopped_by.empty()) out["stopped_by"] = run.stopped_by;
  return out;
}

std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

void report_progress(const std::string& gate, const CheckResult& check) {
  std::cerr << "verify: " << gate << " " << check.check << ": " << verdict_name(check.verdict)
            << " (" << short_number(check.seconds) << " s)\n";
}

GateResult single_check_gate(const std::string& gate_name, CheckResult check) {
  GateResult gate;
  gate.gate = gate_name;
  gate.seconds = check.seconds;
  gate.checks.push_back(std::move(check));
  report_progress(gate.gate, gate.checks.back());
  return gate;
}

}  // namespace algenta::host
