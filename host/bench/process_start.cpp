#include "bench/process_start.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>

namespace algenta::host::bench {

std::optional<unsigned long long> stat_start_ticks(std::string_view line) {
  const std::size_t close = line.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  // After ") " comes field 3 (state); the start time is field 22.
  std::string_view rest = line.substr(close + 1);
  for (int field = 3; field <= 22; ++field) {
    const std::size_t begin = rest.find_first_not_of(' ');
    if (begin == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(begin);
    const std::size_t end = std::min(rest.find(' '), rest.size());
    if (field == 22) {
      unsigned long long ticks = 0;
      const auto [ptr, error] = std::from_chars(rest.data(), rest.data() + end, ticks);
      if (error != std::errc() || ptr != rest.data() + end) return std::nullopt;
      return ticks;
    }
    rest.remove_prefix(end);
  }
  return std::nullopt;
}

std::optional<std::chrono::steady_clock::time_point> process_start_time() {
  std::ifstream file("/proc/self/stat");
  const std::string line((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::optional<unsigned long long> ticks = stat_start_ticks(line);
  const long ticks_per_second = ::sysconf(_SC_CLK_TCK);
  timespec since_boot{};
  if (!ticks || ticks_per_second <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &since_boot) != 0) {
    return std::nullopt;
  }
  const auto now = std::chrono::steady_clock::now();
  const double alive = static_cast<double>(since_boot.tv_sec) + since_boot.tv_nsec * 1e-9 -
                       static_cast<double>(*ticks) / static_cast<double>(ticks_per_second);
  return now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(alive));
}

}  // namespace algenta::host::bench
