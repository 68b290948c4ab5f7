#include "bench/stream_bandwidth.hpp"

#include <stdlib.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "verify/child_process.hpp"

namespace algenta::host::bench {
namespace fs = std::filesystem;
namespace {

std::string last_line(const std::string& text) {
  std::size_t end = text.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return {};
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end + 1 - (start == std::string::npos ? 0 : start + 1));
}

bool is_count(const nlohmann::json& value) {
  return value.is_number_integer() && value.get<std::int64_t>() > 0;
}

}  // namespace

StreamBandwidth stream_not_available(std::string reason, std::string tool) {
  StreamBandwidth result;
  result.reason = std::move(reason);
  result.tool = std::move(tool);
  return result;
}

fs::path stream_tool_path() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return (error ? fs::current_path() : exe.parent_path()) / kStreamToolName;
}

StreamBandwidth parse_stream_output(const std::string& stdout_text) {
  const std::string line = last_line(stdout_text);
  if (line.empty()) return stream_not_available("the stream tool printed nothing");
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    return stream_not_available("the stream tool's last line is not JSON: " + line);
  }
  if (!value.is_object() || !value.contains("gbytes_per_s") || !value["gbytes_per_s"].is_number() ||
      !value.contains("bytes") || !is_count(value["bytes"]) || !value.contains("runs") ||
      !is_count(value["runs"])) {
    return stream_not_available(
        "the stream tool's last line is not {\"gbytes_per_s\": X, \"bytes\": N, \"runs\": R}: " +
        line);
  }
  const double rate = value["gbytes_per_s"].get<double>();
  if (!(rate > 0.0) || !std::isfinite(rate)) {
    return stream_not_available("the stream tool reported gbytes_per_s " +
                                value["gbytes_per_s"].dump() + ", not a positive number");
  }
  StreamBandwidth result;
  result.available = true;
  result.gbytes_per_s = rate;
  result.bytes = value["bytes"].get<std::uint64_t>();
  result.runs = value["runs"].get<std::uint64_t>();
  return result;
}

StreamBandwidth measure_stream_bandwidth(const fs::path& tool, int device) {
  std::error_code error;
  if (!fs::is_regular_file(tool, error)) {
    return stream_not_available(
        tool.string() + " is not there (it is built with -DALGENTA_CUDA=ON)", tool.string());
  }
  std::string scratch = (fs::temp_directory_path(error) / "algenta-stream-XXXXXX").string();
  if (error || ::mkdtemp(scratch.data()) == nullptr) {
    return stream_not_available("no temporary directory for the stream tool's output",
                                tool.string());
  }
  ChildResult child;
  try {
    child = run_child({tool.string(), "--device", std::to_string(device)}, scratch);
  } catch (const ChildError& e) {
    fs::remove_all(scratch, error);
    return stream_not_available(e.what(), tool.string());
  }
  fs::remove_all(scratch, error);
  if (child.exit_code != 0) {
    return stream_not_available(tool.string() + " exited with " + std::to_string(child.exit_code) +
                                    ": " + last_line(child.err),
                                tool.string());
  }
  StreamBandwidth result = parse_stream_output(child.out);
  result.tool = tool.string();
  return result;
}

}  // namespace algenta::host::bench
