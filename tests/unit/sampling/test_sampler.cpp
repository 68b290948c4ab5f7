#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "random/splitmix64.hpp"
#include "sampling/candidate_masks.hpp"
#include "sampling/gumbel_noise.hpp"
#include "sampling/penalties.hpp"
#include "sampling/portable_math.hpp"
#include "sampling/sampler.hpp"

using namespace algenta::sampling;

namespace {

std::int32_t sample(const std::vector<float>& logits, const SamplingParams& params,
                    std::uint64_t seed = 1, std::uint64_t position = 0,
                    const std::vector<std::int32_t>& prompt = {},
                    const std::vector<std::int32_t>& output = {}) {
  return sample_token(params, {logits, prompt, output, seed, position}).token;
}

std::vector<std::int32_t> sorted_ids(std::vector<std::int32_t> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

SamplingParams at_temperature(double t) {
  SamplingParams p;
  p.temperature = t;
  return p;
}

std::string refusal(const std::vector<float>& logits, const SamplingParams& params = {},
                    const std::vector<std::int32_t>& prompt = {},
                    const std::vector<std::int32_t>& output = {}) {
  try {
    sample_token(params, {logits, prompt, output, 1, 0});
  } catch (const SamplingError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("greedy takes the largest logit, the lowest id on ties", "[sampling][sampler]") {
  const auto greedy = at_temperature(0.0);
  CHECK(sample({0.5f, 2.0f, -1.0f, 2.0f}, greedy) == 1);
  CHECK(sample({-INFINITY, -3.0f, -2.0f, -2.0f}, greedy) == 2);
  // Seed and position do not matter at temperature 0.
  CHECK(sample({0.5f, 2.0f, 3.0f}, greedy, 99, 1234) == 2);
}

TEST_CASE("repetition penalty divides positive and multiplies negative logits of seen tokens",
          "[sampling][penalties]") {
  SamplingParams p;
  p.repetition_penalty = 2.0;
  const std::vector<float> logits{4.0f, -1.0f, 3.0f, 0.0f, 1.0f};
  const std::vector<std::int32_t> prompt{0, 0, 1}, output{3, 1};
  const auto z = penalized_logits(logits, prompt, output, p);
  CHECK(z == std::vector<double>{2.0, -2.0, 3.0, 0.0, 1.0});  // applied once per token
  // Greedy now moves off token 0.
  p.temperature = 0.0;
  CHECK(sample(logits, p, 1, 0, prompt, output) == 2);
}

TEST_CASE("presence and frequency penalties count output tokens only", "[sampling][penalties]") {
  SamplingParams p;
  p.presence_penalty = 0.5;
  p.frequency_penalty = 0.25;
  const std::vector<float> logits{1.0f, 1.0f, 1.0f, -INFINITY};
  const auto z = penalized_logits(logits, {{0, 0, 0}}, {{1, 1, 1, 2, 3}}, p);
  CHECK(z[0] == 1.0);                      // prompt only: untouched
  CHECK(z[1] == 1.0 - 0.75 - 0.5);         // 3 occurrences
  CHECK(z[2] == 1.0 - 0.25 - 0.5);         // 1 occurrence
  CHECK(z[3] == -INFINITY);                // not allowed stays not allowed
  p.presence_penalty = -2.0;               // negative values encourage repeats
  p.frequency_penalty = 0.0;
  CHECK(penalized_logits(logits, {}, {{2}}, p)[2] == 3.0);
}

TEST_CASE("the penalties' history lists each token once, in order, with its output count",
          "[sampling][penalties]") {
  const std::vector<std::int32_t> prompt{7, 3, 3, 9};
  const std::vector<std::int32_t> output{5, 3, 5, 5};
  using T = PenaltyToken;
  const auto same = [](const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].token != b[i].token || a[i].output_count != b[i].output_count) return false;
    return true;
  };
  // repetition reads prompt and output; counts are the output's alone
  CHECK(same(penalty_history(prompt, output, true, true), {{3, 1}, {5, 3}, {7, 0}, {9, 0}}));
  CHECK(same(penalty_history(prompt, output, true, false), {{3, 1}, {5, 3}, {7, 0}, {9, 0}}));
  // without repetition only the output's tokens are touched
  CHECK(same(penalty_history(prompt, output, false, true), {{3, 1}, {5, 3}}));
  CHECK(penalty_history(prompt, output, false, false).empty());
  CHECK(penalty_history({}, {}, true, true).empty());
}

TEST_CASE("history tokens outside the vocabulary are refused by index", "[sampling][penalties]") {
  CHECK(refusal({1.0f, 2.0f}, {}, {0, 2}) ==
        "prompt_tokens[1] = 2 is outside the vocabulary [0, 2)");
  CHECK(refusal({1.0f, 2.0f}, {}, {}, {-1}) ==
        "output_tokens[0] = -1 is outside the vocabulary [0, 2)");
}

TEST_CASE("bad logits are refused naming the entry", "[sampling][sampler]") {
  CHECK(refusal({}) == "logits is empty: the vocabulary needs >= 1 entry");
  CHECK(refusal({1.0f, NAN}) ==
        "logits[1] is NaN: engine logits must be finite or -inf (not allowed)");
  CHECK(refusal({INFINITY}) ==
        "logits[0] is +inf: engine logits must be finite or -inf (not allowed)");
  CHECK(refusal({-INFINITY, -INFINITY}) == "all 2 logits are -inf: no token is allowed");
  SamplingParams p;
  p.temperature = 1e-300;
  CHECK(refusal({3e38f, 0.0f}, p).find("leaves the double range after dividing by temperature") !=
        std::string::npos);
}

TEST_CASE("top-k keeps the k largest, and every token tied with the k-th", "[sampling][masks]") {
  SamplingParams p;
  p.top_k = 2;
  const std::vector<double> z{1.0, 5.0, 3.0, 3.0, -INFINITY, 0.0};
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{1, 2, 3});
  p.top_k = 1;
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{1});
  p.top_k = 100;  // more than the allowed tokens: off
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{0, 1, 2, 3, 5});
}

