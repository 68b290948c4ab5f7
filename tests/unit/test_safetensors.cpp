// The strict safetensors reader: files built byte by byte here, read back
// exactly; every malformed header refused with the tensor and the fact.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/safetensors.hpp"
#include "checkpoint/sharded_checkpoint.hpp"
#include "support/bundle_fixture.hpp"

using namespace algenta::checkpoint;
using algenta::test::TempDir;
using algenta::test::write_file;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

std::string little_endian_u64(std::uint64_t value) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xff);
  return bytes;
}

// A file as the format lays it out: length, header text, data region.
std::string safetensors_bytes(const std::string& header, const std::string& data) {
  return little_endian_u64(header.size()) + header + data;
}

struct TensorSpec {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::string bytes;
};

// Header for `tensors` laid out back to back in the given order.
std::string header_for(const std::vector<TensorSpec>& tensors,
                       const std::map<std::string, std::string>& metadata = {}) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const TensorSpec& tensor : tensors) {
    header[tensor.name] = {{"dtype", tensor.dtype},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, offset + tensor.bytes.size()}}};
    offset += tensor.bytes.size();
  }
  return header.dump();
}

std::string data_for(const std::vector<TensorSpec>& tensors) {
  std::string data;
  for (const TensorSpec& tensor : tensors) data += tensor.bytes;
  return data;
}

void write_safetensors(const fs::path& path, const std::vector<TensorSpec>& tensors,
                       const std::map<std::string, std::string>& metadata = {}) {
  write_file(path, safetensors_bytes(header_for(tensors, metadata), data_for(tensors)));
}

std::string f32_bytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::string counting_bytes(std::size_t count, unsigned char first) {
  std::string bytes(count, '\0');
  for (std::size_t i = 0; i < count; ++i) bytes[i] = static_cast<char>(first + i);
  return bytes;
}

std::string as_string(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// One entry of a header, for hand-written malformed ones.
std::string entry(const std::string& name, const std::string& dtype, const std::string& shape,
                  const std::string& offsets) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}";
}

const std::vector<TensorSpec> kTwoTensors = {
    {"model.embed.weight", "F32", {2, 2}, f32_bytes({1.0f, -2.5f, 3.25f, 1e-30f})},
    {"model.norm.weight", "BF16", {3}, counting_bytes(6, 0x10)},
};

}  // namespace

TEST_CASE("a well-formed file reads back exactly", "[safetensors]") {
  TempDir dir;
  const fs::path path = dir.path() / "model.safetensors";
  write_safetensors(path, kTwoTensors, {{"format", "pt"}});

  for (const auto access : {SafetensorsAccess::map_data, SafetensorsAccess::header_only}) {
    const SafetensorsFile file = SafetensorsFile::open(path, access);
    CHECK(file.name() == path.string());
    REQUIRE(file.tensors().size() == 2);
    CHECK(file.header().metadata() == std::map<std::string, std::string>{{"format", "pt"}});

    const TensorInfo& embed = file.tensor("model.embed.weight");
    CHECK(embed.dtype == Dtype::F32);
    CHECK(dtype_name(embed.dtype) == "F32");
    CHECK(dtype_element_size(embed.dtype) == 4);
    CHECK(embed.shape == std::vector<std::int64_t>{2, 2});
    CHECK(embed.data_begin == 0);
    CHECK(embed.data_end == 16);

    const TensorInfo& norm = file.tensor("model.norm.weight");
    CHECK(norm.dtype == Dtype::BF16);
    CHECK(norm.shape == std::vector<std::int64_t>{3});
    CHECK(norm.data_begin == 16);
    CHECK(norm.data_end == 22);
    CHECK(file.find("missing") == nullptr);
    REQUIRE_THROWS_WITH(file.tensor("missing"), Contains(path.string()) && Contains("tensor \"missing\"") &&
                                                    Contains("is not in this file"));

    if (access == SafetensorsAccess::map_data) {
      REQUIRE(file.has_data());
      CHECK(as_string(file.data(embed)) == kTwoTensors[0].bytes);
      CHECK(as_string(file.data(norm)) == kTwoTensors[1].bytes);
    } else {
      CHECK_FALSE(file.has_data());
      REQUIRE_THROWS_WITH(file.data(embed), Contains("header-only"));
    }
  }
}

