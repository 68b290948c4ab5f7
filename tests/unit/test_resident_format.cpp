// The resident format (writer and reader) and the F32/BF16/F16 conversions
// it applies on the way.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/dtype_convert.hpp"
#include "checkpoint/resident_format.hpp"
#include "checkpoint/resident_reader.hpp"
#include "manifest/crypto.hpp"
#include "support/bundle_fixture.hpp"

using namespace algenta::checkpoint;
using algenta::test::read_file;
using algenta::test::TempDir;
using algenta::test::write_file;
using Catch::Contains;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ---- conversions ----------------------------------------------------------

bool is_bf16_nan(std::uint16_t bits) { return (bits & 0x7f80u) == 0x7f80u && (bits & 0x007fu) != 0; }
bool is_f16_nan(std::uint16_t bits) { return (bits & 0x7c00u) == 0x7c00u && (bits & 0x03ffu) != 0; }

// The value of an f16 pattern from its definition, in double.
double f16_value(std::uint16_t bits) {
  const double sign = (bits & 0x8000u) != 0 ? -1.0 : 1.0;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0x1f) return mantissa == 0 ? sign * INFINITY : NAN;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

double bf16_value(std::uint16_t bits) {
  const double sign = (bits & 0x8000u) != 0 ? -1.0 : 1.0;
  const int exponent = (bits >> 7) & 0xff;
  const int mantissa = bits & 0x7f;
  if (exponent == 0xff) return mantissa == 0 ? sign * INFINITY : NAN;
  if (exponent == 0) return sign * std::ldexp(mantissa, -133);
  return sign * std::ldexp(128 + mantissa, exponent - 134);
}

float f32_of_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

// Round-to-nearest-even, checked against the definition: the result is at
// least as close to x as either neighbour, a tie goes to the even pattern,
// and overflow goes to infinity exactly from the halfway point on.
void check_rounding(std::uint32_t x_bits, std::uint16_t result, double (*value_of)(std::uint16_t),
                    std::uint16_t largest_finite, std::uint16_t infinity) {
  const double x = f32_of_bits(x_bits);
  const std::uint16_t sign = (x_bits & 0x8000'0000u) != 0 ? 0x8000u : 0u;
  const std::uint16_t magnitude = result & 0x7fffu;
  INFO("f32 bits 0x" << std::hex << x_bits << " -> 0x" << result);
  REQUIRE((result & 0x8000u) == sign);
  const double largest = value_of(largest_finite);
  const double overflow_point = largest + (largest - value_of(largest_finite - 1)) / 2;
  if (std::fabs(x) >= overflow_point) {
    REQUIRE(magnitude == infinity);
    return;
  }
  REQUIRE(magnitude <= largest_finite);
  const double error = std::fabs(x - value_of(result));
  for (const int step : {-1, 1}) {
    const int neighbour = magnitude + step;
    if (neighbour < 0 || neighbour > largest_finite) continue;
    const double neighbour_error = std::fabs(x - value_of(static_cast<std::uint16_t>(sign | neighbour)));
    REQUIRE(error <= neighbour_error);
    if (error == neighbour_error) REQUIRE((magnitude & 1u) == 0);
  }
}

// f32 patterns worth checking: a stride over all 2^32 plus the neighbourhood
// of every boundary the conversions special-case.
std::vector<std::uint32_t> sample_f32_patterns() {
  std::vector<std::uint32_t> patterns;
  for (std::uint64_t bits = 0; bits <= 0xffff'ffffu; bits += 65'521) patterns.push_back(static_cast<std::uint32_t>(bits));
  for (const std::uint32_t boundary : {0x0000'0000u, 0x3300'0000u, 0x3380'0000u, 0x3880'0000u, 0x387f'e000u,
                                       0x477f'e000u, 0x477f'f000u, 0x4780'0000u, 0x7f7f'8000u, 0x7f7f'ffffu,
                                       0x7f80'0000u, 0x3f80'0000u, 0x3f80'8000u, 0x3f81'8000u, 0x3f80'1000u}) {
    for (std::uint32_t delta = 0; delta < 4096; ++delta) {
      patterns.push_back(boundary + delta);
      patterns.push_back(boundary - delta);
      patterns.push_back((boundary + delta) | 0x8000'0000u);
    }
  }
  return patterns;
}

std::vector<std::byte> bytes_of_u16(const std::vector<std::uint16_t>& values) {
  std::vector<std::byte> bytes(values.size() * 2);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<std::byte> bytes_of_f32(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<std::byte> bytes_of(std::span<const std::byte> span) { return {span.begin(), span.end()}; }

std::vector<std::uint16_t> u16_of(std::span<const std::byte> bytes) {
  std::vector<std::uint16_t> values(bytes.size() / 2);
  std::memcpy(values.data(), bytes.data(), values.size() * 2);
  return values;
}

// ---- resident writer fixtures -------------------------------------------

const json kSource = {{"config_sha256", "ab12"}, {"files", {"model.safetensors"}}};
const json kFacts = {{"family", "llama"}, {"hidden_size", 8}};

// A few tensors of every source dtype, shapes chosen to need padding.
struct SourceTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  Dtype dtype;
  std::vector<std::byte> bytes;
};

std::vector<SourceTensor> source_tensors() {
  std::vector<std::uint16_t> bf16_values;
  std::vector<std::uint16_t> f16_values;
  for (std::uint16_t i = 0; i < 300; ++i) {
    bf16_values.push_back(static_cast<std::uint16_t>(0x3f80u + i * 37u));
    f16_values.push_back(static_cast<std::uint16_t>(0x3c00u + i * 41u));
  }
  return {
      {"z.f32", {3, 5}, Dtype::F32, bytes_of_f32({1.0f, -2.0f, 0.1f, 3.14159f, 1e-40f, 65519.0f, 65520.0f, 1e30f,
                                                   -0.0f, 0.5f, 1.0f / 3.0f, 7.0f, 1e-8f, -1e-5f, 2.0f})},
      {"a.bf16", {300}, Dtype::BF16, bytes_of_u16(bf16_values)},
      {"m.f16", {10, 30}, Dtype::F16, bytes_of_u16(f16_values)},
      {"e.empty", {0, 4}, Dtype::F32, {}},
  };
}

// What the writer must produce for one source tensor in `target`.
std::vector<std::byte> expected_bytes(const SourceTensor& tensor, Dtype target) {
  std::vector<std::byte> out(tensor.bytes.size() / dtype_element_size(tensor.dtype) * dtype_element_size(target));
  convert_elements(tensor.dtype, tensor.bytes, target, out);
  return out;
}

void write_resident(const fs::path& out, Dtype dtype, const json& source = kSource) {
  ResidentWriter writer(out, dtype, source, kFacts);
  for (const SourceTensor& tensor : source_tensors()) writer.add_tensor(tensor.name, tensor.shape, tensor.dtype, tensor.bytes);
  writer.commit();
}

std::vector<std::string> siblings_of(const fs::path& out) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(out.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name != out.filename().string()) names.push_back(name);
  }
  return names;
}

json read_json(const fs::path& path) { return json::parse(read_file(path)); }

void flip_byte(const fs::path& path, std::size_t offset) {
  std::string bytes = read_file(path);
  REQUIRE(offset < bytes.size());
  bytes[offset] = static_cast<char>(bytes[offset] ^ 0x01);
  write_file(path, bytes);
}

pid_t pid_of_finished_process() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return child;
}

}  // namespace

