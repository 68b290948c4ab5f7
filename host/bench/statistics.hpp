// The summaries bench reports: the median and range of a metric over runs,
// and percentiles of the gaps between tokens within one run.
#pragma once

#include <vector>

namespace algenta::host::bench {

struct Spread {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
};

// Median (the mean of the two middle values for an even count), min and
// max. Throws std::invalid_argument for no values.
Spread spread_of(std::vector<double> values);

// Nearest-rank percentile: the smallest value with at least `percent` % of
// the values at or below it (p50 of 1,2,3,4 is 2; p95 of 20 values is the
// 19th smallest). `percent` in (0, 100]; throws std::invalid_argument for
// no values or a percent outside that range.
double percentile(std::vector<double> values, double percent);

}  // namespace algenta::host::bench
