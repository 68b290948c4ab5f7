// Reading algenta-stream-bandwidth's result line; never a made-up number.
#include <catch2/catch.hpp>

#include "bench/process_start.hpp"
#include "bench/stream_bandwidth.hpp"

using namespace algenta::host::bench;
using Catch::Matchers::Contains;

TEST_CASE("stream output: the last line carries the bandwidth", "[bench]") {
  const StreamBandwidth b = parse_stream_output(
      "warming up\n{\"gbytes_per_s\": 4321.5, \"bytes\": 4294967296, \"runs\": 20, "
      "\"device\": \"H200\"}\n\n");
  REQUIRE(b.available);
  CHECK(b.gbytes_per_s == 4321.5);
  CHECK(b.bytes == 4294967296ull);
  CHECK(b.runs == 20);
}

TEST_CASE("stream output: anything else is not available, with the reason", "[bench]") {
  const auto reason = [](const std::string& text) {
    const StreamBandwidth b = parse_stream_output(text);
    CHECK_FALSE(b.available);
    CHECK(b.gbytes_per_s == 0.0);
    return b.reason;
  };
  CHECK_THAT(reason(""), Contains("printed nothing"));
  CHECK_THAT(reason("fast!\n"), Contains("not JSON: fast!"));
  CHECK_THAT(reason("{\"gbytes_per_s\": 1.0}"), Contains("\"bytes\": N"));
  CHECK_THAT(reason("{\"gbytes_per_s\": \"1\", \"bytes\": 1, \"runs\": 1}"), Contains("is not"));
  CHECK_THAT(reason("{\"gbytes_per_s\": 0, \"bytes\": 1, \"runs\": 1}"),
             Contains("gbytes_per_s 0, not a positive number"));
  CHECK_THAT(reason("{\"gbytes_per_s\": -5, \"bytes\": 1, \"runs\": 1}"), Contains("positive"));
  CHECK_THAT(reason("{\"gbytes_per_s\": 5, \"bytes\": 0, \"runs\": 1}"), Contains("is not"));
}

TEST_CASE("stream tool: a missing tool is said, not guessed", "[bench]") {
  const StreamBandwidth b = measure_stream_bandwidth("/nonexistent/algenta-stream-bandwidth", 0);
  CHECK_FALSE(b.available);
  CHECK_THAT(b.reason, Contains("/nonexistent/algenta-stream-bandwidth is not there"));
  CHECK(stream_tool_path().filename() == kStreamToolName);
}

TEST_CASE("process start: field 22 of /proc/<pid>/stat, after the command name", "[bench]") {
  // The command name may hold spaces and parentheses.
  const std::string line =
      "1234 (a b) c)) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 987654 1000 10";
  CHECK(stat_start_ticks(line) == 987654ull);
  CHECK_FALSE(stat_start_ticks("1234 (x) S 1 2").has_value());
  CHECK_FALSE(stat_start_ticks("no parenthesis").has_value());
  const auto start = process_start_time();
  REQUIRE(start.has_value());
  CHECK(*start <= std::chrono::steady_clock::now());
}