// ---- conversions ----------------------------------------------------------

TEST_CASE("bf16 -> f32 -> bf16 is the identity for all 65536 patterns", "[resident][dtype]") {
  std::size_t mismatches = 0;
  std::size_t nans = 0;
  for (std::uint32_t pattern = 0; pattern <= 0xffff; ++pattern) {
    const auto bf16 = static_cast<std::uint16_t>(pattern);
    const std::uint32_t f32 = bf16_to_f32_bits(bf16);
    const std::uint16_t back = f32_bits_to_bf16(f32);
    if (is_bf16_nan(bf16)) {
      // A NaN keeps sign and payload; a signalling one comes back quiet.
      ++nans;
      if (back != (bf16 | 0x0040u) || !std::isnan(f32_of_bits(f32))) ++mismatches;
    } else {
      const double value = bf16_value(bf16);
      if (back != bf16 || static_cast<double>(f32_of_bits(f32)) != value) ++mismatches;
      if (value == 0.0 && std::signbit(f32_of_bits(f32)) != ((bf16 & 0x8000u) != 0)) ++mismatches;
    }
  }
  CHECK(nans == 2 * 127);
  CHECK(mismatches == 0);
}

TEST_CASE("f16 -> f32 -> f16 is the identity for all 65536 patterns", "[resident][dtype]") {
  std::size_t mismatches = 0;
  std::size_t nans = 0;
  for (std::uint32_t pattern = 0; pattern <= 0xffff; ++pattern) {
    const auto f16 = static_cast<std::uint16_t>(pattern);
    const std::uint32_t f32 = f16_to_f32_bits(f16);
    const std::uint16_t back = f32_bits_to_f16(f32);
    if (is_f16_nan(f16)) {
      ++nans;
      if (back != (f16 | 0x0200u) || !std::isnan(f32_of_bits(f32))) ++mismatches;
    } else {
      const double value = f16_value(f16);
      if (back != f16 || static_cast<double>(f32_of_bits(f32)) != value) ++mismatches;
      if (value == 0.0 && std::signbit(f32_of_bits(f32)) != ((f16 & 0x8000u) != 0)) ++mismatches;
    }
  }
  CHECK(nans == 2 * 1023);
  CHECK(mismatches == 0);
}

