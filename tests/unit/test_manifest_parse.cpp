// The strict manifest parser, the canonical writer and UTC timestamps.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <functional>

#include "manifest/manifest.hpp"

using algenta::manifest::kMaxManifestBytes;
using algenta::manifest::Manifest;
using algenta::manifest::ManifestError;
using algenta::manifest::parse_manifest;
using algenta::manifest::PluginEntry;
using algenta::manifest::serialize_manifest;
using Catch::Contains;
using nlohmann::json;

namespace {

PluginEntry sample_plugin(const std::string& name, const std::string& file) {
  PluginEntry entry;
  entry.file = file;
  entry.sha256 = std::string(64, 'a');
  entry.size = 4096;
  entry.name = name;
  entry.role = "engine";
  entry.target = "sm_90a";
  entry.abi_major = 1;
  entry.abi_minor = 0;
  entry.families = {"llama", "qwen2"};
  entry.host_libraries = {"libcublas.so.13"};
  entry.min_driver = 580;
  return entry;
}

Manifest sample_manifest() {
  Manifest m;
  m.version = 7;
  m.issued = "2026-01-01T00:00:00Z";
  m.expires = "2027-01-01T00:00:00Z";
  m.key_id = std::string(32, 'b');
  m.plugins = {sample_plugin("cuda_sm90a", "libalgenta_cuda_sm90a.so"),
               sample_plugin("cuda_sm80", "libalgenta_cuda_sm80.so")};
  return m;
}

// The sample manifest's JSON after `edit`, in the canonical layout.
std::string edited(const std::function<void(json&)>& edit) {
  json document = json::parse(serialize_manifest(sample_manifest()));
  edit(document);
  return document.dump(2);
}

}  // namespace

TEST_CASE("a manifest survives serialise then parse unchanged", "[manifest]") {
  const Manifest original = sample_manifest();
  const std::string bytes = serialize_manifest(original);
  CHECK(parse_manifest(bytes) == original);
  CHECK(serialize_manifest(parse_manifest(bytes)) == bytes);
  CHECK(bytes.back() == '\n');
  // Fixed key order, not alphabetical: schema comes first.
  CHECK(bytes.find("\"schema\"") < bytes.find("\"expires\""));
}

TEST_CASE("an empty plugin list is a valid manifest", "[manifest]") {
  Manifest m = sample_manifest();
  m.plugins.clear();
  CHECK(parse_manifest(serialize_manifest(m)).plugins.empty());
}

TEST_CASE("oversized input is refused with its size and the cap", "[manifest]") {
  const std::string huge = serialize_manifest(sample_manifest()) +
                           std::string(kMaxManifestBytes, ' ');
  REQUIRE_THROWS_WITH(parse_manifest(huge), Contains(std::to_string(huge.size()) + " bytes") &&
                                                Contains(std::to_string(kMaxManifestBytes)));
}

TEST_CASE("invalid UTF-8 is refused with its offset", "[manifest]") {
  std::string bytes = serialize_manifest(sample_manifest());
  const std::size_t at = bytes.find("llama") + 1;
  bytes[at] = '\xff';
  REQUIRE_THROWS_WITH(parse_manifest(bytes),
                      Contains("not valid UTF-8") && Contains("offset " + std::to_string(at)));
  std::string overlong = serialize_manifest(sample_manifest());
  overlong.replace(overlong.find("llama"), 2, "\xc0\xaf");  // overlong '/'
  REQUIRE_THROWS_WITH(parse_manifest(overlong), Contains("not valid UTF-8"));
}

TEST_CASE("duplicate keys are refused at any depth, with their path", "[manifest]") {
  const std::string bytes = serialize_manifest(sample_manifest());
  std::string top = bytes;
  top.insert(1, "\"version\": 8,");
  REQUIRE_THROWS_WITH(parse_manifest(top),
                      Contains("duplicate key \"version\" in the top level"));

  std::string nested = bytes;
  const std::size_t second_abi = nested.find("\"major\"", nested.find("cuda_sm80"));
  nested.insert(second_abi, "\"major\": 2, ");
  REQUIRE_THROWS_WITH(parse_manifest(nested),
                      Contains("duplicate key \"major\" in plugins[1].abi"));
}