TEST_CASE("top-p keeps the smallest prefix reaching p, at least one token", "[sampling][masks]") {
  // Probabilities 0.5, 0.25, 0.125, 0.125 (logs of exact powers of two).
  const std::vector<double> z{std::log(0.125), std::log(0.5), std::log(0.25), std::log(0.125)};
  SamplingParams p;
  p.top_p = 0.45;
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{1});
  p.top_p = 0.6;
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{1, 2});
  p.top_p = 0.8;  // needs 0.875: ties broken by lower id first
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{0, 1, 2});
  p.top_p = 1e-9;
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{1});
  // After top-k = 2 the nucleus is over the renormalised pair (2/3, 1/3).
  p.top_k = 2;
  p.top_p = 0.6;
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{1});
  p.top_p = 0.7;
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{1, 2});
}

TEST_CASE("min-p drops tokens below min_p times the top probability", "[sampling][masks]") {
  const std::vector<double> z{std::log(0.125), std::log(0.5), std::log(0.25), std::log(0.125)};
  SamplingParams p;
  p.min_p = 0.45;
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{1, 2});
  p.min_p = 0.2;
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{0, 1, 2, 3});
  p.min_p = 1.0;
  CHECK(sorted_ids(surviving_candidates(z, p)) == std::vector<std::int32_t>{1});
}

TEST_CASE("sampling is a pure function of the request and seed", "[sampling][sampler]") {
  std::vector<float> logits(1000);
  algenta::SplitMix64 rng(3);
  for (float& l : logits) l = static_cast<float>(static_cast<double>(rng.next() >> 40) * 0x1p-22);
  SamplingParams p;
  p.top_p = 0.95;
  p.top_k = 50;
  std::vector<std::int32_t> first, again, other_seed;
  for (std::uint64_t pos = 0; pos < 20; ++pos) {
    first.push_back(sample(logits, p, 1234, pos));
    again.push_back(sample(logits, p, 1234, pos));
    other_seed.push_back(sample(logits, p, 1235, pos));
  }
  CHECK(first == again);
  CHECK(first != other_seed);
}

TEST_CASE("top_k = 1 at any temperature is greedy", "[sampling][sampler]") {
  SamplingParams p;
  p.temperature = 2.0;
  p.top_k = 1;
  for (std::uint64_t seed = 0; seed < 50; ++seed)
    CHECK(sample({0.1f, 0.3f, 0.2f, 0.25f}, p, seed) == 1);
}