TEST_CASE("f32 -> bf16 and f32 -> f16 round to nearest, ties to even", "[resident][dtype]") {
  for (const std::uint32_t bits : sample_f32_patterns()) {
    if (std::isnan(f32_of_bits(bits))) continue;
    check_rounding(bits, f32_bits_to_bf16(bits), bf16_value, 0x7f7f, 0x7f80);
    check_rounding(bits, f32_bits_to_f16(bits), f16_value, 0x7bff, 0x7c00);
  }
}

#if defined(__FLT16_MAX__)
TEST_CASE("f32 -> f16 agrees with the compiler's _Float16 conversion", "[resident][dtype]") {
  for (const std::uint32_t bits : sample_f32_patterns()) {
    const float value = f32_of_bits(bits);
    if (std::isnan(value)) continue;
    const auto reference = std::bit_cast<std::uint16_t>(static_cast<_Float16>(value));
    INFO("f32 bits 0x" << std::hex << bits);
    REQUIRE(f32_bits_to_f16(bits) == reference);
  }
}
#endif

TEST_CASE("conversion edge values", "[resident][dtype]") {
  CHECK(f32_bits_to_bf16(0x3f80'0000u) == 0x3f80);  // 1.0
  CHECK(f32_bits_to_bf16(0x3f80'8000u) == 0x3f80);  // tie, even stays
  CHECK(f32_bits_to_bf16(0x3f81'8000u) == 0x3f82);  // tie, odd rounds up
  CHECK(f32_bits_to_bf16(0x3f80'8001u) == 0x3f81);  // above the tie
  CHECK(f32_bits_to_bf16(0x7f7f'ffffu) == 0x7f80);  // f32 max overflows to inf
  CHECK(f32_bits_to_bf16(0xff80'0000u) == 0xff80);  // -inf
  CHECK(f32_bits_to_bf16(0x7fa0'0000u) == 0x7fe0);  // signalling NaN comes back quiet
  CHECK(f32_bits_to_bf16(0x7f80'0001u) == 0x7fc0);  // payload only in low bits: still NaN, not inf
  CHECK(f32_bits_to_bf16(0xffc0'0000u) == 0xffc0);  // negative quiet NaN keeps its sign

  CHECK(f32_bits_to_f16(0x3f80'0000u) == 0x3c00);   // 1.0
  CHECK(f32_bits_to_f16(0x477f'e000u) == 0x7bff);   // 65504, the largest f16
  CHECK(f32_bits_to_f16(0x477f'efffu) == 0x7bff);   // just below 65520
  CHECK(f32_bits_to_f16(0x477f'f000u) == 0x7c00);   // 65520 ties to inf
  CHECK(f32_bits_to_f16(0xc780'0000u) == 0xfc00);   // -65536 -> -inf
  CHECK(f32_bits_to_f16(0x3380'0000u) == 0x0001);   // 2^-24, smallest subnormal
  CHECK(f32_bits_to_f16(0x3300'0000u) == 0x0000);   // 2^-25 ties to zero
  CHECK(f32_bits_to_f16(0x3300'0001u) == 0x0001);   // just above rounds up
  CHECK(f32_bits_to_f16(0x33c0'0000u) == 0x0002);   // 3 * 2^-25 ties to even 2 * 2^-24
  CHECK(f32_bits_to_f16(0x387f'f000u) == 0x0400);   // rounds up into the smallest normal
  CHECK(f32_bits_to_f16(0x8000'0001u) == 0x8000);   // tiny negative keeps its sign
  CHECK(f32_bits_to_f16(0x7fa0'0000u) == 0x7f00);   // signalling NaN comes back quiet
  CHECK(f32_bits_to_f16(0x7f80'0001u) == 0x7e00);   // payload only in low bits: still NaN

  CHECK(f16_to_f32_bits(0x0001) == 0x3380'0000u);  // subnormal upcast is exact
  CHECK(f16_to_f32_bits(0x7c00) == 0x7f80'0000u);
  CHECK(f16_to_f32_bits(0xfd01) == 0xffa0'2000u);  // signalling NaN payload kept on upcast
}

TEST_CASE("element buffers convert between F32, BF16 and F16", "[resident][dtype]") {
  const std::vector<std::uint16_t> f16 = {0x3c00, 0x7bff, 0x0001, 0xc000, 0x7e00};
  std::vector<std::byte> bf16(f16.size() * 2);
  convert_elements(Dtype::F16, bytes_of_u16(f16), Dtype::BF16, bf16);
  // 1.0; 65504 rounds to 65536 in bf16; 2^-24; -2.0; quiet NaN.
  CHECK(u16_of(bf16) == std::vector<std::uint16_t>{0x3f80, 0x4780, 0x3380, 0xc000, 0x7fc0});

  std::vector<std::byte> back(f16.size() * 2);
  convert_elements(Dtype::BF16, bytes_of_u16({0x3f80, 0x7f7f, 0x3380, 0xc000, 0x0001}), Dtype::F16, back);
  // bf16 max overflows f16; a bf16 subnormal underflows to zero.
  CHECK(u16_of(back) == std::vector<std::uint16_t>{0x3c00, 0x7c00, 0x0001, 0xc000, 0x0000});

  std::vector<std::byte> same(4);
  convert_elements(Dtype::F32, bytes_of_f32({1.5f}), Dtype::F32, same);
  CHECK(same == bytes_of_f32({1.5f}));

  std::vector<std::byte> wrong_size(3);
  CHECK_THROWS_AS(convert_elements(Dtype::F32, bytes_of_f32({1.0f}), Dtype::BF16, wrong_size), std::invalid_argument);
  CHECK_THROWS_AS(convert_elements(Dtype::I32, bytes_of_f32({1.0f}), Dtype::F32, same), std::invalid_argument);
  CHECK_THROWS_AS(convert_elements(Dtype::F16, std::vector<std::byte>(3), Dtype::F32, wrong_size),
                  std::invalid_argument);
}

// ---- writer and reader ----------------------------------------------------

TEST_CASE("resident round trip in every target dtype", "[resident]") {
  for (const Dtype target : {Dtype::F32, Dtype::BF16, Dtype::F16}) {
    const std::string target_name(*resident_dtype_name(target));
    DYNAMIC_SECTION(target_name) {
      TempDir dir;
      const fs::path out = dir.path() / "resident";
      write_resident(out, target);
      const ResidentCheckpoint checkpoint = ResidentCheckpoint::open(out, true);
      CHECK(checkpoint.dtype() == target);
      CHECK(checkpoint.source_json() == kSource);
      CHECK(checkpoint.facts_json() == kFacts);
      REQUIRE(checkpoint.tensors().size() == 4);
      CHECK(checkpoint.tensors()[0].name == "a.bf16");  // sorted by name
      CHECK(checkpoint.tensors()[3].name == "z.f32");

      for (const SourceTensor& source : source_tensors()) {
        INFO(source.name);
        const ResidentTensor tensor = checkpoint.tensor(source.name);
        CHECK(tensor.info.shape == source.shape);
        CHECK(tensor.info.dtype == target);
        CHECK(bytes_of(tensor.bytes) == expected_bytes(source, target));
        if (source.dtype == target) CHECK(bytes_of(tensor.bytes) == source.bytes);  // untouched
        if (target == Dtype::F32 && source.dtype != Dtype::F32) {
          // Upcasts are exact: converting back gives the source bits.
          std::vector<std::byte> back(source.bytes.size());
          convert_elements(Dtype::F32, tensor.bytes, source.dtype, back);
          CHECK(back == source.bytes);
        }
      }
      REQUIRE_THROWS_WITH(checkpoint.tensor("absent"), Contains("tensor \"absent\"") && Contains("not in this resident"));
    }
  }
}

TEST_CASE("f32 sources reach half precision with the documented rounding", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  {
    ResidentWriter writer(out, Dtype::F16, kSource, kFacts);
    writer.add_tensor("w", std::vector<std::int64_t>{4}, Dtype::F32, bytes_of_f32({1.0f, 65520.0f, 1e-8f, -0.0f}));
    writer.commit();
  }
  const ResidentCheckpoint checkpoint = ResidentCheckpoint::open(out, true);
  CHECK(u16_of(checkpoint.tensor("w").bytes) == std::vector<std::uint16_t>{0x3c00, 0x7c00, 0x0000, 0x8000});
}

TEST_CASE("every tensor starts 256-byte aligned with zero padding between", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  write_resident(out, Dtype::BF16);
  const ResidentCheckpoint checkpoint = ResidentCheckpoint::open(out, false);
  const std::span<const std::byte> blob = checkpoint.blob();
  std::vector<bool> owned(blob.size(), false);
  for (const ResidentTensorInfo& info : checkpoint.tensors()) {
    INFO(info.name);
    CHECK(info.offset % 256 == 0);
    CHECK(reinterpret_cast<std::uintptr_t>(checkpoint.tensor(info.name).bytes.data()) % 256 == 0);
    for (std::uint64_t i = info.offset; i < info.offset + info.size; ++i) owned[i] = true;
  }
  for (std::size_t i = 0; i < blob.size(); ++i) {
    if (!owned[i]) REQUIRE(blob[i] == std::byte{0});
  }
  // Written in add order, so z.f32 (30 bytes) forces padding before a.bf16.
  CHECK(checkpoint.tensor("a.bf16").info.offset == 256);
}

TEST_CASE("the manifest says what the format promises", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  write_resident(out, Dtype::BF16);
  const json manifest = read_json(out / "manifest.json");
  CHECK(manifest.at("format") == "algenta.resident/1");
  CHECK(manifest.at("dtype") == "bf16");
  CHECK(manifest.at("alignment") == 256);
  CHECK(manifest.at("blob").at("file") == "weights.blob");
  const std::string blob = read_file(out / "weights.blob");
  CHECK(manifest.at("blob").at("size") == blob.size());
  CHECK(manifest.at("blob").at("sha256") == algenta::manifest::sha256_hex(blob));
  CHECK(manifest.at("source") == kSource);
  CHECK(manifest.at("facts") == kFacts);
  const json& tensors = manifest.at("tensors");
  REQUIRE(tensors.size() == 4);
  CHECK(tensors[1] == json{{"name", "e.empty"}, {"dtype", "bf16"}, {"shape", {0, 4}},
                           {"offset", tensors[1].at("offset")}, {"size", 0}});
  CHECK(tensors[3].at("size") == 15 * 2);
  CHECK(fs::is_regular_file(out / "weights.blob"));
  CHECK(siblings_of(out).empty());  // no temporary or retired directory left
}

TEST_CASE("side files are copied through unchanged", "[resident]") {
  TempDir dir;
  const fs::path source = dir.path() / "hf";
  fs::create_directory(source);
  write_file(source / "config.json", "{\"model_type\": \"llama\"}");
  write_file(source / "tokenizer.json", "{\"model\": {}}");
  write_file(source / "chat_template.jinja", "{{ bos_token }}\r\n");
  write_file(source / "unrelated.txt", "x");
  const fs::path out = dir.path() / "resident";
  ResidentWriter writer(out, Dtype::F32, kSource, kFacts);
  CHECK(writer.add_side_files_from(source) == 3);  // the absent ones are skipped
  REQUIRE_THROWS_WITH(writer.add_side_file(source / "config.json"), Contains("side file twice"));
  write_file(source / "manifest.json", "{}");
  REQUIRE_THROWS_WITH(writer.add_side_file(source / "manifest.json"), Contains("reserved"));
  REQUIRE_THROWS_WITH(writer.add_side_file(source / "absent.json"), Contains("cannot be opened"));
  writer.commit();
  CHECK(read_file(out / "config.json") == "{\"model_type\": \"llama\"}");
  CHECK(read_file(out / "tokenizer.json") == "{\"model\": {}}");
  CHECK(read_file(out / "chat_template.jinja") == "{{ bos_token }}\r\n");
  CHECK_FALSE(fs::exists(out / "unrelated.txt"));
  CHECK(read_json(out / "manifest.json").at("tensors").empty());
}

TEST_CASE("the writer refuses bad tensors and stays usable", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  ResidentWriter writer(out, Dtype::BF16, kSource, kFacts);
  const std::vector<std::int64_t> shape = {2};
  writer.add_tensor("ok", shape, Dtype::F32, bytes_of_f32({1.0f, 2.0f}));
  REQUIRE_THROWS_WITH(writer.add_tensor("ok", shape, Dtype::F32, bytes_of_f32({1.0f, 2.0f})),
                      Contains("tensor \"ok\"") && Contains("added twice"));
  REQUIRE_THROWS_WITH(writer.add_tensor("short", shape, Dtype::F32, bytes_of_f32({1.0f})),
                      Contains("tensor \"short\"") && Contains("holds 4 bytes but 2 elements of F32 need 8"));
  REQUIRE_THROWS_WITH(writer.add_tensor("ints", shape, Dtype::I32, bytes_of_f32({1.0f, 2.0f})),
                      Contains("tensor \"ints\"") && Contains("dtype I32, which cannot be converted to BF16"));
  REQUIRE_THROWS_WITH(writer.add_tensor("neg", std::vector<std::int64_t>{-2}, Dtype::F32, {}),
                      Contains("tensor \"neg\"") && Contains("negative dimension -2"));
  REQUIRE_THROWS_WITH(writer.add_tensor("", shape, Dtype::F32, bytes_of_f32({1.0f, 2.0f})), Contains("empty name"));
  REQUIRE_THROWS_WITH(writer.add_tensor("bad\xff", shape, Dtype::F32, bytes_of_f32({1.0f, 2.0f})),
                      Contains("not valid UTF-8"));
  writer.commit();
  const ResidentCheckpoint checkpoint = ResidentCheckpoint::open(out, true);
  REQUIRE(checkpoint.tensors().size() == 1);
  CHECK(u16_of(checkpoint.tensor("ok").bytes) == std::vector<std::uint16_t>{0x3f80, 0x4000});
  CHECK_THROWS_AS(writer.commit(), std::logic_error);
}

TEST_CASE("the writer refuses bad arguments before touching the disk", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  REQUIRE_THROWS_WITH(ResidentWriter(out, Dtype::I8, kSource, kFacts),
                      Contains(out.string()) && Contains("target dtype I8 is not a resident dtype"));
  REQUIRE_THROWS_WITH(ResidentWriter(out, Dtype::F32, json::array(), kFacts), Contains("source must be a JSON object"));
  REQUIRE_THROWS_WITH(ResidentWriter(out, Dtype::F32, kSource, "x"), Contains("facts must be a JSON object"));
  REQUIRE_THROWS_WITH(ResidentWriter("", Dtype::F32, kSource, kFacts), Contains("output directory path is empty"));
  CHECK(siblings_of(out).empty());
}

TEST_CASE("only an empty directory or an earlier resident output is replaced", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "out";
  fs::create_directory(out);
  SECTION("an empty directory") {
    write_resident(out, Dtype::F32);
    CHECK(resident_is_current(out, kSource, Dtype::F32));
  }
  SECTION("a directory holding something else, e.g. the source checkpoint") {
    write_file(out / "model.safetensors", "weights");
    REQUIRE_THROWS_WITH(ResidentWriter(out, Dtype::F32, kSource, kFacts),
                        Contains(out.string()) && Contains("is not a resident checkpoint") &&
                            Contains("refusing to replace it"));
    CHECK(read_file(out / "model.safetensors") == "weights");
  }
  SECTION("a file in its place") {
    fs::remove(out);
    write_file(out, "x");
    REQUIRE_THROWS_WITH(ResidentWriter(out, Dtype::F32, kSource, kFacts), Contains("is not a resident checkpoint"));
  }
  SECTION("something else appears there while writing") {
    ResidentWriter writer(out, Dtype::F32, kSource, kFacts);
    write_file(out / "notes.txt", "mine");
    REQUIRE_THROWS_WITH(writer.commit(), Contains("refusing to replace it"));
    CHECK(read_file(out / "notes.txt") == "mine");
  }
  CHECK(siblings_of(out).empty());
}

TEST_CASE("progress counts source bytes up to the announced total", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  // 1.5M elements: more than one conversion chunk.
  const std::vector<float> big(1'500'000, 0.25f);
  const std::vector<std::byte> big_bytes = bytes_of_f32(big);
  const std::uint64_t total = big_bytes.size() + 8;
  std::vector<WriteProgress> reports;
  ResidentWriter writer(out, Dtype::BF16, kSource, kFacts);
  writer.set_progress(total, [&reports](const WriteProgress& progress) { reports.push_back(progress); });
  writer.add_tensor("big", std::vector<std::int64_t>{1500, 1000}, Dtype::F32, big_bytes);
  writer.add_tensor("small", std::vector<std::int64_t>{2}, Dtype::F32, bytes_of_f32({1.0f, 2.0f}));
  writer.commit();
  REQUIRE(reports.size() >= 3);
  for (std::size_t i = 1; i < reports.size(); ++i) CHECK(reports[i].bytes_done > reports[i - 1].bytes_done);
  CHECK(reports.back().bytes_done == total);
  CHECK(reports.back().bytes_total == total);
  const ResidentCheckpoint checkpoint = ResidentCheckpoint::open(out, true);
  const std::vector<std::uint16_t> converted = u16_of(checkpoint.tensor("big").bytes);
  CHECK(std::all_of(converted.begin(), converted.end(), [](std::uint16_t v) { return v == 0x3e80; }));
}

TEST_CASE("a flipped blob byte fails the checksum, naming both digests", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  write_resident(out, Dtype::F16);
  const std::string recorded = read_json(out / "manifest.json").at("blob").at("sha256");
  flip_byte(out / "weights.blob", 300);
  const std::string actual = algenta::manifest::sha256_hex(read_file(out / "weights.blob"));
  REQUIRE_THROWS_WITH(ResidentCheckpoint::open(out, true),
                      Contains("weights.blob") && Contains("has sha256 " + actual) && Contains("says " + recorded));
  CHECK_NOTHROW(ResidentCheckpoint::open(out, false));  // size unchanged: only the hash can tell
}

TEST_CASE("a blob whose size differs from the manifest is refused", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  write_resident(out, Dtype::F16);
  write_file(out / "weights.blob", read_file(out / "weights.blob") + "x");
  REQUIRE_THROWS_WITH(ResidentCheckpoint::open(out, false), Contains("weights.blob") && Contains("bytes but"));
  CHECK_FALSE(resident_is_current(out, kSource, Dtype::F16));
}

TEST_CASE("the reader refuses a manifest that breaks the format", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  write_resident(out, Dtype::BF16);
  const json good = read_json(out / "manifest.json");
  const auto index_of = [&good](const std::string& name) {
    for (std::size_t i = 0; i < good.at("tensors").size(); ++i) {
      if (good.at("tensors")[i].at("name") == name) return i;
    }
    FAIL("no tensor " << name);
    return std::size_t{0};
  };
  const std::size_t m = index_of("m.f16");
  const std::size_t z = index_of("z.f32");

  struct Breakage {
    std::string label;
    std::function<void(json&)> edit;
    std::vector<std::string> expected;
  };
  const std::vector<Breakage> breakages = {
      {"unknown format", [](json& j) { j["format"] = "algenta.resident/2"; },
       {"format \"algenta.resident/2\" is unknown", "allowed: \"algenta.resident/1\""}},
      {"unknown dtype", [](json& j) { j["dtype"] = "f8"; }, {"dtype \"f8\" is unknown"}},
      {"other alignment", [](json& j) { j["alignment"] = 128; }, {"alignment 128 is not supported"}},
      {"unknown top-level key", [](json& j) { j["extra"] = 1; }, {"unknown key \"extra\""}},
      {"missing facts", [](json& j) { j.erase("facts"); }, {"lacks \"facts\""}},
      {"source not an object", [](json& j) { j["source"] = "x"; }, {"source must be an object"}},
      {"another blob file", [](json& j) { j["blob"]["file"] = "../weights.blob"; }, {"blob.file"}},
      {"bad sha256 text", [](json& j) { j["blob"]["sha256"] = "ABC"; }, {"not 64 lowercase hex digits"}},
      {"misaligned offset", [m](json& j) { j["tensors"][m]["offset"] = j["tensors"][m]["offset"].get<int>() + 2; },
       {"tensor \"m.f16\"", "is not a multiple of the alignment 256"}},
      {"out of range", [m](json& j) { j["tensors"][m]["offset"] = 1u << 20; },
       {"tensor \"m.f16\"", "end beyond the blob"}},
      {"huge offset does not wrap", [m](json& j) { j["tensors"][m]["offset"] = ~std::uint64_t{0} - 255; },
       {"tensor \"m.f16\"", "end beyond the blob"}},
      {"overlapping", [m, z](json& j) { j["tensors"][m]["offset"] = j["tensors"][z]["offset"]; },
       {"overlap tensor", "\"m.f16\"", "\"z.f32\""}},
      {"size differs from shape", [m](json& j) { j["tensors"][m]["size"] = 598; },
       {"tensor \"m.f16\"", "size 598 differs from shape * dtype = 600 bytes"}},
      {"tensor dtype differs", [m](json& j) { j["tensors"][m]["dtype"] = "f32"; },
       {"tensor \"m.f16\"", "differs from the checkpoint's \"bf16\""}},
      {"negative dimension", [m](json& j) { j["tensors"][m]["shape"] = {-10, 30}; },
       {"tensor \"m.f16\"", "a shape dimension must be a non-negative integer"}},
      {"unknown tensor key", [m](json& j) { j["tensors"][m]["stride"] = 1; }, {"unknown key \"stride\""}},
      {"not sorted", [](json& j) { std::swap(j["tensors"][0], j["tensors"][1]); }, {"sorted by name"}},
      {"repeated tensor", [](json& j) { j["tensors"][1] = j["tensors"][0]; }, {"listed once each"}},
  };
  for (const Breakage& breakage : breakages) {
    DYNAMIC_SECTION(breakage.label) {
      json broken = good;
      breakage.edit(broken);
      write_file(out / "manifest.json", broken.dump(2));
      try {
        (void)ResidentCheckpoint::open(out, false);
        FAIL("accepted");
      } catch (const CheckpointError& error) {
        CHECK_THAT(error.what(), Contains("manifest.json"));
        for (const std::string& fragment : breakage.expected) CHECK_THAT(error.what(), Contains(fragment));
      }
      CHECK_FALSE(resident_is_current(out, kSource, Dtype::BF16));
    }
  }
  SECTION("a repeated key") {
    std::string text = good.dump();
    text.insert(1, "\"dtype\":\"bf16\",");
    write_file(out / "manifest.json", text);
    REQUIRE_THROWS_WITH(ResidentCheckpoint::open(out, false), Contains("key \"dtype\" appears more than once"));
  }
}

TEST_CASE("an interrupted write leaves no output and no temporary directory", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  {
    ResidentWriter writer(out, Dtype::BF16, kSource, kFacts);
    writer.add_tensor("w", std::vector<std::int64_t>{2}, Dtype::F32, bytes_of_f32({1.0f, 2.0f}));
    CHECK(fs::is_directory(dir.path() / ("resident.tmp-" + std::to_string(::getpid()))));
  }  // destroyed without commit
  CHECK_FALSE(fs::exists(out));
  CHECK(siblings_of(out).empty());

  SECTION("an existing output survives an interrupted replacement") {
    write_resident(out, Dtype::BF16);
    const std::string manifest_before = read_file(out / "manifest.json");
    {
      ResidentWriter writer(out, Dtype::F32, kSource, kFacts);
      writer.add_tensor("other", std::vector<std::int64_t>{1}, Dtype::F32, bytes_of_f32({1.0f}));
    }
    CHECK(read_file(out / "manifest.json") == manifest_before);
    CHECK(siblings_of(out).empty());
  }
}

TEST_CASE("leftovers of dead runs are removed by the next writer", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  const pid_t dead = pid_of_finished_process();
  const fs::path dead_staging = dir.path() / ("resident.tmp-" + std::to_string(dead));
  const fs::path dead_retired = dir.path() / ("resident.old-" + std::to_string(dead));
  const fs::path live_staging = dir.path() / ("resident.tmp-" + std::to_string(::getppid()));
  const fs::path unrelated = dir.path() / "resident.tmp-notapid";
  for (const fs::path& path : {dead_staging, dead_retired, live_staging, unrelated}) {
    fs::create_directory(path);
    write_file(path / "weights.blob", "half-written");
  }
  ResidentWriter writer(out, Dtype::BF16, kSource, kFacts);
  CHECK_FALSE(fs::exists(dead_staging));
  CHECK_FALSE(fs::exists(dead_retired));
  CHECK(fs::exists(live_staging));  // its process may still be writing
  CHECK(fs::exists(unrelated));
  writer.commit();
  CHECK(fs::exists(out / "manifest.json"));
}

TEST_CASE("resident_is_current tells when preparing again would change nothing", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  CHECK_FALSE(resident_is_current(out, kSource, Dtype::BF16));  // absent
  write_resident(out, Dtype::BF16);
  CHECK(resident_is_current(out, kSource, Dtype::BF16));
  CHECK_FALSE(resident_is_current(out, kSource, Dtype::F16));
  json other_source = kSource;
  other_source["config_sha256"] = "cd34";
  CHECK_FALSE(resident_is_current(out, other_source, Dtype::BF16));
  fs::resize_file(out / "weights.blob", fs::file_size(out / "weights.blob") - 1);
  CHECK_FALSE(resident_is_current(out, kSource, Dtype::BF16));
}

TEST_CASE("committing over an existing output replaces it whole", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "resident";
  write_resident(out, Dtype::BF16);
  write_file(out / "stale.txt", "from the old version");
  json new_source = kSource;
  new_source["config_sha256"] = "ef56";
  write_resident(out, Dtype::F16, new_source);
  const ResidentCheckpoint checkpoint = ResidentCheckpoint::open(out, true);
  CHECK(checkpoint.dtype() == Dtype::F16);
  CHECK(checkpoint.source_json() == new_source);
  CHECK_FALSE(fs::exists(out / "stale.txt"));
  CHECK(siblings_of(out).empty());
  CHECK(resident_is_current(out, new_source, Dtype::F16));
}

TEST_CASE("an output path with a trailing separator names the same directory", "[resident]") {
  TempDir dir;
  const fs::path out = dir.path() / "nested" / "resident";
  write_resident(fs::path(out.string() + "/"), Dtype::F32);
  CHECK(fs::is_regular_file(out / "manifest.json"));
  CHECK(siblings_of(out).empty());
}
