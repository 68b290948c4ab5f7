// The spread of a per-position measure (|logit difference|) as the
// bf16-oracle gate reports it: p50, p99, p99.9 and the largest.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace algenta::host {

struct Percentiles {
  float p50 = 0;
  float p99 = 0;
  float p999 = 0;
  float max = 0;
  std::size_t count = 0;  // values summarised
};

// Nearest rank: the p-quantile is the smallest value with at least
// ceil(p * n) values at or below it, so with fewer than 1,000 values p99.9
// is the largest. All zero for no values.
Percentiles percentiles(std::vector<float> values);

// "p50 a, p99 b, p99.9 c, max d"
std::string describe(const Percentiles& p);

// {"p50": a, "p99": b, "p99.9": c, "max": d}
nlohmann::json to_json(const Percentiles& p);

}  // namespace algenta::host