TEST_CASE("trailing data after the manifest is refused", "[manifest]") {
  REQUIRE_THROWS_WITH(parse_manifest(serialize_manifest(sample_manifest()) + "{}"),
                      Contains("not valid JSON") && Contains("end of input"));
}

TEST_CASE("numbers beyond what JSON parsing can hold are a ManifestError", "[manifest]") {
  std::string bytes = serialize_manifest(sample_manifest());
  bytes.replace(bytes.find("4096"), 4, "1e999");
  REQUIRE_THROWS_WITH(parse_manifest(bytes), Contains("not valid JSON") && Contains("1e999"));
}

TEST_CASE("a top level that is not an object is refused", "[manifest]") {
  REQUIRE_THROWS_WITH(parse_manifest("[1, 2]"),
                      Contains("top level is [1,2], expected a JSON object"));
}

TEST_CASE("another schema is refused by name", "[manifest]") {
  REQUIRE_THROWS_WITH(
      parse_manifest(edited([](json& m) { m["schema"] = "algenta.plugin-manifest/2"; })),
      Contains("schema is \"algenta.plugin-manifest/2\", expected \"algenta.plugin-manifest/1\""));
}

TEST_CASE("missing fields are named", "[manifest]") {
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m.erase("expires"); })),
                      Contains("expires is missing"));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["plugins"][1].erase("sha256"); })),
                      Contains("plugins[1].sha256 is missing, expected 64 lowercase hex digits"));
  REQUIRE_THROWS_WITH(
      parse_manifest(edited([](json& m) { m["plugins"][0]["abi"].erase("minor"); })),
      Contains("plugins[0].abi.minor is missing"));
}

TEST_CASE("mistyped fields are named with their value", "[manifest]") {
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["version"] = "7"; })),
                      Contains("version is \"7\", expected a non-negative integer"));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["version"] = 7.5; })),
                      Contains("version is 7.5"));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["plugins"][0]["size"] = -1; })),
                      Contains("plugins[0].size is -1"));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["plugins"][0]["families"] = "llama"; })),
                      Contains("plugins[0].families is \"llama\", expected a list"));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["plugins"] = json::object(); })),
                      Contains("plugins is {}, expected a list"));
  REQUIRE_THROWS_WITH(
      parse_manifest(edited([](json& m) { m["plugins"][0]["min_driver"] = 4294967296; })),
      Contains("plugins[0].min_driver is 4294967296"));
}

TEST_CASE("unknown fields are refused (typo safety)", "[manifest]") {
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["expiry"] = "soon"; })),
                      Contains("manifest has unknown field \"expiry\" (allowed: schema,"));
  REQUIRE_THROWS_WITH(
      parse_manifest(edited([](json& m) { m["plugins"][1]["sha265"] = std::string(64, 'a'); })),
      Contains("plugins[1] has unknown field \"sha265\""));
}

TEST_CASE("file names must be plain names inside the bundle", "[manifest]") {
  const std::vector<std::string> bad_names{"../libx.so", "sub/libx.so", "sub\\libx.so", ".", "..",
                                           "",           "/",           "libx.so/",     "lib\nx.so",
                                           std::string("lib\0x.so", 8)};
  for (const std::string& bad : bad_names) {
    CAPTURE(bad);
    REQUIRE_THROWS_WITH(parse_manifest(edited([&](json& m) { m["plugins"][0]["file"] = bad; })),
                        Contains("plugins[0].file is " + json(bad).dump()) &&
                            Contains("a plain file name"));
  }
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) {
                        m["plugins"][1]["host_libraries"] = {"libcudart.so.13", "/opt/evil/libevil.so"};
                      })),
                      Contains("plugins[1].host_libraries[1] is \"/opt/evil/libevil.so\""));
}

TEST_CASE("sha256 must be 64 lowercase hex digits", "[manifest]") {
  for (const std::string& bad : {std::string(64, 'A'), std::string(63, 'a'), std::string(64, 'g')}) {
    CAPTURE(bad);
    REQUIRE_THROWS_WITH(parse_manifest(edited([&](json& m) { m["plugins"][1]["sha256"] = bad; })),
                        Contains("plugins[1].sha256 is \"" + bad + "\", expected 64 lowercase hex"));
  }
}