TEST_CASE("tensors are reported in data order whatever the key order", "[safetensors]") {
  // JSON keys come back sorted by name; here the name order is the reverse
  // of the data order.
  const std::string header = "{" + entry("a", "U8", "[2]", "[4,6]") + "," + entry("b", "U8", "[4]", "[0,4]") + "}";
  const SafetensorsHeader parsed = parse_safetensors_header(header, 6, "x.safetensors");
  REQUIRE(parsed.tensors().size() == 2);
  CHECK(parsed.tensors()[0].name == "b");
  CHECK(parsed.tensors()[1].name == "a");
  REQUIRE(parsed.find("a") != nullptr);
  CHECK(parsed.find("a")->data_begin == 4);
}

TEST_CASE("edge cases the format allows", "[safetensors]") {
  SECTION("trailing space padding after the JSON") {
    const std::string header = "{" + entry("a", "I8", "[2]", "[0,2]") + "}    ";
    CHECK(parse_safetensors_header(header, 2, "f").tensors().size() == 1);
  }
  SECTION("no tensors and an empty data region") {
    CHECK(parse_safetensors_header("{}", 0, "f").tensors().empty());
  }
  SECTION("a scalar and empty tensors") {
    const std::string header = "{" + entry("scalar", "F64", "[]", "[0,8]") + "," +
                               entry("empty", "F32", "[0,3]", "[8,8]") + "," +
                               entry("empty2", "BF16", "[0]", "[8,8]") + "}";
    const SafetensorsHeader parsed = parse_safetensors_header(header, 8, "f");
    REQUIRE(parsed.find("empty") != nullptr);
    CHECK(parsed.find("empty")->byte_size() == 0);
    CHECK(parsed.find("scalar")->shape.empty());
  }
  SECTION("every dtype name") {
    for (const auto& [name, size] : std::vector<std::pair<std::string, std::size_t>>{
             {"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1},
             {"I16", 2}, {"U16", 2}, {"F16", 2}, {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},
             {"C64", 8}, {"I64", 8}, {"U64", 8}, {"F64", 8}}) {
      INFO(name);
      const std::string header = "{" + entry("t", name, "[3]", "[0," + std::to_string(3 * size) + "]") + "}";
      const SafetensorsHeader parsed = parse_safetensors_header(header, 3 * size, "f");
      CHECK(dtype_name(parsed.tensors()[0].dtype) == name);
      CHECK(dtype_element_size(parsed.tensors()[0].dtype) == size);
    }
  }
}

TEST_CASE("malformed headers are refused naming the tensor and the fact", "[safetensors]") {
  struct Refusal {
    std::string label;
    std::string header;
    std::uint64_t data_size;
    std::vector<std::string> expected;
  };
  const std::string a_ok = entry("a", "F32", "[2]", "[0,8]");
  const std::vector<Refusal> refusals = {
      {"not JSON", "{\"a\":", 8, {"is not valid JSON"}},
      {"trailing data", "{" + a_ok + "} x", 8, {"is not valid JSON"}},
      {"invalid UTF-8", "{\"\xff\":1}", 0, {"is not valid JSON"}},
      {"number beyond a double", "{\"a\":{\"shape\":[1e400]}}", 0, {"is not valid JSON", "number overflow"}},
      {"not an object", "[1,2]", 0, {"must start with '{'"}},
      {"empty header", "", 0, {"must start with '{'"}},
      {"duplicate tensor", "{" + a_ok + "," + entry("a", "F32", "[2]", "[0,8]") + "}", 8,
       {"tensor \"a\"", "appears more than once"}},
      {"duplicate key inside an entry",
       "{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8,
       {"tensor \"a\"", "key \"dtype\" appears more than once"}},
      {"nesting deeper than the format", "{\"a\":{\"shape\":[[1]]}}", 8, {"tensor \"a\"", "nests deeper"}},
      {"entry not an object", "{\"a\":[1]}", 8, {"tensor \"a\"", "entry must be an object"}},
      {"missing key", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8, {"tensor \"a\"", "lacks \"data_offsets\""}},
      {"unknown key", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", 8,
       {"tensor \"a\"", "unknown key \"x\""}},
      {"empty name", "{" + entry("", "F32", "[2]", "[0,8]") + "}", 8, {"empty name"}},
      {"unknown dtype", "{" + entry("a", "F12", "[2]", "[0,8]") + "}", 8,
       {"tensor \"a\"", "dtype \"F12\" is unknown", "allowed: BOOL, U8"}},
      {"sub-byte dtype", "{" + entry("a", "F4", "[2]", "[0,1]") + "}", 1, {"tensor \"a\"", "dtype \"F4\" is unknown"}},
      {"dtype not a string", "{\"a\":{\"dtype\":4,\"shape\":[2],\"data_offsets\":[0,8]}}", 8,
       {"tensor \"a\"", "dtype must be a string"}},
      {"negative dimension", "{" + entry("a", "F32", "[2,-1]", "[0,8]") + "}", 8,
       {"tensor \"a\"", "negative dimension -1 at index 1", "must be >= 0"}},
      {"fractional dimension", "{" + entry("a", "F32", "[2.5]", "[0,8]") + "}", 8,
       {"tensor \"a\"", "2.5 at index 0", "integers in [0, 2^63-1]"}},
      {"dimension above 2^63-1", "{" + entry("a", "U8", "[9223372036854775808]", "[0,8]") + "}", 8,
       {"tensor \"a\"", "integers in [0, 2^63-1]"}},
      {"shape not an array", "{" + entry("a", "F32", "2", "[0,8]") + "}", 8, {"tensor \"a\"", "shape must be an array"}},
      {"one offset", "{" + entry("a", "F32", "[2]", "[0]") + "}", 8,
       {"tensor \"a\"", "data_offsets must be two non-negative integers"}},
      {"three offsets", "{" + entry("a", "F32", "[2]", "[0,8,8]") + "}", 8, {"tensor \"a\"", "data_offsets must be two"}},
      {"string offset", "{" + entry("a", "F32", "[2]", "[0,\"8\"]") + "}", 8, {"tensor \"a\"", "data_offsets must be two"}},
      {"float offset", "{" + entry("a", "F32", "[2]", "[0,8.0]") + "}", 8, {"tensor \"a\"", "data_offsets must be two"}},
      {"negative offset", "{" + entry("a", "F32", "[2]", "[-8,0]") + "}", 8, {"tensor \"a\"", "data_offsets must be two"}},
      {"begin after end", "{" + entry("a", "F32", "[2]", "[8,0]") + "}", 8,
       {"tensor \"a\"", "data_offsets [8,0] begin after they end"}},
      {"end beyond the data region", "{" + entry("a", "F32", "[2]", "[0,8]") + "}", 4,
       {"tensor \"a\"", "end beyond the data region of 4 bytes", "allowed: 0 <= begin <= end <= 4"}},
      {"size differs from shape", "{" + entry("a", "F32", "[2,2]", "[0,12]") + "}", 12,
       {"tensor \"a\"", "hold 12 bytes but shape [2, 2] of F32 needs 16"}},
      {"size overflows 64 bits", "{" + entry("a", "F32", "[4294967296,4294967296]", "[0,0]") + "}", 0,
       {"tensor \"a\"", "needs more than 2^64 bytes"}},
      {"overlapping tensors",
       "{" + entry("a", "U8", "[8]", "[0,8]") + "," + entry("b", "U8", "[8]", "[4,12]") + "}", 12,
       {"tensor \"b\"", "overlap tensor \"a\"", "[4, 12)", "[0, 8)"}},
      {"empty tensor inside another",
       "{" + entry("a", "U8", "[8]", "[0,8]") + "," + entry("z", "U8", "[0]", "[4,4]") + "}", 8,
       {"tensor \"z\"", "overlap tensor \"a\""}},
      {"hole between tensors",
       "{" + entry("a", "U8", "[4]", "[0,4]") + "," + entry("b", "U8", "[4]", "[8,12]") + "}", 12,
       {"tensor \"b\"", "tensor \"a\" ends at 4", "hole of 4 bytes"}},
      {"hole at the start", "{" + entry("a", "U8", "[4]", "[4,8]") + "}", 8,
       {"tensor \"a\"", "leaving the first 4 bytes", "must start at 0"}},
      {"bytes after the last tensor", "{" + entry("a", "U8", "[4]", "[0,4]") + "}", 6,
       {"tensor \"a\"", "holds 6 bytes but the tensors cover only 4"}},
      {"data but no tensors", "{}", 6, {"lists no tensors", "holds 6 bytes"}},
      {"metadata not an object", "{\"__metadata__\":[1]," + a_ok + "}", 8, {"__metadata__ must be an object"}},
      {"metadata value not a string", "{\"__metadata__\":{\"format\":1}," + a_ok + "}", 8,
       {"__metadata__ value of \"format\" must be a string", "got a number"}},
  };
  for (const Refusal& refusal : refusals) {
    DYNAMIC_SECTION(refusal.label) {
      try {
        (void)parse_safetensors_header(refusal.header, refusal.data_size, "bad.safetensors");
        FAIL("accepted: " << refusal.header);
      } catch (const CheckpointError& error) {
        CHECK(error.file() == "bad.safetensors");
        CHECK_THAT(error.what(), Contains("bad.safetensors: "));
        for (const std::string& fragment : refusal.expected) CHECK_THAT(error.what(), Contains(fragment));
      }
    }
  }
}

TEST_CASE("names from the file are shown escaped in messages", "[safetensors]") {
  const std::string header = "{" + entry("evil\\u001b[31m\\\"", "F12", "[1]", "[0,1]") + "}";
  REQUIRE_THROWS_WITH(parse_safetensors_header(header, 1, "f"),
                      Contains("tensor \"evil\\x1b[31m\\\"\"") && Contains("is unknown"));
}

TEST_CASE("every prefix of a valid header parses or is refused, never worse", "[safetensors]") {
  const std::string header = header_for(kTwoTensors, {{"format", "pt"}});
  const std::uint64_t data_size = data_for(kTwoTensors).size();
  std::size_t refused = 0;
  for (std::size_t length = 0; length < header.size(); ++length) {
    try {
      (void)parse_safetensors_header(header.substr(0, length), data_size, "f");
    } catch (const CheckpointError&) {
      ++refused;
    }
  }
  CHECK(refused == header.size());  // no proper prefix of an object is complete JSON
  CHECK(parse_safetensors_header(header, data_size, "f").tensors().size() == 2);
}

TEST_CASE("file-level refusals name the file and the fact", "[safetensors]") {
  TempDir dir;
  const fs::path path = dir.path() / "bad.safetensors";
  const std::string good_header = header_for(kTwoTensors);
  const std::string good_data = data_for(kTwoTensors);

  for (const auto access : {SafetensorsAccess::map_data, SafetensorsAccess::header_only}) {
    DYNAMIC_SECTION((access == SafetensorsAccess::map_data ? "mapped" : "header only")) {
      SECTION("shorter than the length prefix") {
        write_file(path, "12345");
        REQUIRE_THROWS_WITH(SafetensorsFile::open(path, access),
                            Contains(path.string()) && Contains("is 5 bytes") && Contains("at least 8"));
      }
      SECTION("header length past the end of the file") {
        write_file(path, little_endian_u64(100) + "{}");
        REQUIRE_THROWS_WITH(SafetensorsFile::open(path, access),
                            Contains(path.string()) && Contains("header length 100 runs past the end") &&
                                Contains("allowed: at most 2"));
      }
      SECTION("header length above the cap") {
        write_file(path, little_endian_u64(kMaxSafetensorsHeaderBytes + 1) + "{}");
        REQUIRE_THROWS_WITH(SafetensorsFile::open(path, access),
                            Contains("exceeds the cap") && Contains(std::to_string(kMaxSafetensorsHeaderBytes)));
      }
      SECTION("a huge length does not wrap around") {
        write_file(path, little_endian_u64(~std::uint64_t{0}) + "{}");
        REQUIRE_THROWS_WITH(SafetensorsFile::open(path, access), Contains("exceeds the cap"));
      }
      SECTION("truncated data region") {
        write_file(path, safetensors_bytes(good_header, good_data.substr(0, good_data.size() - 1)));
        REQUIRE_THROWS_WITH(SafetensorsFile::open(path, access),
                            Contains(path.string()) && Contains("tensor \"model.norm.weight\"") &&
                                Contains("end beyond the data region of 21 bytes"));
      }
      SECTION("junk after the data region") {
        write_file(path, safetensors_bytes(good_header, good_data + "junk"));
        REQUIRE_THROWS_WITH(SafetensorsFile::open(path, access),
                            Contains("tensor \"model.norm.weight\"") && Contains("cover only 22"));
      }
      SECTION("missing file") {
        REQUIRE_THROWS_WITH(SafetensorsFile::open(dir.path() / "absent.safetensors", access),
                            Contains("absent.safetensors") && Contains("cannot be opened"));
      }
      SECTION("a directory") {
        REQUIRE_THROWS_WITH(SafetensorsFile::open(dir.path(), access), Contains("is not a regular file"));
      }
    }
  }
}

namespace {

// Two shards plus an index; `weight_map` overrides the correct one.
struct ShardedFixture {
  TempDir dir;
  std::vector<TensorSpec> first = {
      {"layers.0.w", "F32", {2}, f32_bytes({1.5f, 2.5f})},
      {"embed", "U8", {3}, counting_bytes(3, 7)},
  };
  std::vector<TensorSpec> second = {{"layers.1.w", "F16", {2}, counting_bytes(4, 0x40)}};

  ShardedFixture() {
    write_safetensors(dir.path() / "model-00001-of-00002.safetensors", first);
    write_safetensors(dir.path() / "model-00002-of-00002.safetensors", second);
  }

  nlohmann::json correct_weight_map() const {
    return {{"layers.0.w", "model-00001-of-00002.safetensors"},
            {"embed", "model-00001-of-00002.safetensors"},
            {"layers.1.w", "model-00002-of-00002.safetensors"}};
  }

  void write_index(const nlohmann::json& weight_map) const {
    write_file(dir.path() / "model.safetensors.index.json",
               nlohmann::json{{"metadata", {{"total_size", 15}}}, {"weight_map", weight_map}}.dump(2));
  }
};

}  // namespace

TEST_CASE("a sharded checkpoint reads every tensor from its shard", "[safetensors]") {
  ShardedFixture fixture;
  fixture.write_index(fixture.correct_weight_map());
  for (const auto access : {SafetensorsAccess::map_data, SafetensorsAccess::header_only}) {
    const ShardedCheckpoint checkpoint = ShardedCheckpoint::open(fixture.dir.path(), access);
    REQUIRE(checkpoint.shards().size() == 2);
    CHECK(checkpoint.tensor_names() == std::vector<std::string_view>{"embed", "layers.0.w", "layers.1.w"});
    CHECK(checkpoint.total_tensor_bytes() == 8 + 3 + 4);
    CHECK(checkpoint.contains("embed"));
    CHECK_FALSE(checkpoint.contains("nope"));
    REQUIRE_THROWS_WITH(checkpoint.locate("nope"), Contains("tensor \"nope\"") && Contains("not in this checkpoint"));
    const auto located = checkpoint.locate("layers.1.w");
    CHECK(located.shard.name() == (fixture.dir.path() / "model-00002-of-00002.safetensors").string());
    CHECK(located.info.dtype == Dtype::F16);
    if (access == SafetensorsAccess::map_data) {
      CHECK(as_string(checkpoint.data("layers.0.w")) == fixture.first[0].bytes);
      CHECK(as_string(checkpoint.data("embed")) == fixture.first[1].bytes);
      CHECK(as_string(checkpoint.data("layers.1.w")) == fixture.second[0].bytes);
    } else {
      REQUIRE_THROWS_WITH(checkpoint.data("embed"), Contains("header-only"));
    }
  }
}

TEST_CASE("a single model.safetensors is used when there is no index", "[safetensors]") {
  TempDir dir;
  write_safetensors(dir.path() / "model.safetensors", kTwoTensors);
  const ShardedCheckpoint checkpoint = ShardedCheckpoint::open(dir.path());
  REQUIRE(checkpoint.shards().size() == 1);
  CHECK(checkpoint.tensor_count() == 2);
  CHECK(as_string(checkpoint.data("model.embed.weight")) == kTwoTensors[0].bytes);
}

TEST_CASE("a directory without weights is refused", "[safetensors]") {
  TempDir dir;
  REQUIRE_THROWS_WITH(ShardedCheckpoint::open(dir.path()),
                      Contains(dir.path().string()) && Contains("holds neither model.safetensors.index.json"));
}

TEST_CASE("index and shards must agree exactly", "[safetensors]") {
  ShardedFixture fixture;
  nlohmann::json weight_map = fixture.correct_weight_map();
  const std::string index_name = (fixture.dir.path() / "model.safetensors.index.json").string();
  const std::string shard1 = (fixture.dir.path() / "model-00001-of-00002.safetensors").string();
  const std::string shard2 = (fixture.dir.path() / "model-00002-of-00002.safetensors").string();

  SECTION("a listed shard is missing") {
    weight_map["layers.1.w"] = "model-00003-of-00003.safetensors";
    fixture.write_index(weight_map);
    REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()),
                        Contains("model-00003-of-00003.safetensors") && Contains("cannot be opened"));
  }
  SECTION("a tensor is listed in the wrong shard") {
    weight_map["embed"] = "model-00002-of-00002.safetensors";
    fixture.write_index(weight_map);
    REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()),
                        Contains(shard1) && Contains("tensor \"embed\"") &&
                            Contains("lists it in shard \"model-00002-of-00002.safetensors\""));
  }
  SECTION("a shard holds a tensor the index does not list") {
    weight_map.erase("embed");
    fixture.write_index(weight_map);
    REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()),
                        Contains(shard1) && Contains("tensor \"embed\"") &&
                            Contains("not listed in the weight_map of " + index_name));
  }
  SECTION("the index lists a tensor no shard holds") {
    weight_map["ghost"] = "model-00002-of-00002.safetensors";
    fixture.write_index(weight_map);
    REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()),
                        Contains(shard2) && Contains("tensor \"ghost\"") && Contains("does not contain it"));
  }
  SECTION("a shard path leaves the directory") {
    for (const std::string shard : {"../model-00001-of-00002.safetensors", "sub/model.safetensors", "..", "a\\b", ""}) {
      INFO(shard);
      weight_map["embed"] = shard;
      fixture.write_index(weight_map);
      REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()),
                          Contains(index_name) && Contains("tensor \"embed\"") && Contains("weight_map names shard") &&
                              Contains("plain file name"));
    }
  }
  SECTION("a shard value is not a string") {
    weight_map["embed"] = 1;
    fixture.write_index(weight_map);
    REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()),
                        Contains("tensor \"embed\"") && Contains("must be a shard file name"));
  }
  SECTION("an empty weight_map") {
    fixture.write_index(nlohmann::json::object());
    REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()), Contains("weight_map lists no tensors"));
  }
  SECTION("an index with a repeated tensor") {
    write_file(index_name, R"({"weight_map": {"embed": "model-00001-of-00002.safetensors",
                                             "embed": "model-00001-of-00002.safetensors"}})");
    REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()),
                        Contains(index_name) && Contains("key \"embed\" appears more than once"));
  }
  SECTION("an index with an unknown top-level key") {
    write_file(index_name, nlohmann::json{{"weight_map", weight_map}, {"extra", 1}}.dump());
    REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()), Contains("unknown key \"extra\""));
  }
  SECTION("a broken shard is reported with its own name") {
    write_file(shard2, "short");
    fixture.write_index(weight_map);
    REQUIRE_THROWS_WITH(ShardedCheckpoint::open(fixture.dir.path()), Contains(shard2) && Contains("is 5 bytes"));
  }
}
