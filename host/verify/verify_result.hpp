// What `algenta-host verify` found: per gate, one check per prompt (or per
// run), each PASS, FAIL or NOT RUN with a one-line detail for the table and
// the measured facts for --json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace algenta::host {

enum class Verdict { pass, fail, not_run };

// "PASS", "FAIL", "NOT RUN": the spelling of the table, --json and the record.
const char* verdict_name(Verdict verdict);

struct CheckResult {
  std::string check;  // what was checked, e.g. "L=64" or a prompt's name
  Verdict verdict = Verdict::not_run;
  std::string details;                             // one line for the table
  nlohmann::json data = nlohmann::json::object();  // every measured fact
  double seconds = 0.0;
};

struct GateResult {
  std::string gate;  // "oracle" or "bf16-oracle" | "repeat" | "concurrent" | "transformers"
  std::vector<CheckResult> checks;
  std::string not_run_reason;                      // set when the gate did not run
  std::string how_to_run;                          // the flag that would run it, when one would
  nlohmann::json data = nlohmann::json::object();  // facts about the whole gate
  double seconds = 0.0;

  // NOT RUN when the gate did not run or checked nothing; FAIL when any
  // check failed; PASS otherwise.
  Verdict verdict() const;
};

GateResult gate_not_run(std::string gate, std::string reason, std::string how_to_run = {});

// The whole run, as --json writes it.
struct VerifyRun {
  std::string host_version;
  std::string plugin_name;
  std::string plugin_digest;  // sha256 of the plugin file, from its signed manifest
  std::string plugin_target;
  std::string plugin_bundle;
  std::string precision;        // the policy the engine ran
  std::string weight_rounding;  // what consented rounding changed; empty when none
  std::string reference_name;
  std::string reference_digest;
  std::string model_dir;
  std::string started;   // RFC 3339 UTC
  std::string finished;  // RFC 3339 UTC
  double seconds = 0.0;
  std::string stopped_by;  // the engine failure that ended the run early, if any
  std::vector<GateResult> gates;

  // Every gate ran and passed, and nothing stopped the run.
  bool passed() const;
};

nlohmann::json to_json(const VerifyRun& run, int exit_code);

// A measured number as the table shows it: 4 significant digits.
std::string short_number(double value);

// One line on stderr as each check finishes, so a long run shows progress.
void report_progress(const std::string& gate, const CheckResult& check);

// A gate made of one check (repeat, concurrent), its progress reported.
GateResult single_check_gate(const std::string& gate, CheckResult check);

}  // namespace algenta::host
