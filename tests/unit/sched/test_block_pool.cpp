// The block pool: promises, taking, reference counts, and the misuses it
// refuses by name.
#include <catch2/catch.hpp>

#include "sched/block_pool.hpp"
#include "sched/scheduler_limits.hpp"

using namespace algenta::sched;

TEST_CASE("blocks are promised from what is neither held nor promised") {
  BlockPool pool(4);
  CHECK(pool.available() == 4);
  CHECK(pool.promise(3));
  CHECK(pool.available() == 1);
  CHECK_FALSE(pool.promise(2));
  CHECK(pool.promised() == 3);
  CHECK(pool.take_promised() == 0);
  CHECK(pool.take_promised() == 1);
  CHECK(pool.free_count() == 2);
  CHECK(pool.available() == 1);
  pool.withdraw(1);
  CHECK(pool.available() == 2);
  CHECK_THROWS_WITH(pool.withdraw(1), Catch::Contains("withdrawing 1 block promises, but only 0"));
  CHECK_THROWS_WITH(pool.take_promised(), Catch::Contains("taken without a promise"));
}

TEST_CASE("a block is free again when its last holder releases it") {
  BlockPool pool(2);
  REQUIRE(pool.promise(1));
  const BlockId block = pool.take_promised();
  pool.retain(block);  // shared, as a prefix cache will
  CHECK(pool.ref_count(block) == 2);
  pool.release(block);
  CHECK(pool.free_count() == 1);
  pool.release(block);
  CHECK(pool.free_count() == 2);
  CHECK(pool.ref_count(block) == 0);
  CHECK_THROWS_WITH(pool.release(block), Catch::Contains("release of block 0, which no sequence holds"));
  CHECK_THROWS_WITH(pool.retain(7), Catch::Contains("retain of block 7, past the pool's 2 blocks"));
}

TEST_CASE("a released block is the next one handed out") {
  BlockPool pool(3);
  REQUIRE(pool.promise(2));
  const BlockId a = pool.take_promised();
  const BlockId b = pool.take_promised();
  pool.release(a);
  REQUIRE(pool.promise(1));
  CHECK(pool.take_promised() == a);
  CHECK(b == 1);
}

TEST_CASE("blocks for positions round up") {
  CHECK(blocks_for_positions(0, 16) == 0);
  CHECK(blocks_for_positions(1, 16) == 1);
  CHECK(blocks_for_positions(16, 16) == 1);
  CHECK(blocks_for_positions(17, 16) == 2);
}
