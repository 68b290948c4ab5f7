#include "verify/difference_percentiles.hpp"

#include <algorithm>
#include <cmath>

#include "verify/verify_result.hpp"

namespace algenta::host {
namespace {

float nearest_rank(const std::vector<float>& sorted, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

Percentiles percentiles(std::vector<float> values) {
  Percentiles result;
  result.count = values.size();
  if (values.empty()) return result;
  std::sort(values.begin(), values.end());
  result.p50 = nearest_rank(values, 0.5);
  result.p99 = nearest_rank(values, 0.99);
  result.p999 = nearest_rank(values, 0.999);
  result.max = values.back();
  return result;
}

std::string describe(const Percentiles& p) {
  return "p50 " + short_number(p.p50) + ", p99 " + short_number(p.p99) + ", p99.9 " +
         short_number(p.p999) + ", max " + short_number(p.max);
}

nlohmann::json to_json(const Percentiles& p) {
  return {{"p50", p.p50}, {"p99", p.p99}, {"p99.9", p.p999}, {"max", p.max}};
}

}  // namespace algenta::host
