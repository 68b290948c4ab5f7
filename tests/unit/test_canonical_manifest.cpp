// One signature, one reading: a manifest is accepted only in the canonical
// bytes algenta-sign writes. Every variant here is signed with the trusted
// key, so the signature passes and the refusal must come from the form.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "manifest/canonical_form.hpp"
#include "manifest/trust.hpp"
#include "support/bundle_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta::manifest;
using namespace algenta::test;
using Catch::Contains;

namespace {

// A trusted key, a bundle with one plugin, and its canonical manifest bytes.
struct CanonicalBundle {
  TempDir temp;
  TestKey key = make_test_key();
  fs::path bundle = temp.path() / "bundle";
  Keyring keyring;
  Manifest manifest;
  std::string canonical;

  CanonicalBundle() {
    fs::create_directory(bundle);
    fs::permissions(bundle, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
    write_file(bundle / "libacme_engine.so", "plugin bytes");
    keyring.add(key.pair.public_pem);
    manifest = make_manifest(key, 1);
    manifest.plugins.push_back(
        entry_for_file(bundle / "libacme_engine.so", "acme_engine", "engine", "sm_86"));
    canonical = serialize_manifest(manifest);
  }

  // Signs exactly `bytes` with the trusted key and asks for a verdict.
  BundleVerdict verify_signed(const std::string& bytes) const {
    write_file(bundle / kManifestFile, bytes);
    write_file(bundle / kSignatureFile, sign_ed25519(key.pair.private_pem, bytes));
    VersionState state;
    return verify_bundle(bundle, keyring, state, now_unix());
  }
};

std::string replaced_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string refusal_at(std::size_t offset, const std::string& expected, const std::string& found) {
  return "manifest.json: not the canonical form algenta-sign writes: at byte offset " +
         std::to_string(offset) + " expected " + expected + ", found " + found;
}

}  // namespace

TEST_CASE("the canonical bytes, signed, are accepted", "[manifest][trust]") {
  const CanonicalBundle b;
  const BundleVerdict verdict = b.verify_signed(b.canonical);
  INFO(verdict.reason);
  REQUIRE(verdict.accepted);
  CHECK(*verdict.manifest == b.manifest);
}

TEST_CASE("a byte-order mark before the signed text is refused at byte 0", "[manifest][trust]") {
  const CanonicalBundle b;
  const BundleVerdict verdict = b.verify_signed("\xEF\xBB\xBF" + b.canonical);
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("manifest.json is not valid JSON (a UTF-8 byte-order mark "
                                      "(EF BB BF) at byte 0"));
}

TEST_CASE("a NUL and more bytes after the signed text are refused at the NUL", "[manifest][trust]") {
  const CanonicalBundle b;
  const BundleVerdict verdict =
      b.verify_signed(b.canonical + std::string(1, '\0') + "{\"key_id\": \"x\"}");
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("manifest.json is not valid JSON (a NUL byte at byte offset " +
                                      std::to_string(b.canonical.size()) + " "));
}

TEST_CASE("trailing newline variants are refused naming the byte", "[manifest][trust]") {
  const CanonicalBundle b;
  const std::size_t end = b.canonical.size();
  const std::string without_newline = b.canonical.substr(0, end - 1);
  CHECK(b.verify_signed(without_newline).reason ==
        refusal_at(end - 1, "'\\n' (0x0a)", "the end of the file"));
  CHECK(b.verify_signed(b.canonical + "\n").reason ==
        refusal_at(end, "the end of the file", "'\\n' (0x0a)"));
  CHECK(b.verify_signed(without_newline + "\r\n").reason ==
        refusal_at(end - 1, "'\\n' (0x0a)", "'\\r' (0x0d)"));
  CHECK(b.verify_signed(b.canonical + " ").reason ==
        refusal_at(end, "the end of the file", "' ' (0x20)"));
}

