#include "bench/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace algenta::host::bench {

Spread spread_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("spread_of: no values");
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
  return {median, values.front(), values.back()};
}

double percentile(std::vector<double> values, double percent) {
  if (values.empty()) throw std::invalid_argument("percentile: no values");
  if (!(percent > 0.0 && percent <= 100.0)) {
    throw std::invalid_argument("percentile: percent must be in (0, 100]");
  }
  std::sort(values.begin(), values.end());
  // percent * n first: exact for whole percents, so p95 of 20 values is rank 19.
  const double rank = std::ceil(percent * static_cast<double>(values.size()) / 100.0);
  const auto index = static_cast<std::size_t>(std::max(rank, 1.0)) - 1;
  return values[std::min(index, values.size() - 1)];
}

}  // namespace algenta::host::bench
