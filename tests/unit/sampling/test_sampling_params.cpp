#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>

#include "sampling/sampling_params.hpp"

using namespace algenta::sampling;

namespace {
std::string refusal(const std::function<void(SamplingParams&)>& change) {
  SamplingParams params;
  change(params);
  try {
    validate(params);
  } catch (const SamplingError& e) {
    return e.what();
  }
  return "accepted";
}
}  // namespace

TEST_CASE("defaults and range edges are accepted", "[sampling][params]") {
  CHECK(refusal([](SamplingParams&) {}) == "accepted");
  CHECK(refusal([](SamplingParams& p) { p.temperature = 0.0; }) == "accepted");
  CHECK(refusal([](SamplingParams& p) { p.temperature = 100.0; }) == "accepted");
  CHECK(refusal([](SamplingParams& p) { p.top_k = 0; }) == "accepted");
  CHECK(refusal([](SamplingParams& p) { p.top_k = 1; }) == "accepted");
  CHECK(refusal([](SamplingParams& p) { p.min_p = 1.0; }) == "accepted");
  CHECK(refusal([](SamplingParams& p) { p.presence_penalty = -2.0; }) == "accepted");
  CHECK(refusal([](SamplingParams& p) { p.frequency_penalty = 2.0; }) == "accepted");
  CHECK(refusal([](SamplingParams& p) { p.repetition_penalty = 2.0; }) == "accepted");
  CHECK(refusal([](SamplingParams& p) { p.logprobs = true; p.top_logprobs = 20; }) ==
        "accepted");
}

TEST_CASE("each out-of-range field is refused naming the field and range", "[sampling][params]") {
  CHECK(refusal([](SamplingParams& p) { p.temperature = -0.5; }) ==
        "temperature must be in [0, 100] (0 = greedy), got -0.5");
  CHECK(refusal([](SamplingParams& p) { p.temperature = 100.5; }) ==
        "temperature must be in [0, 100] (0 = greedy), got 100.5");
  CHECK(refusal([](SamplingParams& p) { p.temperature = NAN; }) ==
        "temperature must be in [0, 100] (0 = greedy), got nan");
  CHECK(refusal([](SamplingParams& p) { p.top_p = 0.0; }) == "top_p must be in (0, 1], got 0");
  CHECK(refusal([](SamplingParams& p) { p.top_p = 1.5; }) == "top_p must be in (0, 1], got 1.5");
  CHECK(refusal([](SamplingParams& p) { p.top_k = -2; }) ==
        "top_k must be in {-1, 0} (off) or >= 1, got -2");
  CHECK(refusal([](SamplingParams& p) { p.min_p = 1.25; }) == "min_p must be in [0, 1], got 1.25");
  CHECK(refusal([](SamplingParams& p) { p.presence_penalty = 2.5; }) ==
        "presence_penalty must be in [-2, 2], got 2.5");
  CHECK(refusal([](SamplingParams& p) { p.frequency_penalty = -3; }) ==
        "frequency_penalty must be in [-2, 2], got -3");
  CHECK(refusal([](SamplingParams& p) { p.repetition_penalty = 0.0; }) ==
        "repetition_penalty must be in (0, 2], got 0");
  CHECK(refusal([](SamplingParams& p) { p.repetition_penalty = 2.5; }) ==
        "repetition_penalty must be in (0, 2], got 2.5");
  CHECK(refusal([](SamplingParams& p) { p.logprobs = true; p.top_logprobs = 21; }) ==
        "top_logprobs must be in [0, 20], got 21");
  CHECK(refusal([](SamplingParams& p) { p.top_logprobs = 3; }) ==
        "top_logprobs = 3 needs logprobs = true (as in the OpenAI API)");
}
