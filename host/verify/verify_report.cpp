#include "verify/verify_report.hpp"

#include <algorithm>
#include <array>
#include <iomanip>
#include <string>
#include <vector>

namespace algenta::host {
namespace {

using Row = std::array<std::string, 4>;  // gate, check, result, details

std::vector<Row> table_rows(const VerifyRun& run) {
  std::vector<Row> rows = {{"GATE", "CHECK", "RESULT", "DETAILS"}};
  for (const GateResult& gate : run.gates) {
    if (gate.verdict() == Verdict::not_run) {
      std::string details =
          gate.not_run_reason.empty() ? "nothing was checked" : gate.not_run_reason;
      if (!gate.how_to_run.empty()) details += " (run it with " + gate.how_to_run + ")";
      rows.push_back({gate.gate, "-", verdict_name(Verdict::not_run), details});
      continue;
    }
    for (const CheckResult& check : gate.checks) {
      rows.push_back({gate.gate, check.check, verdict_name(check.verdict), check.details});
    }
  }
  return rows;
}

std::string gate_names(const VerifyRun& run, Verdict verdict, bool with_hint) {
  std::string names;
  for (const GateResult& gate : run.gates) {
    if (gate.verdict() != verdict) continue;
    names += (names.empty() ? "" : ", ") + gate.gate;
    if (with_hint && !gate.how_to_run.empty()) names += " (run it with " + gate.how_to_run + ")";
  }
  return names;
}

}  // namespace

void print_verify_table(std::ostream& out, const VerifyRun& run) {
  const std::vector<Row> rows = table_rows(run);
  std::array<std::size_t, 3> widths{};
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < widths.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < widths.size(); ++c) {
      out << std::left << std::setw(static_cast<int>(widths[c] + 2)) << row[c];
    }
    out << row[3] << "\n";
  }
}

void print_verify_summary(std::ostream& out, const VerifyRun& run) {
  out << "plugin " << run.plugin_name << " (sha256 " << run.plugin_digest << ", precision "
      << run.precision << ") on " << run.model_dir << ": ";
  if (!run.weight_rounding.empty()) {
    out << "\n  " << run.weight_rounding << "; the oracle gate compared against "
        << run.reference_name << " on the same rounded weights\n  ";
  }
  if (run.passed()) {
    out << "PASSED: every gate ran and passed\n";
    return;
  }
  out << "NOT VERIFIED\n";
  if (!run.stopped_by.empty()) out << "  stopped: " << run.stopped_by << "\n";
  const std::string failed = gate_names(run, Verdict::fail, false);
  const std::string not_run = gate_names(run, Verdict::not_run, true);
  if (!failed.empty()) out << "  failed: " << failed << "\n";
  if (!not_run.empty()) out << "  not run: " << not_run << "\n";
}

}  // namespace algenta::host
