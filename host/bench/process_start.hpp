// When this process started, on the steady clock: for cold start (process
// start to first token). Linux reports the start in clock ticks since boot
// (/proc/self/stat, field 22), so the result is good to one tick (10 ms at
// the usual 100 Hz), far below a cold start's seconds.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace algenta::host::bench {

// nullopt when /proc/self/stat cannot be read or parsed.
std::optional<std::chrono::steady_clock::time_point> process_start_time();

// The start time field of a /proc/<pid>/stat line, in clock ticks since boot;
// nullopt for a line without one. (The command name in field 2 may hold
// spaces and parentheses: fields are counted after its last ')'.)
std::optional<unsigned long long> stat_start_ticks(std::string_view stat_line);

}  // namespace algenta::host::bench
