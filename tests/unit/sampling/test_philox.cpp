#include <catch2/catch.hpp>

#include "sampling/philox.hpp"

using algenta::sampling::philox4x32_10;
using algenta::sampling::PhiloxCounter;
using algenta::sampling::PhiloxKey;

// Known answers from Random123's examples/kat_vectors (the "philox4x32 10"
// lines: counter words, key words, expected output words).
TEST_CASE("Philox4x32-10 matches the Random123 known-answer vectors", "[sampling][philox]") {
  struct Vector {
    PhiloxCounter counter;
    PhiloxKey key;
    PhiloxCounter expected;
  };
  const Vector vectors[] = {
      {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
       {0x00000000, 0x00000000},
       {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Vector& v : vectors) {
    INFO("counter " << std::hex << v.counter[0] << " key " << v.key[0]);
    CHECK(philox4x32_10(v.counter, v.key) == v.expected);
  }
}
