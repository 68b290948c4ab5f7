// bench's flags: each bad one named with its value and the allowed range.
#include <catch2/catch.hpp>

#include "bench/bench_arguments.hpp"

using namespace algenta::host;
using namespace algenta::host::bench;
using Catch::Matchers::Contains;

namespace {

BenchOptions with_model() {
  BenchOptions options;
  options.model_dir = "prepared";
  return options;
}

// The single error parse_bench_arguments gives for `options`.
std::string only_error(const BenchOptions& options) {
  const ParsedArguments parsed = parse_bench_arguments(options);
  REQUIRE(parsed.errors.size() == 1);
  return parsed.errors.front();
}

}  // namespace

TEST_CASE("bench arguments: the defaults parse", "[bench]") {
  const ParsedArguments parsed = parse_bench_arguments(with_model());
  CHECK(parsed.errors.empty());
  CHECK(parsed.arguments.prompt_lengths == std::vector<std::size_t>{256, 550, 1024, 4096});
  CHECK(parsed.arguments.generated == std::vector<std::size_t>{64, 256});
  CHECK(parsed.arguments.runs == 5);
  CHECK(parsed.arguments.warmup == 1);
  CHECK(parsed.arguments.concurrency == std::vector<std::size_t>{1});
  CHECK_FALSE(parsed.arguments.synthetic_seed.has_value());
}

TEST_CASE("bench arguments: weights come from exactly one place", "[bench]") {
  CHECK_THAT(only_error(BenchOptions{}),
             Contains("--model DIR") && Contains("--synthetic-weights"));
  BenchOptions both = with_model();
  both.synthetic_seed = "1";
  both.config_file = "config.json";
  CHECK_THAT(only_error(both), Contains("--model prepared and --synthetic-weights 1 exclude"));
  BenchOptions no_config;
  no_config.synthetic_seed = "1";
  CHECK_THAT(only_error(no_config), Contains("--synthetic-weights needs --config FILE"));
  BenchOptions stray_config = with_model();
  stray_config.config_file = "c.json";
  CHECK_THAT(only_error(stray_config), Contains("--config c.json is only for --synthetic-weights"));
  BenchOptions bad_seed;
  bad_seed.synthetic_seed = "-3";
  bad_seed.config_file = "c.json";
  CHECK_THAT(only_error(bad_seed),
             Contains("--synthetic-weights \"-3\"") && Contains("0..18446744073709551615"));
  BenchOptions good_seed;
  good_seed.synthetic_seed = "18446744073709551615";
  good_seed.config_file = "c.json";
  const ParsedArguments parsed = parse_bench_arguments(good_seed);
  CHECK(parsed.errors.empty());
  CHECK(parsed.arguments.synthetic_seed == 18446744073709551615ull);
}

TEST_CASE("bench arguments: lists name the flag, the item and the range", "[bench]") {
  BenchOptions options = with_model();
  options.shapes = "";
  CHECK_THAT(only_error(options), Contains("--shapes \"\": no values") && Contains("1..16777216"));
  options.shapes = "256,,1024";
  CHECK_THAT(only_error(options), Contains("--shapes \"256,,1024\": item 2 is empty"));
  options.shapes = "256,abc";
  CHECK_THAT(only_error(options), Contains("item 2 (\"abc\") is not a whole number") &&
                                      Contains("1..16777216 (prompt tokens)"));
  options.shapes = "0";
  CHECK_THAT(only_error(options), Contains("--shapes 0: outside 1..16777216"));
  options.shapes = "16777217";
  CHECK_THAT(only_error(options), Contains("--shapes 16777217: outside 1..16777216"));
  options.shapes = "8,8";
  CHECK_THAT(only_error(options), Contains("8 is given twice"));
  options.shapes = "8, 16";
  CHECK(parse_bench_arguments(options).arguments.prompt_lengths == std::vector<std::size_t>{8, 16});

  options = with_model();
  options.gen = "1";
  CHECK_THAT(only_error(options), Contains("--gen 1: outside 2..1048576"));
  options.gen = "4x";
  CHECK_THAT(only_error(options), Contains("--gen \"4x\": item 1 (\"4x\") is not a whole number"));
}

TEST_CASE("bench arguments: counts and concurrency", "[bench]") {
  BenchOptions options = with_model();
  options.runs = "0";
  CHECK_THAT(only_error(options), Contains("--runs 0: outside 1..10000 (timed runs per cell)"));
  options.runs = "five";
  CHECK_THAT(only_error(options),
             Contains("--runs \"five\": not a whole number; expected 1..10000"));
  options = with_model();
  options.warmup = "0";
  CHECK(parse_bench_arguments(options).errors.empty());
  options.warmup = "-1";
  CHECK_THAT(only_error(options),
             Contains("--warmup \"-1\": not a whole number; expected 0..10000"));
  options = with_model();
  options.concurrency = "1,8,32";
  const ParsedArguments parsed = parse_bench_arguments(options);
  CHECK(parsed.errors.empty());
  CHECK(parsed.arguments.concurrency == std::vector<std::size_t>{1, 8, 32});
  options.concurrency = "0";
  CHECK_THAT(only_error(options), Contains("--concurrency 0: outside 1..1024 (sequences decoded together)"));
  options.concurrency = "2,x";
  CHECK_THAT(only_error(options), Contains("--concurrency \"2,x\": item 2 (\"x\") is not a whole number"));
}

TEST_CASE("bench arguments: every error at once", "[bench]") {
  BenchOptions options;
  options.shapes = "x";
  options.runs = "0";
  options.concurrency = "0";
  CHECK(parse_bench_arguments(options).errors.size() == 4);
}

TEST_CASE("bench arguments: prompts beyond the context are named with what fits", "[bench]") {
  BenchArguments arguments;
  arguments.prompt_lengths = {100, 4040, 4096};
  arguments.generated = {16, 64};
  const auto errors = context_errors(arguments, 4096, "the model (max_position_embeddings 4096)");
  REQUIRE(errors.size() == 2);
  CHECK_THAT(errors[0], Contains("--shapes 4040 with --gen 64 needs a context of 4103 tokens") &&
                            Contains("the model (max_position_embeddings 4096) allows 4096") &&
                            Contains("prompt lengths 1..4033 fit with --gen 64"));
  CHECK_THAT(errors[1], Contains("--shapes 4096"));
  CHECK(context_errors(arguments, 4159, "x").empty());
  arguments.generated = {5000};
  CHECK_THAT(context_errors(arguments, 4096, "x")[0], Contains("no prompt length fits"));
}
