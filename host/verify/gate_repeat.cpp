// The repeat gate: the same generate run in fresh processes must give the
// same tokens and bit-identical logits. Fresh processes catch what one
// process cannot: uninitialised memory, address-dependent order, autotuning.
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "verify/child_process.hpp"
#include "files/bounded_read.hpp"
#include "files/file_caps.hpp"
#include "manifest/crypto.hpp"
#include "verify/seeded_prompt.hpp"
#include "verify/verify_gates.hpp"

namespace algenta::host {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

// The running host, whatever it was started as: the children are exactly it.
constexpr const char* kSelf = "/proc/self/exe";

// A private directory for the logits files, removed afterwards.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string name = (fs::temp_directory_path() / "algenta-verify-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) {
      throw ChildError("cannot create a scratch directory under " +
                       fs::temp_directory_path().string());
    }
    path_ = name;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string join_ids(const std::vector<std::int32_t>& ids) {
  std::string text;
  for (const std::int32_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
  return text;
}

// generate's stdout line as ids; empty when it is not one.
std::vector<std::int32_t> parse_ids(const std::string& line) {
  std::vector<std::int32_t> ids;
  std::istringstream in(line);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      ids.push_back(static_cast<std::int32_t>(std::stol(item)));
    } catch (const std::exception&) {
      return {};
    }
  }
  return ids;
}


std::string last_line(const std::string& text) {
  std::string trimmed = text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
  const std::size_t newline = trimmed.rfind('\n');
  return newline == std::string::npos ? trimmed : trimmed.substr(newline + 1);
}

struct RepeatRun {
  int exit_code = 0;
  std::string tokens;  // generate's stdout line: comma-separated ids
  std::string logits_sha256;
  std::string failure;  // why the process did not finish, when it did not
  double seconds = 0.0;
};

RepeatRun run_once(const RepeatSetup& setup, const std::string& prompt_ids, const fs::path& scratch,
                   std::size_t index) {
  const auto start = Clock::now();
  const fs::path logits = scratch / ("run" + std::to_string(index) + ".safetensors");
  std::vector<std::string> command = {
      kSelf, "--plugins-root", setup.paths.plugins_root.string(), "--keyring",
      setup.paths.keyring_dir.string(), "--state-file", setup.paths.state_file.string(),
      "generate", "--model", setup.model_dir, "--plugin", setup.plugin_name, "--prompt-ids",
      prompt_ids, "--max-tokens", std::to_string(kRepeatTokens), "--logits", logits.string(),
      "--precision", setup.precision.precision};
  if (setup.precision.allow_weight_rounding) command.push_back("--allow-weight-rounding");
  const ChildResult child = run_child(command, scratch);
  RepeatRun run;
  run.exit_code = child.exit_code;
  run.tokens = last_line(child.out);
  if (child.exit_code != 0) {
    run.failure = "exited with " + std::to_string(child.exit_code) + ": " + last_line(child.err);
  } else {
    try {
      run.logits_sha256 = manifest::sha256_hex(files::read_bounded(logits, files::kLogitsFileCap));
    } catch (const files::FileReadError& error) {
      run.failure = error.kind == files::FileReadError::Kind::missing
                        ? "wrote no logits file"
                        : std::string("wrote an unusable logits file: ") + error.what();
    }
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

}  // namespace

GateResult run_repeat_gate(const RepeatSetup& setup) {
  const auto start = Clock::now();
  // Shorter when the context is small, so every generated token fits.
  const std::size_t prompt_length =
      setup.context > kRepeatTokens
          ? std::min(kRepeatPromptLength, setup.context - kRepeatTokens + 1)
          : 1;
  const std::vector<std::int32_t> prompt = seeded_prompt(kRepeatSeed, prompt_length, setup.vocab);
  const std::string prompt_ids = join_ids(prompt);
  const ScratchDirectory scratch;

  std::vector<RepeatRun> runs;
  for (std::size_t i = 0; i < kRepeatRuns; ++i)
    runs.push_back(run_once(setup, prompt_ids, scratch.path(), i));

  const RepeatRun& first = runs.front();
  std::size_t matching = 0;
  std::vector<std::string> differences;
  nlohmann::json runs_json = nlohmann::json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RepeatRun& run = runs[i];
    const std::string label = "run " + std::to_string(i + 1);
    if (!run.failure.empty()) {
      differences.push_back(label + " " + run.failure);
    } else if (!first.failure.empty()) {
      differences.push_back(label + " has nothing to match: run 1 failed");
    } else if (run.tokens != first.tokens) {
      differences.push_back(label + ": tokens differ from run 1");
    } else if (run.logits_sha256 != first.logits_sha256) {
      differences.push_back(label + ": logits differ from run 1 (sha256 " +
                            run.logits_sha256.substr(0, 12) + "... vs " +
                            first.logits_sha256.substr(0, 12) + "...)");
    } else {
      ++matching;
    }
    runs_json.push_back({{"exit_code", run.exit_code},
                         {"tokens", parse_ids(run.tokens)},
                         {"logits_sha256", run.logits_sha256},
                         {"seconds", run.seconds}});
  }

  CheckResult check;
  check.check = std::to_string(kRepeatRuns) + " processes";
  check.verdict = matching == kRepeatRuns ? Verdict::pass : Verdict::fail;
  check.details = std::to_string(matching) + "/" + std::to_string(kRepeatRuns) +
                  " runs match the first (" + std::to_string(prompt_length) + "-token prompt, " +
                  std::to_string(kRepeatTokens) + " tokens";
  if (first.failure.empty())
    check.details += ", logits sha256 " + first.logits_sha256.substr(0, 12) + "...";
  check.details += ")";
  for (const std::string& difference : differences) check.details += "; " + difference;
  check.data = {{"prompt_length", prompt_length},
                {"seed", kRepeatSeed},
                {"tokens", kRepeatTokens},
                {"matching", matching},
                {"runs", runs_json}};
  check.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  return single_check_gate("repeat", std::move(check));
}

}  // namespace algenta::host