TEST_CASE("role, abi major and key id are checked", "[manifest]") {
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["plugins"][0]["role"] = "server"; })),
                      Contains("plugins[0].role is \"server\", expected \"engine\" or \"oracle\""));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["plugins"][0]["abi"]["major"] = 0; })),
                      Contains("plugins[0].abi.major is 0, expected an integer from 1"));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["key_id"] = "abc"; })),
                      Contains("key_id is \"abc\", expected 32 lowercase hex digits"));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["plugins"][0]["name"] = "a b"; })),
                      Contains("plugins[0].name is \"a b\""));
}

TEST_CASE("plugin names and files must be unique", "[manifest]") {
  REQUIRE_THROWS_WITH(
      parse_manifest(edited([](json& m) { m["plugins"][1]["name"] = "cuda_sm90a"; })),
      Contains("plugins[1].name \"cuda_sm90a\" repeats plugins[0].name"));
  REQUIRE_THROWS_WITH(
      parse_manifest(edited([](json& m) { m["plugins"][1]["file"] = "libalgenta_cuda_sm90a.so"; })),
      Contains("plugins[1].file \"libalgenta_cuda_sm90a.so\" repeats plugins[0].file"));
}

TEST_CASE("bad timestamps are refused with the reason", "[manifest]") {
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["issued"] = "2026-02-29T00:00:00Z"; })),
                      Contains("issued: \"2026-02-29T00:00:00Z\"") &&
                          Contains("day 29 is outside 1..28"));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["expires"] = "2027-01-01 00:00:00"; })),
                      Contains("expires: ") && Contains("YYYY-MM-DDTHH:MM:SSZ"));
  REQUIRE_THROWS_WITH(parse_manifest(edited([](json& m) { m["expires"] = "2025-01-01T00:00:00Z"; })),
                      Contains("expires 2025-01-01T00:00:00Z is not after issued"));
}

TEST_CASE("long values are truncated in messages", "[manifest]") {
  const std::string long_name(5000, 'x');
  try {
    parse_manifest(edited([&](json& m) { m["plugins"][0]["file"] = "a/" + long_name; }));
    FAIL("a file name with '/' was accepted");
  } catch (const ManifestError& error) {
    const std::string message = error.what();
    CHECK_THAT(message, Contains("plugins[0].file is \"a/xxx") && Contains("..."));
    CHECK(message.size() < 400);
  }
}

TEST_CASE("hostile nesting is refused early", "[manifest]") {
  const std::string deep = "{\"x\": " + std::string(100, '[') + std::string(100, ']') + "}";
  REQUIRE_THROWS_WITH(parse_manifest(deep), Contains("nests deeper than"));
}

TEST_CASE("UTC timestamps parse and format in exactly one form", "[manifest]") {
  using algenta::manifest::format_utc_timestamp;
  using algenta::manifest::parse_utc_timestamp;
  CHECK(parse_utc_timestamp("1970-01-01T00:00:00Z") == 0);
  CHECK(parse_utc_timestamp("2000-03-01T00:00:00Z") == 951868800);
  CHECK(parse_utc_timestamp("2024-02-29T23:59:59Z") == 1709251199);
  CHECK(format_utc_timestamp(1709251199) == "2024-02-29T23:59:59Z");
  CHECK(format_utc_timestamp(-1) == "1969-12-31T23:59:59Z");
  for (std::int64_t t = -86400LL * 800; t < 86400LL * 365 * 200; t += 86400LL * 97 + 3671) {
    REQUIRE(parse_utc_timestamp(format_utc_timestamp(t)) == t);
  }
  REQUIRE_THROWS_WITH(parse_utc_timestamp("1900-02-29T00:00:00Z"), Contains("day 29"));
  REQUIRE_THROWS_WITH(parse_utc_timestamp("2026-01-01T24:00:00Z"), Contains("hour 24"));
  REQUIRE_THROWS_WITH(parse_utc_timestamp("2026-01-01T00:00:60Z"), Contains("second 60"));
  REQUIRE_THROWS_WITH(parse_utc_timestamp("2026-01-01T00:00:00+00:00"),
                      Contains("25 characters, expected 20"));
  REQUIRE_THROWS_WITH(parse_utc_timestamp("2026-01-01t00:00:00Z"), Contains("position 11"));
  CHECK(parse_utc_timestamp("2000-02-29T00:00:00Z") == 951782400);
}