TEST_CASE("logprobs are log_softmax of the raw logits", "[sampling][logprobs]") {
  SamplingParams p;
  p.temperature = 0.5;
  p.repetition_penalty = 1.5;  // changes the choice, not the reported logprobs
  p.logprobs = true;
  p.top_logprobs = 3;
  const std::vector<float> logits{2.0f, 1.0f, 2.0f, -INFINITY, 0.5f};
  const SampleResult r = sample_token(p, {logits, {}, std::vector<std::int32_t>{0}, 5, 0});
  const double log_z = std::log(2 * std::exp(2.0) + std::exp(1.0) + std::exp(0.5));
  REQUIRE(r.logprob.has_value());
  CHECK(*r.logprob == Approx(logits[static_cast<std::size_t>(r.token)] - log_z).epsilon(1e-12));
  REQUIRE(r.top_logprobs.size() == 3);
  CHECK(r.top_logprobs[0].token == 0);
  CHECK(r.top_logprobs[1].token == 2);
  CHECK(r.top_logprobs[2].token == 1);
  CHECK(r.top_logprobs[0].logprob == Approx(2.0 - log_z).epsilon(1e-12));
  CHECK(r.top_logprobs[2].logprob == Approx(1.0 - log_z).epsilon(1e-12));
  // Asking for more than the allowed tokens lists the allowed ones only.
  p.top_logprobs = 20;
  CHECK(sample_token(p, {logits, {}, {}, 5, 0}).top_logprobs.size() == 4);
  p.logprobs = false;
  p.top_logprobs = 0;
  CHECK_FALSE(sample_token(p, {logits, {}, {}, 5, 0}).logprob.has_value());
}

TEST_CASE("a 262144-token vocabulary samples with and without masks", "[sampling][sampler]") {
  std::vector<float> logits(262144);
  algenta::SplitMix64 rng(9);
  for (float& l : logits) l = static_cast<float>(static_cast<double>(rng.next() >> 40) * 0x1p-21);
  logits[123456] = 40.0f;  // dominant: every configuration must find it
  SamplingParams p;
  CHECK(sample(logits, p) == 123456);
  p.top_k = 40;
  CHECK(sample(logits, p) == 123456);
  p.top_k = -1;
  p.top_p = 0.9;
  CHECK(sample(logits, p) == 123456);
  p.min_p = 0.1;
  p.logprobs = true;
  p.top_logprobs = 20;
  const SampleResult r = sample_token(p, {logits, {}, {}, 1, 0});
  CHECK(r.token == 123456);
  CHECK(r.top_logprobs.front().token == 123456);
  CHECK(r.top_logprobs.size() == 20);
}

TEST_CASE("skipping hopeless tokens never changes the winner", "[sampling][sampler]") {
  // Wide logits, so the noise bound skips most of the vocabulary.
  std::vector<float> logits(5000);
  algenta::SplitMix64 rng(21);
  for (float& l : logits) l = static_cast<float>(static_cast<double>(rng.next() >> 40) * 0x1p-18);
  SamplingParams p;
  p.temperature = 0.8;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    std::int32_t want = -1;
    double best = -INFINITY;
    for (std::size_t i = 0; i < logits.size(); ++i) {
      const double score = static_cast<double>(logits[i]) / p.temperature +
                           gumbel_noise(seed, 3, static_cast<std::uint32_t>(i));
      if (score > best) {
        best = score;
        want = static_cast<std::int32_t>(i);
      }
    }
    INFO("seed " << seed);
    CHECK(sample(logits, p, seed, 3) == want);
  }
}

// Sixteen steps of a request using every knob, each token fed back into the
// penalties. Pins the whole pipeline (a GPU port must give these tokens).
TEST_CASE("a pinned generation with every knob set", "[sampling][sampler]") {
  std::vector<float> logits(64);
  algenta::SplitMix64 rng(2026);
  for (float& l : logits) l = static_cast<float>(static_cast<double>(rng.next() >> 40) * 0x1p-21);
  SamplingParams p;
  p.temperature = 0.7;
  p.top_k = 20;
  p.top_p = 0.9;
  p.min_p = 0.02;
  p.presence_penalty = 0.4;
  p.frequency_penalty = 0.2;
  p.repetition_penalty = 1.2;
  const std::vector<std::int32_t> prompt{1, 2, 3, 5, 8, 13};
  std::vector<std::int32_t> output;
  for (std::uint64_t position = 6; position < 22; ++position)
    output.push_back(sample_token(p, {logits, prompt, output, 0x5eed, position}).token);
  CHECK(output == std::vector<std::int32_t>{28, 39, 46, 59, 38, 36, 27, 59, 48, 7, 46, 6, 11, 28,
                                            48, 0});
}

