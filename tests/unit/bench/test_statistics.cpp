// Medians, ranges and percentiles as bench reports them.
#include <catch2/catch.hpp>

#include "bench/run_figures.hpp"
#include "bench/statistics.hpp"

using namespace algenta::host::bench;

TEST_CASE("spread: median of odd and even counts, min and max", "[bench]") {
  const Spread odd = spread_of({5.0, 1.0, 3.0});
  CHECK(odd.median == 3.0);
  CHECK(odd.min == 1.0);
  CHECK(odd.max == 5.0);
  const Spread even = spread_of({4.0, 1.0, 3.0, 2.0});
  CHECK(even.median == 2.5);
  CHECK(spread_of({7.0}).median == 7.0);
  CHECK_THROWS_AS(spread_of({}), std::invalid_argument);
}

TEST_CASE("percentile: nearest rank", "[bench]") {
  CHECK(percentile({1, 2, 3, 4}, 50) == 2);
  CHECK(percentile({4, 3, 2, 1}, 100) == 4);
  CHECK(percentile({10}, 95) == 10);
  std::vector<double> twenty;
  for (int i = 1; i <= 20; ++i) twenty.push_back(i);
  CHECK(percentile(twenty, 95) == 19);
  CHECK(percentile(twenty, 50) == 10);
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  CHECK(percentile(hundred, 95) == 95);
  CHECK(percentile(hundred, 1) == 1);
  CHECK_THROWS_AS(percentile({}, 50), std::invalid_argument);
  CHECK_THROWS_AS(percentile({1}, 0), std::invalid_argument);
  CHECK_THROWS_AS(percentile({1}, 101), std::invalid_argument);
}

TEST_CASE("run figures: TTFT, prefill and decode rates, inter-token gaps", "[bench]") {
  RunTiming run;
  run.prompt_tokens = 100;
  // First token at 0.5 s, then gaps 0.1, 0.1, 0.3 (4 tokens, 3 decode steps).
  run.token_seconds = {0.5, 0.6, 0.7, 1.0};
  const RunFigures f = figures_of(run);
  CHECK(f.ttft_s == 0.5);
  CHECK(f.prefill_tokens_per_s == Approx(200.0));
  CHECK(f.decode_tokens_per_s == Approx(3.0 / 0.5));
  CHECK(f.inter_token_p50_s == Approx(0.1));
  CHECK(f.inter_token_p95_s == Approx(0.3));

  run.token_seconds = {0.5};
  CHECK_THROWS_AS(figures_of(run), std::invalid_argument);
  run.token_seconds = {0.5, 0.6};
  run.prompt_tokens = 0;
  CHECK_THROWS_AS(figures_of(run), std::invalid_argument);
}