TEST_CASE("reordered keys are refused naming the byte", "[manifest][trust]") {
  const CanonicalBundle b;
  // The canonical order puts "schema" first; nlohmann's default sorts keys.
  const std::string sorted = nlohmann::json::parse(b.canonical).dump(2) + "\n";
  REQUIRE(parse_manifest(sorted) == b.manifest);
  REQUIRE(sorted.substr(0, 5) == "{\n  \"");
  CHECK(b.verify_signed(sorted).reason == refusal_at(5, "'s' (0x73)", "'e' (0x65)"));
}

TEST_CASE("an escaped spelling of the same string is refused naming the byte",
          "[manifest][trust]") {
  const CanonicalBundle b;
  const std::size_t at = b.canonical.find("\"acme_engine\"") + 1;
  const std::string escaped = replaced_once(b.canonical, "\"acme_engine\"", "\"\\u0061cme_engine\"");
  REQUIRE(parse_manifest(escaped) == b.manifest);
  CHECK(b.verify_signed(escaped).reason == refusal_at(at, "'a' (0x61)", "'\\' (0x5c)"));
}

TEST_CASE("extra whitespace is refused naming the byte", "[manifest][trust]") {
  const CanonicalBundle b;
  const std::string wider = replaced_once(b.canonical, "\"version\": 1", "\"version\":  1");
  REQUIRE(parse_manifest(wider) == b.manifest);
  const std::size_t at = b.canonical.find("\"version\": 1") + 11;
  CHECK(b.verify_signed(wider).reason == refusal_at(at, "'1' (0x31)", "' ' (0x20)"));

  const std::string tabbed = replaced_once(b.canonical, "\n  \"schema\"", "\n\t\"schema\"");
  CHECK(b.verify_signed(tabbed).reason == refusal_at(2, "' ' (0x20)", "'\\t' (0x09)"));
}

TEST_CASE("number spellings other than the plain integer are refused", "[manifest][trust]") {
  const CanonicalBundle b;
  // 1.0 and 1e0 read as floating point, which no manifest field is: the
  // strict parser refuses them before the form is compared.
  for (const std::string& spelling : {"1.0", "1e0", "1E0", "-0"}) {
    CAPTURE(spelling);
    const std::string variant = replaced_once(b.canonical, "\"version\": 1,", "\"version\": " + spelling + ",");
    const BundleVerdict verdict = b.verify_signed(variant);
    CHECK_FALSE(verdict.accepted);
    CHECK_THAT(verdict.reason, Contains("manifest.json: version is ") &&
                                   Contains("expected a non-negative integer"));
  }
}

TEST_CASE("a repeated key_id is refused before any key is looked up", "[manifest][trust]") {
  const CanonicalBundle b;
  const std::string twice = replaced_once(b.canonical, "\"key_id\": ",
                                          "\"key_id\": \"" + std::string(32, '0') + "\",\n  \"key_id\": ");
  const BundleVerdict verdict = b.verify_signed(twice);
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("manifest.json is not valid JSON (duplicate key \"key_id\""));
}

TEST_CASE("parse_canonical_manifest accepts exactly the writer's bytes", "[manifest]") {
  const CanonicalBundle b;
  CHECK(parse_canonical_manifest(b.canonical) == b.manifest);
  CHECK_FALSE(first_difference_from_canonical(b.manifest, b.canonical).has_value());
  REQUIRE_THROWS_WITH(parse_canonical_manifest(b.canonical + "\n"),
                      "not the canonical form algenta-sign writes: at byte offset " +
                          std::to_string(b.canonical.size()) +
                          " expected the end of the file, found '\\n' (0x0a)");
  // A non-ASCII byte is shown escaped, never raw: the writer keeps UTF-8 as
  // it is, so a \u escape of it differs at the escape.
  Manifest accented = b.manifest;
  accented.plugins[0].file = "lib\xC3\xA9.so";
  const std::string raw = serialize_manifest(accented);
  const std::size_t at = raw.find("\xC3\xA9");
  const std::string escaped = replaced_once(raw, "\xC3\xA9", "\\u00e9");
  REQUIRE(parse_manifest(escaped) == accented);
  CHECK(first_difference_from_canonical(accented, escaped) ==
        "at byte offset " + std::to_string(at) + " expected '\\xc3' (0xc3), found '\\' (0x5c)");
}