TEST_CASE("top-p over many chunks keeps what a full sort keeps", "[sampling][masks]") {
  std::vector<double> z(3000);
  algenta::SplitMix64 rng(5);
  for (double& v : z) v = static_cast<double>(rng.next() >> 11) * 0x1p-53 * 3.0;
  z[17] = -INFINITY;
  z[2047] = z[1023];  // a tie, across lanes
  for (double top_p : {0.05, 0.3, 0.5, 0.9, 0.999}) {
    // Reference: a full sort by (z desc, id asc) and the documented sums:
    // W over 1024 lanes of ids, prefix masses over chunks of 128 ranks.
    std::vector<std::int32_t> order;
    double z_max = -INFINITY;
    for (std::size_t i = 0; i < z.size(); ++i)
      if (z[i] != -INFINITY) {
        order.push_back(static_cast<std::int32_t>(i));
        z_max = std::max(z_max, z[i]);
      }
    const auto w = [&](std::int32_t id) { return portable_exp(z[static_cast<std::size_t>(id)] - z_max); };
    std::vector<double> lanes(1024, 0.0);
    for (std::int32_t id : order) lanes[static_cast<std::size_t>(id) % 1024] += w(id);
    double total = 0.0;
    for (double lane : lanes) total += lane;
    std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
      return z[static_cast<std::size_t>(a)] != z[static_cast<std::size_t>(b)]
                 ? z[static_cast<std::size_t>(a)] > z[static_cast<std::size_t>(b)]
                 : a < b;
    });
    std::vector<double> chunk_sums((order.size() + 127) / 128, 0.0);
    for (std::size_t r = 0; r < order.size(); ++r) chunk_sums[r / 128] += w(order[r]);
    std::vector<std::int32_t> want;
    double earlier_chunks = 0.0, in_chunk = 0.0;
    for (std::size_t r = 0; r < order.size(); ++r) {
      if (r % 128 == 0) {
        earlier_chunks = 0.0;
        for (std::size_t c = 0; c < r / 128; ++c) earlier_chunks += chunk_sums[c];
        in_chunk = 0.0;
      }
      if (r > 0 && !(earlier_chunks + in_chunk < top_p * total)) break;
      want.push_back(order[r]);
      in_chunk += w(order[r]);
    }
    SamplingParams p;
    p.top_p = top_p;
    INFO("top_p " << top_p << " keeps " << want.size());
    CHECK(want.size() > 1);
    CHECK(sorted_ids(surviving_candidates(z, p)) == sorted_ids(want));
  }
}

TEST_CASE("draw_scores names sample_token's winner and scores any token the masks keep",
          "[sampling][sampler]") {
  algenta::SplitMix64 rng(77);
  std::vector<float> logits(300);
  for (float& l : logits) l = static_cast<float>(static_cast<double>(rng.next() >> 40) * 0x1p-21 - 4.0);
  logits[5] = -INFINITY;  // not allowed
  const std::vector<std::int32_t> prompt = {1, 2, 3, 2};
  const std::vector<std::int32_t> output = {7, 7, 9};
  std::vector<SamplingParams> all(4);
  all[0].temperature = 0.0;
  all[0].repetition_penalty = 1.5;
  all[1].temperature = 0.9;
  all[2].temperature = 1.3;
  all[2].top_k = 20;
  all[2].top_p = 0.8;
  all[3].temperature = 0.6;
  all[3].min_p = 0.1;
  all[3].frequency_penalty = 0.7;
  for (const SamplingParams& params : all) {
    for (std::uint64_t position = 10; position < 20; ++position) {
      const SamplingRequest request{logits, prompt, output, 4242, position};
      const std::int32_t drawn = sample_token(params, request).token;
      const DrawScores winner = draw_scores(params, request, drawn);
      CHECK(winner.winner == drawn);
      REQUIRE(winner.token_score.has_value());
      CHECK(*winner.token_score == winner.winner_score);
      // Any other kept token scores lower or equal (equal only above the winner's id).
      for (std::int32_t other : {0, 42, 299}) {
        const DrawScores s = draw_scores(params, request, other);
        if (s.token_score) CHECK(*s.token_score <= s.winner_score);
      }
      CHECK_FALSE(draw_scores(params, request, 5).token_score.has_value());
      CHECK_FALSE(draw_scores(params, request, 300).token_score.has_value());
    }
  }
  // top-k 1 keeps only the largest logit: every other token is dropped.
  SamplingParams one;
  one.temperature = 1.0;
  one.top_k = 1;
  const SamplingRequest request{logits, {}, {}, 1, 0};
  const DrawScores s = draw_scores(one, request, (sample_token(one, request).token + 1) % 300);
  CHECK_FALSE(s.token_score.has_value());
}
