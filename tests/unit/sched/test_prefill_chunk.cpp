// The prefill chunk rule: never one token (but a one-token prompt), never a
// one-token remainder, as long as the budget allows otherwise.
#include <catch2/catch.hpp>

#include "sched/prefill_chunk.hpp"
#include "sched/scheduler_limits.hpp"

using algenta::sched::prefill_chunk_length;
using algenta::sched::SchedulerError;

TEST_CASE("a prompt that fits the budget is taken whole") {
  CHECK(prefill_chunk_length(10, 0, 10) == 10);
  CHECK(prefill_chunk_length(10, 0, 64) == 10);
  CHECK(prefill_chunk_length(10, 4, 6) == 6);
  CHECK(prefill_chunk_length(2, 0, 2) == 2);
}

TEST_CASE("a chunk that would leave one token takes one less and leaves two") {
  CHECK(prefill_chunk_length(10, 0, 9) == 8);
  CHECK(prefill_chunk_length(10, 3, 6) == 5);
  CHECK(prefill_chunk_length(3, 0, 2) == 0);  // 1 + 2 would start with a one-token chunk
  CHECK(prefill_chunk_length(4, 0, 3) == 2);
}

TEST_CASE("a budget under two tokens fits no chunk of a longer prompt") {
  CHECK(prefill_chunk_length(5, 0, 0) == 0);
  CHECK(prefill_chunk_length(5, 0, 1) == 0);
  CHECK(prefill_chunk_length(2, 0, 1) == 0);
  CHECK(prefill_chunk_length(5, 0, 2) == 2);
}

TEST_CASE("a one-token prompt is one chunk of one token") {
  CHECK(prefill_chunk_length(1, 0, 1) == 1);
  CHECK(prefill_chunk_length(1, 0, 100) == 1);
  CHECK(prefill_chunk_length(1, 0, 0) == 0);
}

TEST_CASE("every prompt and budget: chunks of two or more cover the prompt in order") {
  for (std::uint32_t prompt = 2; prompt <= 40; ++prompt) {
    for (std::uint32_t budget = 2; budget <= 42; ++budget) {
      std::uint32_t cached = 0;
      while (cached < prompt) {
        const std::uint32_t chunk = prefill_chunk_length(prompt, cached, budget);
        INFO("prompt " << prompt << " budget " << budget << " cached " << cached);
        // Only a budget of 2 against a remainder of 3 stalls (hence
        // max_step_tokens >= 3: a step's whole budget always makes progress).
        if (chunk == 0) {
          REQUIRE(budget == 2);
          REQUIRE(prompt - cached == 3);
          break;
        }
        REQUIRE(chunk >= 2);
        REQUIRE(chunk <= budget);
        REQUIRE(prompt - cached - chunk != 1);
        // As much as the rules allow.
        const bool whole_fits = prompt - cached <= budget;
        REQUIRE(chunk == (whole_fits ? prompt - cached
                                     : (prompt - cached - budget == 1 ? budget - 1 : budget)));
        cached += chunk;
      }
    }
  }
}

TEST_CASE("the rule refuses states it never produces") {
  CHECK_THROWS_AS(prefill_chunk_length(5, 5, 10), SchedulerError);
  CHECK_THROWS_WITH(prefill_chunk_length(5, 4, 10),
                    Catch::Contains("one-token remainder of a 5-token prompt (4 cached)"));
}
