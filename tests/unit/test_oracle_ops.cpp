// The oracle's operations on small inputs, against values worked out by hand
// (or exactly), and the fixed-order properties everything else relies on.
#include <atomic>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "checkpoint/dtype_convert.hpp"
#include "kv_cache.hpp"
#include "matmul.hpp"
#include "ops.hpp"
#include "rope.hpp"
#include "thread_pool.hpp"

using namespace algenta::oracle;
using namespace algenta::decoder;

namespace {

std::vector<std::uint16_t> to_bf16(const std::vector<float>& values) {
  std::vector<std::uint16_t> out;
  for (const float v : values)
    out.push_back(algenta::checkpoint::f32_bits_to_bf16(std::bit_cast<std::uint32_t>(v)));
  return out;
}

std::vector<std::uint16_t> to_f16(const std::vector<float>& values) {
  std::vector<std::uint16_t> out;
  for (const float v : values)
    out.push_back(algenta::checkpoint::f32_bits_to_f16(std::bit_cast<std::uint32_t>(v)));
  return out;
}

MatrixView view(const void* data, ElementType type, std::size_t rows, std::size_t cols) {
  return {static_cast<const std::byte*>(data), type, rows, cols};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("oracle ops: rmsnorm", "[oracle]") {
  // mean(x^2) = 4 exactly, so 1/rms = 0.5 and the result is exact.
  const float x[] = {2, -2, 2, 2};
  const float w[] = {1, 0.5f, 2, 1};
  float out[4];
  rmsnorm(x, w, 4, 0.0f, out);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == -0.5f);
  CHECK(out[2] == 2.0f);
  CHECK(out[3] == 1.0f);

  // x = 1..4: mean(x^2) = 7.5, 1/sqrt(7.5 + 1e-5) = 0.36514813...
  const float y[] = {1, 2, 3, 4};
  const float v[] = {0.5f, 1, 2, -1};
  rmsnorm(y, v, 4, 1e-5f, out);
  CHECK(out[0] == Approx(0.18257406).epsilon(1e-6));
  CHECK(out[1] == Approx(0.73029626).epsilon(1e-6));
  CHECK(out[2] == Approx(2.19088877).epsilon(1e-6));
  CHECK(out[3] == Approx(-1.46059251).epsilon(1e-6));
}

TEST_CASE("oracle ops: RoPE inverse frequencies, plain, linear and llama3", "[oracle]") {
  RopeConfig plain;  // theta 10000, head_dim 8: 1, 0.1, 0.01, 0.001
  const auto base = rope_inverse_frequencies(8, plain);
  REQUIRE(base.size() == 4);
  CHECK(base[0] == 1.0f);
  CHECK(base[1] == 0.1f);
  CHECK(base[2] == 0.01f);
  CHECK(base[3] == 0.001f);

  RopeConfig linear;
  linear.scaling = RopeConfig::Scaling::linear;
  linear.factor = 4.0;
  const auto scaled = rope_inverse_frequencies(8, linear);
  CHECK(scaled[0] == 0.25f);
  CHECK(scaled[3] == Approx(0.00025).epsilon(1e-6));

  // Wavelengths 2*pi/f: 6.3, 63 (< 1024/4: kept), 628 (between: blended),
  // 6283 (> 1024/1: divided by 8).
  RopeConfig llama3;
  llama3.scaling = RopeConfig::Scaling::llama3;
  llama3.factor = 8.0;
  llama3.low_freq_factor = 1.0;
  llama3.high_freq_factor = 4.0;
  llama3.original_max_position_embeddings = 1024;
  const auto l3 = rope_inverse_frequencies(8, llama3);
  CHECK(l3[0] == 1.0f);
  CHECK(l3[1] == 0.1f);
  // smooth = (1024 / 628.3185 - 1) / 3 = 0.209917; (1 - s) * 0.01 / 8 + s * 0.01
  CHECK(l3[2] == Approx(0.0030867610).epsilon(1e-6));
  CHECK(l3[3] == Approx(0.000125).epsilon(1e-6));
}

TEST_CASE("oracle ops: RoPE rotates halves at positions 0, 1 and 1000 (llama3 table)", "[oracle]") {
  RopeConfig llama3;
  llama3.scaling = RopeConfig::Scaling::llama3;
  llama3.factor = 8.0;
  llama3.original_max_position_embeddings = 1024;
  const auto inv = rope_inverse_frequencies(8, llama3);
  float cos[4], sin[4];

  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  rope_angles(inv, 0, cos, sin);
  apply_rope(x, 8, cos, sin);
  for (int i = 0; i < 8; ++i) CHECK(x[i] == static_cast<float>(i + 1));

  // Position 1, pair (0, 4): 1*cos(1) - 5*sin(1) = -3.667053, 5*cos(1) + 1*sin(1) = 3.542983
  float y[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  rope_angles(inv, 1, cos, sin);
  apply_rope(y, 8, cos, sin);
  const double at_1[] = {-3.667052618, 1.391007821, 2.978378418, 3.998999969,
                         3.542982514,  6.169691827, 7.009226919, 8.000499938};
  for (int i = 0; i < 8; ++i) CHECK(y[i] == Approx(at_1[i]).epsilon(1e-6));

  // Position 1000: angles 1000, 100, 3.0867606, 0.125.
  float z[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  rope_angles(inv, 1000, cos, sin);
  apply_rope(z, 8, cos, sin);
  const double at_1000[] = {-3.572018626, 4.762831591, -3.379123911, 2.971392802,
                            3.638774922,  4.161181952, -6.825065684, 8.436280271};
  for (int i = 0; i < 8; ++i) CHECK(z[i] == Approx(at_1000[i]).epsilon(1e-5));
}

TEST_CASE("oracle ops: causal attention with 2 query heads sharing 1 kv head", "[oracle]") {
  // head_dim 2, scale 1/sqrt(2). Keys [1,0], [0,1]; values [1,2], [3,4].
  const float keys[] = {1, 0, 0, 1};
  const float values[] = {1, 2, 3, 4};
  // Head 0 scores 0, 0 -> weights 1/2, 1/2 -> [2, 3].
  // Head 1 scores ln 3, 0 -> weights 3/4, 1/4 -> [1.5, 2.5].
  const float q[] = {0, 0, static_cast<float>(std::sqrt(2.0) * std::log(3.0)), 0};
  float scores[2];
  float out[4];
  attend_all_heads(q, keys, values, 2, 2, 1, 2, attention_scale(2), scores, out);
  CHECK(out[0] == Approx(2.0).epsilon(1e-6));
  CHECK(out[1] == Approx(3.0).epsilon(1e-6));
  CHECK(out[2] == Approx(1.5).epsilon(1e-6));
  CHECK(out[3] == Approx(2.5).epsilon(1e-6));

  // At position 0 only the first key is visible: both heads read value 0.
  attend_all_heads(q, keys, values, 1, 2, 1, 2, attention_scale(2), scores, out);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == 2.0f);
  CHECK(out[2] == 1.0f);
  CHECK(out[3] == 2.0f);
}

TEST_CASE("oracle ops: grouped-query heads map to consecutive groups", "[oracle]") {
  const std::size_t expected[] = {0, 0, 0, 0, 1, 1, 1, 1};
  for (std::size_t h = 0; h < 8; ++h) CHECK(kv_head_of(h, 8, 2) == expected[h]);
  for (std::size_t h = 0; h < 4; ++h) CHECK(kv_head_of(h, 4, 4) == h);
  CHECK(attention_scale(128) == static_cast<float>(0.08838834764831845));
}

TEST_CASE("oracle ops: silu and SwiGLU", "[oracle]") {
  CHECK(silu(0.0f) == 0.0f);
  CHECK(silu(1.0f) == Approx(0.7310585786).epsilon(1e-6));
  CHECK(silu(-2.0f) == Approx(-0.2384058440).epsilon(1e-6));
  float gate[] = {1.0f, 0.0f};
  const float up[] = {2.0f, 5.0f};
  swiglu_in_place(gate, up, 2);
  CHECK(gate[0] == Approx(1.4621171573).epsilon(1e-6));
  CHECK(gate[1] == 0.0f);
}

TEST_CASE("oracle ops: argmax ties go to the lowest id, NaN never wins", "[oracle]") {
  const float tie[] = {1, 3, 3, 2};
  CHECK(argmax_lowest(tie, 4) == 1);
  const float nan_first[] = {std::numeric_limits<float>::quiet_NaN(), -1, 5, 5};
  CHECK(argmax_lowest(nan_first, 4) == 2);
  const float negative[] = {-4, -2, -2, -3};
  CHECK(argmax_lowest(negative, 4) == 1);
}

TEST_CASE("oracle ops: the vectorized argmax gives the scalar scan's index on every row",
          "[oracle]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::uint64_t state = 12345;
  const auto next = [&] {  // xorshift: a reproducible stream of bits
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (std::size_t n : {0u, 1u, 7u, 8u, 31u, 32u, 33u, 100u, 1000u, 151936u}) {
    for (int round = 0; round < 40; ++round) {
      std::vector<float> row(n);
      // Few distinct values, so ties are common; specials sprinkled in.
      for (float& v : row) {
        const std::uint64_t r = next();
        switch (r % 16) {
          case 0: v = nan; break;
          case 1: v = -inf; break;
          case 2: v = (round % 5 == 0) ? inf : -0.0f; break;
          case 3: v = 0.0f; break;
          default: v = static_cast<float>(static_cast<int>((r >> 8) % 9) - 4); break;
        }
      }
      if (round % 7 == 1) std::fill(row.begin(), row.end(), -inf);
      if (round % 7 == 2) std::fill(row.begin(), row.end(), nan);
      if (round % 7 == 3 && n > 0) row[n - 1] = 100.0f;  // the largest in the tail
      INFO("n " << n << ", round " << round);
      CHECK(argmax_lowest(row.data(), n) == argmax_lowest_scalar(row.data(), n));
    }
  }
  const float zeros[] = {-0.0f, 0.0f, -1.0f};
  CHECK(argmax_lowest(zeros, 3) == 0);  // -0 and +0 tie: the lower id
}

TEST_CASE("oracle ops: dot products reduce in 16 lanes, then a fixed tree", "[oracle]") {
  // Integers: exact in any order.
  std::vector<float> a(37), b(37);
  for (int i = 0; i < 37; ++i) a[i] = b[i] = static_cast<float>(i + 1);
  CHECK(dot(a.data(), b.data(), 37) == 37.0f * 38 * 75 / 6);

  // 2^24 + 1 + 1: summed left to right each +1 is lost (2^24); in lanes the
  // two ones meet first (lane 1: k = 1 and 17) and survive: 2^24 + 2.
  std::vector<float> x(18, 0.0f), ones(18, 1.0f);
  x[0] = 16777216.0f;
  x[1] = 1.0f;
  x[17] = 1.0f;
  CHECK(dot(x.data(), ones.data(), 18) == 16777218.0f);
}

TEST_CASE("oracle ops: 16-bit weights widen exactly (all 65536 patterns)", "[oracle]") {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    INFO("pattern 0x" << std::hex << bits);
    REQUIRE(std::bit_cast<std::uint32_t>(widen_f16(h)) == algenta::checkpoint::f16_to_f32_bits(h));
    REQUIRE(std::bit_cast<std::uint32_t>(widen_bf16(h)) ==
            algenta::checkpoint::bf16_to_f32_bits(h));
  }
}

TEST_CASE("oracle ops: a matmul output is the same bits alone, batched, split, on any loop",
          "[oracle]") {
  const std::size_t rows = 13, cols = 75;  // 75: four 16-lane blocks and a tail
  std::vector<float> w(rows * cols), inputs(5 * cols);
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = std::ldexp(static_cast<float>(static_cast<int>(i * 37 % 255) - 127), -7);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    inputs[i] = std::sin(static_cast<float>(i)) * 3.0f;
  const auto w_bf16 = to_bf16(w);  // the values above are exact in 16 bits
  const auto w_f16 = to_f16(w);

  auto run = [&](Isa isa, const MatrixView& m, std::size_t tokens, std::size_t begin,
                 std::size_t end, std::size_t first_token) {
    std::vector<float> out(tokens * rows, 0.0f);
    std::vector<const float*> in;
    std::vector<float*> outs;
    for (std::size_t t = 0; t < tokens; ++t) {
      in.push_back(inputs.data() + (first_token + t) * cols);
      outs.push_back(out.data() + t * rows);
    }
    matmul_rows(isa, m, in, outs, begin, end);
    return out;
  };
  const MatrixView f32 = view(w.data(), ElementType::f32, rows, cols);
  const auto batched = run(Isa::generic, f32, 5, 0, rows, 0);

  // Token 3 alone, and rows in two ranges.
  const auto alone = run(Isa::generic, f32, 1, 0, rows, 3);
  CHECK(std::memcmp(alone.data(), batched.data() + 3 * rows, rows * sizeof(float)) == 0);
  auto split = run(Isa::generic, f32, 5, 0, 6, 0);
  const auto rest = run(Isa::generic, f32, 5, 6, rows, 0);
  for (std::size_t t = 0; t < 5; ++t) {
    for (std::size_t r = 6; r < rows; ++r) split[t * rows + r] = rest[t * rows + r];
  }
  CHECK(same_bits(split, batched));

  // Same values stored as bf16 and f16, and every build of the loop the CPU runs.
  CHECK(same_bits(
      run(Isa::generic, view(w_bf16.data(), ElementType::bf16, rows, cols), 5, 0, rows, 0),
      batched));
  CHECK(same_bits(
      run(Isa::generic, view(w_f16.data(), ElementType::f16, rows, cols), 5, 0, rows, 0), batched));
  for (const Isa isa : available_isas()) {
    INFO(isa_name(isa));
    CHECK(same_bits(run(isa, f32, 5, 0, rows, 0), batched));
    CHECK(same_bits(run(isa, view(w_bf16.data(), ElementType::bf16, rows, cols), 5, 0, rows, 0),
                    batched));
    CHECK(same_bits(run(isa, view(w_f16.data(), ElementType::f16, rows, cols), 5, 0, rows, 0),
                    batched));
  }

  // And each element is the fixed-order dot product.
  for (std::size_t t = 0; t < 5; ++t) {
    for (std::size_t r = 0; r < rows; ++r) {
      CHECK(std::bit_cast<std::uint32_t>(batched[t * rows + r]) ==
            std::bit_cast<std::uint32_t>(dot(w.data() + r * cols, inputs.data() + t * cols, cols)));
    }
  }
}

TEST_CASE("oracle ops: every 16-bit pattern widens in the matmul's vector loop as one at a time",
          "[oracle]") {
  // Row r holds pattern r in column 0 and zeros elsewhere; x picks column 0.
  const std::size_t rows = 65536, cols = 16;
  std::vector<std::uint16_t> w(rows * cols, 0);
  for (std::size_t r = 0; r < rows; ++r) w[r * cols] = static_cast<std::uint16_t>(r);
  std::vector<float> x(cols, 0.0f);
  x[0] = 1.0f;
  const std::vector<const float*> in{x.data()};
  for (const ElementType type : {ElementType::bf16, ElementType::f16}) {
    std::vector<float> expected(rows);
    for (std::size_t r = 0; r < rows; ++r) {
      float row[cols] = {};
      row[0] = type == ElementType::bf16 ? widen_bf16(static_cast<std::uint16_t>(r))
                                         : widen_f16(static_cast<std::uint16_t>(r));
      expected[r] = dot(row, x.data(), cols);
    }
    const MatrixView m{reinterpret_cast<const std::byte*>(w.data()), type, rows, cols};
    for (const Isa isa : available_isas()) {
      std::vector<float> out(rows);
      const std::vector<float*> outs{out.data()};
      matmul_rows(isa, m, in, outs, 0, rows);
      INFO(isa_name(isa) << " " << element_type_name(type));
      CHECK(same_bits(out, expected));
    }
  }
}

TEST_CASE("oracle ops: a long batch's matmul (input blocks, inputs four at a time) is each "
          "element's fixed-order dot product",
          "[oracle]") {
  // 137 inputs: two full blocks of 64 and a ragged one, four at a time and
  // single ones at each block's end; 13 rows, 75 columns (a 16-lane tail).
  const std::size_t rows = 13, cols = 75, tokens = 137;
  std::vector<float> w(rows * cols), inputs(tokens * cols);
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = std::ldexp(static_cast<float>(static_cast<int>(i * 37 % 255) - 127), -7);
  for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = std::cos(static_cast<float>(i)) * 5.0f;
  const auto w_bf16 = to_bf16(w);
  const auto w_f16 = to_f16(w);
  std::vector<const float*> in;
  for (std::size_t t = 0; t < tokens; ++t) in.push_back(inputs.data() + t * cols);

  for (const Isa isa : available_isas()) {
    for (const MatrixView& m : {view(w.data(), ElementType::f32, rows, cols),
                                view(w_bf16.data(), ElementType::bf16, rows, cols),
                                view(w_f16.data(), ElementType::f16, rows, cols)}) {
      std::vector<float> out(tokens * rows, 0.0f);
      std::vector<float*> outs;
      for (std::size_t t = 0; t < tokens; ++t) outs.push_back(out.data() + t * rows);
      matmul_rows(isa, m, in, outs, 0, rows);
      std::size_t mismatches = 0;
      for (std::size_t t = 0; t < tokens; ++t) {
        for (std::size_t r = 0; r < rows; ++r) {
          const float expected = dot(w.data() + r * cols, inputs.data() + t * cols, cols);
          mismatches += std::bit_cast<std::uint32_t>(out[t * rows + r]) ==
                                std::bit_cast<std::uint32_t>(expected)
                            ? 0
                            : 1;
        }
      }
      INFO(isa_name(isa) << " " << element_type_name(m.type));
      CHECK(mismatches == 0);
    }
  }
}

TEST_CASE("oracle ops: the thread pool gives each index to exactly one fixed part", "[oracle]") {
  for (const std::size_t workers : {1, 2, 3}) {
    ThreadPool pool(workers);
    for (const std::size_t count : {0, 1, 2, 7, 100}) {
      std::vector<std::atomic<int>> hits(count);
      std::vector<std::size_t> owner(count, 99);
      pool.run(count, [&](std::size_t worker, std::size_t begin, std::size_t end) {
        CHECK(begin == count * worker / workers);
        CHECK(end == count * (worker + 1) / workers);
        for (std::size_t i = begin; i < end; ++i) {
          ++hits[i];
          owner[i] = worker;
        }
      });
      for (std::size_t i = 0; i < count; ++i) CHECK(hits[i] == 1);
    }
    CHECK_THROWS_WITH(pool.run(10, [](std::size_t, std::size_t,
                                      std::size_t) { throw std::runtime_error("part failed"); }),
                      "part failed");
  }
}

TEST_CASE("oracle ops: a sequence's KV storage grows with its tokens, zeroed", "[oracle]") {
  SequenceKv kv(2, 4);
  CHECK(kv.bytes() == 0);
  kv.reserve(3, 10);
  CHECK(kv.bytes() == 2 * 2 * 3 * 4 * sizeof(float));
  CHECK(kv.keys(1)[2 * 4 + 3] == 0.0f);
  kv.key_slot(1, 2)[3] = 5.0f;
  kv.reserve(4, 10);  // doubles to 6
  CHECK(kv.bytes() == 2 * 2 * 6 * 4 * sizeof(float));
  CHECK(kv.keys(1)[2 * 4 + 3] == 5.0f);
  kv.reserve(9, 10);  // 12 would pass the context: capped at 10
  CHECK(kv.bytes() == 2 * 2 * 10 * 4 * sizeof(float));
  CHECK_THROWS(kv.key_slot(0, 10));
}
