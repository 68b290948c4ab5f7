// Trust decisions over signed bundles: keyring, signatures, expiry, rollback
// state and the file-system checks, each refusal naming its fact.
#include <catch2/catch.hpp>

#include <filesystem>

#include "manifest/trust.hpp"
#include "support/bundle_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta::manifest;
using namespace algenta::test;
using Catch::Contains;

namespace {

constexpr auto kBundlePerms = fs::perms::owner_all | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec;

// A bundle directory with one plugin file, signed on demand by `key`.
struct SignedBundle {
  TempDir temp;
  TestKey key = make_test_key();
  fs::path bundle = temp.path() / "bundle";
  Keyring keyring;

  SignedBundle() {
    fs::create_directory(bundle);
    fs::permissions(bundle, kBundlePerms);
    write_file(bundle / "libacme_engine.so", "plugin bytes");
    keyring.add(key.pair.public_pem);
  }

  Manifest sign(std::uint64_t version, int valid_days = 30) {
    Manifest m = make_manifest(key, version, valid_days);
    m.plugins.push_back(
        entry_for_file(bundle / "libacme_engine.so", "acme_engine", "engine", "sm_86"));
    write_signed_manifest(bundle, m, key);
    return m;
  }

  BundleVerdict verify(VersionState& state, std::int64_t now = now_unix()) const {
    return verify_bundle(bundle, keyring, state, now);
  }
};

}  // namespace

TEST_CASE("a bundle signed by a trusted key is accepted", "[trust]") {
  SignedBundle b;
  const Manifest signed_manifest = b.sign(3);
  VersionState state;
  const BundleVerdict verdict = b.verify(state);
  INFO(verdict.reason);
  REQUIRE(verdict.accepted);
  CHECK(verdict.reason.empty());
  CHECK(verdict.directory == b.bundle);
  REQUIRE(verdict.manifest.has_value());
  CHECK(*verdict.manifest == signed_manifest);
  CHECK(state.accepted(b.key.key_id) == std::uint64_t{3});
}

TEST_CASE("a bundle signed by an unknown key is refused with the trusted ids", "[trust]") {
  SignedBundle b;
  b.sign(1);
  const TestKey other = make_test_key();
  Keyring other_keyring;
  other_keyring.add(other.pair.public_pem);
  VersionState state;
  const BundleVerdict verdict = verify_bundle(b.bundle, other_keyring, state, now_unix());
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("unknown signing key id " + b.key.key_id +
                                      " (trusted: " + other.key_id + ")"));
  CHECK_FALSE(state.accepted(b.key.key_id).has_value());
}

TEST_CASE("a signature made by another key is refused", "[trust]") {
  SignedBundle b;
  b.sign(1);
  const std::string bytes = read_file(b.bundle / kManifestFile);
  write_file(b.bundle / kSignatureFile,
             sign_ed25519(make_test_key().pair.private_pem, bytes));
  VersionState state;
  const BundleVerdict verdict = b.verify(state);
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("signature does not verify over manifest.json"));
}

TEST_CASE("editing one whitespace byte after signing is refused", "[trust]") {
  SignedBundle b;
  const Manifest signed_manifest = b.sign(1);
  std::string bytes = read_file(b.bundle / kManifestFile);
  bytes[bytes.find(' ')] = '\t';
  REQUIRE(parse_manifest(bytes) == signed_manifest);  // same content, other bytes
  write_file(b.bundle / kManifestFile, bytes);
  VersionState state;
  const BundleVerdict verdict = b.verify(state);
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("signature does not verify over manifest.json") &&
                                 Contains("edited after signing"));
}

TEST_CASE("an expired manifest is refused with both times", "[trust]") {
  SignedBundle b;
  const Manifest m = b.sign(1, 30);
  const std::int64_t later = now_unix() + 31 * 86400;
  VersionState state;
  const BundleVerdict verdict = b.verify(state, later);
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("expired at " + m.expires + " (now " +
                                      format_utc_timestamp(later) + ")"));
}

TEST_CASE("a rolled-back version is refused across two loads of the state file", "[trust]") {
  SignedBundle b;
  const fs::path state_file = b.temp.path() / "state" / "nested" / "versions.json";

  b.sign(5);
  {
    VersionState state = VersionState::load(state_file);
    CHECK_FALSE(state.accepted(b.key.key_id).has_value());
    REQUIRE(b.verify(state).accepted);
  }
  REQUIRE(fs::exists(state_file));

  b.sign(4);
  VersionState reloaded = VersionState::load(state_file);
  CHECK(reloaded.accepted(b.key.key_id) == std::uint64_t{5});
  const BundleVerdict verdict = b.verify(reloaded);
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("version 4 is lower than version 5 already accepted for key " +
                                      b.key.key_id + " (rollback)"));

  b.sign(6);
  CHECK(b.verify(reloaded).accepted);
  CHECK(VersionState::load(state_file).accepted(b.key.key_id) == std::uint64_t{6});
}

TEST_CASE("a missing or mis-sized signature file is refused", "[trust]") {
  SignedBundle b;
  b.sign(1);
  VersionState state;
  SECTION("missing") {
    fs::remove(b.bundle / kSignatureFile);
    CHECK_THAT(b.verify(state).reason, Contains("manifest.json.sig missing"));
  }
  SECTION("63 bytes") {
    write_file(b.bundle / kSignatureFile, std::string(63, 'x'));
    CHECK_THAT(b.verify(state).reason, Contains("signature is 63 bytes, Ed25519 signatures are 64"));
  }
}

TEST_CASE("a missing manifest.json is refused", "[trust]") {
  SignedBundle b;
  VersionState state;
  const BundleVerdict verdict = b.verify(state);
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("manifest.json missing"));
}

TEST_CASE("a symlinked manifest.json is refused, not followed", "[trust]") {
  SignedBundle b;
  b.sign(1);
  const fs::path elsewhere = b.temp.path() / "elsewhere.json";
  fs::rename(b.bundle / kManifestFile, elsewhere);
  fs::create_symlink(elsewhere, b.bundle / kManifestFile);
  VersionState state;
  const BundleVerdict verdict = b.verify(state);
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("manifest.json is a symlink"));
}

TEST_CASE("world-writable bundle paths are refused", "[trust]") {
  SignedBundle b;
  b.sign(1);
  VersionState state;
  SECTION("the bundle directory") {
    fs::permissions(b.bundle, fs::perms::all);
    const BundleVerdict verdict = b.verify(state);
    CHECK_FALSE(verdict.accepted);
    CHECK_THAT(verdict.reason,
               Contains("bundle directory " + b.bundle.string() + " is world-writable"));
  }
  SECTION("manifest.json") {
    fs::permissions(b.bundle / kManifestFile, fs::perms::others_write, fs::perm_options::add);
    CHECK_THAT(b.verify(state).reason, Contains("manifest.json is world-writable"));
  }
}

TEST_CASE("a missing bundle directory is a refusal, not an exception", "[trust]") {
  SignedBundle b;
  VersionState state;
  const BundleVerdict verdict = verify_bundle(b.temp.path() / "absent", b.keyring, state, now_unix());
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason, Contains("absent") && Contains("cannot be opened"));
}

TEST_CASE("a malformed version state file is refused, never reset", "[trust]") {
  TempDir temp;
  const fs::path file = temp.path() / "versions.json";
  CHECK_FALSE(VersionState::load(file).accepted("a").has_value());  // missing: empty

  const std::string key = std::string(32, 'a');
  write_file(file, "{\"versions\": {\"" + key + "\": \"five\"}}");
  REQUIRE_THROWS_WITH(VersionState::load(file),
                      Contains(file.string()) &&
                          Contains("the entry of key \"" + key + "\" is not {\"version\": N, "));
  write_file(file, "{\"versions\": {\"" + key + "\": {\"version\": -1, \"manifest_sha256\": \"" +
                       std::string(64, 'b') + "\"}}}");
  REQUIRE_THROWS_WITH(VersionState::load(file), Contains("not a non-negative integer"));
  write_file(file, "{\"versions\": {\"" + key + "\": {\"version\": 1, \"manifest_sha256\": \"B\"}}}");
  REQUIRE_THROWS_WITH(VersionState::load(file),
                      Contains("the manifest_sha256 in the entry of key \"" + key +
                               "\" is \"B\", not 64 lowercase hex digits"));
  write_file(file, "{\"versions\": {\"" + key + "\": 1, \"" + key + "\": 2}}");
  REQUIRE_THROWS_WITH(VersionState::load(file), Contains("not valid JSON"));
  write_file(file, "{\"versions\": {}} trailing");
  REQUIRE_THROWS_WITH(VersionState::load(file), Contains(file.string()) && Contains("not valid JSON"));
  write_file(file, "{\"version\": {}}");
  REQUIRE_THROWS_WITH(VersionState::load(file), Contains("is malformed"));
}

TEST_CASE("version state keeps the highest version per key with its digest", "[trust]") {
  TempDir temp;
  const std::string d1(64, '1');
  const std::string d2(64, '2');
  VersionState state = VersionState::load(temp.path() / "v.json");
  state.record("k1", 7, d1);
  state.record("k1", 3, d2);
  state.record("k1", 7, d2);  // same version: the first digest stays
  state.record("k2", 1, d2);
  state.save();
  CHECK(read_file(temp.path() / "v.json") ==
        "{\n  \"versions\": {\n    \"k1\": {\n      \"manifest_sha256\": \"" + d1 +
            "\",\n      \"version\": 7\n    },\n    \"k2\": {\n      \"manifest_sha256\": \"" + d2 +
            "\",\n      \"version\": 1\n    }\n  }\n}\n");
  const VersionState reloaded = VersionState::load(temp.path() / "v.json");
  CHECK(reloaded.accepted("k1") == std::uint64_t{7});
  REQUIRE(reloaded.accepted_manifest("k1") != nullptr);
  CHECK(reloaded.accepted_manifest("k1")->manifest_sha256 == d1);
  CHECK(reloaded.accepted("k2") == std::uint64_t{1});
  CHECK(reloaded.accepted_manifest("k3") == nullptr);
}

TEST_CASE("another manifest at the accepted version is refused as a replay", "[trust]") {
  SignedBundle b;
  const fs::path state_file = b.temp.path() / "versions.json";
  b.sign(4);
  const std::string first = read_file(b.bundle / kManifestFile);
  const std::string first_sig = read_file(b.bundle / kSignatureFile);
  {
    VersionState state = VersionState::load(state_file);
    REQUIRE(b.verify(state).accepted);
  }

  // The same version signed again over other content (a later expiry).
  b.sign(4, 60);
  const std::string second = read_file(b.bundle / kManifestFile);
  REQUIRE(second != first);
  VersionState reloaded = VersionState::load(state_file);
  const BundleVerdict verdict = b.verify(reloaded);
  CHECK_FALSE(verdict.accepted);
  CHECK(verdict.reason == "version 4 of key " + b.key.key_id +
                              " was already accepted as a manifest with sha256 " +
                              sha256_hex(first) + "; this manifest.json has sha256 " +
                              sha256_hex(second) + " at the same version (replay: a version is signed once)");
  CHECK(VersionState::load(state_file).accepted_manifest(b.key.key_id)->manifest_sha256 ==
        sha256_hex(first));

  // The accepted bytes themselves still load, and so does a higher version.
  write_file(b.bundle / kManifestFile, first);
  write_file(b.bundle / kSignatureFile, first_sig);
  CHECK(b.verify(reloaded).accepted);
  b.sign(5);
  CHECK(b.verify(reloaded).accepted);
  CHECK(VersionState::load(state_file).accepted_manifest(b.key.key_id)->manifest_sha256 ==
        sha256_hex(read_file(b.bundle / kManifestFile)));
}

TEST_CASE("a state file of the older integer form records the digest once", "[trust]") {
  SignedBundle b;
  const fs::path state_file = b.temp.path() / "versions.json";
  write_file(state_file, "{\"versions\": {\"" + b.key.key_id + "\": 4}}");

  b.sign(3);
  VersionState state = VersionState::load(state_file);
  CHECK(state.accepted(b.key.key_id) == std::uint64_t{4});
  CHECK(state.accepted_manifest(b.key.key_id)->manifest_sha256.empty());
  CHECK_THAT(b.verify(state).reason, Contains("version 3 is lower than version 4") &&
                                         Contains("(rollback)"));

  b.sign(4);
  const std::string first = read_file(b.bundle / kManifestFile);
  REQUIRE(b.verify(state).accepted);
  CHECK(VersionState::load(state_file).accepted_manifest(b.key.key_id)->manifest_sha256 ==
        sha256_hex(first));

  b.sign(4, 60);
  VersionState reloaded = VersionState::load(state_file);
  CHECK_THAT(b.verify(reloaded).reason, Contains("version 4 of key " + b.key.key_id +
                                                 " was already accepted as a manifest with sha256 " +
                                                 sha256_hex(first)));
}

TEST_CASE("the keyring indexes *.pub keys by the id computed from the key", "[trust]") {
  TempDir temp;
  const TestKey a = make_test_key();
  const TestKey b = make_test_key();
  write_file(temp.path() / "vendor.pub", a.pair.public_pem);
  write_file(temp.path() / (a.key_id + ".pub"), b.pair.public_pem);  // misleading name
  write_file(temp.path() / "README", "not a key");
  const Keyring keyring = Keyring::load(temp.path());
  CHECK(keyring.key_ids().size() == 2);
  REQUIRE(keyring.find(a.key_id) != nullptr);
  CHECK(*keyring.find(a.key_id) == a.pair.public_pem);
  REQUIRE(keyring.find(b.key_id) != nullptr);
  CHECK(*keyring.find(b.key_id) == b.pair.public_pem);
  CHECK(keyring.find(std::string(32, '0')) == nullptr);
}

TEST_CASE("a bad keyring is refused naming the file or directory", "[trust]") {
  TempDir temp;
  REQUIRE_THROWS_WITH(Keyring::load(temp.path() / "absent"),
                      Contains((temp.path() / "absent").string()) && Contains("does not exist"));
  write_file(temp.path() / "broken.pub", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");
  REQUIRE_THROWS_WITH(Keyring::load(temp.path()),
                      Contains((temp.path() / "broken.pub").string()) &&
                          Contains("not an Ed25519 public key"));
}

TEST_CASE("a key trusted for one bundle verifies that bundle only", "[trust]") {
  SignedBundle b;  // its bundle directory is named "bundle"
  b.sign(1);
  Keyring scoped;
  scoped.add_for_bundle(b.key.pair.public_pem, "bundle");
  VersionState state;
  const BundleVerdict own = verify_bundle(b.bundle, scoped, state, now_unix());
  INFO(own.reason);
  CHECK(own.accepted);

  Keyring elsewhere;
  elsewhere.add_for_bundle(b.key.pair.public_pem, "acme");
  VersionState fresh;
  CHECK_THAT(verify_bundle(b.bundle, elsewhere, fresh, now_unix()).reason,
             Contains("signing key " + b.key.key_id +
                      " is trusted only for bundle acme, not for bundle"));
}

TEST_CASE("a revoked key is refused, named, even where it is also trusted", "[trust]") {
  SignedBundle b;
  b.sign(1);
  b.keyring.revoke(b.key.pair.public_pem, "/keys/revoked/k.pub");
  CHECK(b.keyring.find(b.key.key_id) == nullptr);
  CHECK(b.keyring.key_ids().empty());
  VersionState state;
  const BundleVerdict verdict = b.verify(state);
  CHECK_FALSE(verdict.accepted);
  CHECK_THAT(verdict.reason,
             Contains("signing key " + b.key.key_id + " is revoked (/keys/revoked/k.pub)"));
}

TEST_CASE("the keyring reads bundle/<name>/ and revoked/ beneath it", "[trust]") {
  TempDir temp;
  const TestKey vendor = make_test_key();
  const TestKey acme = make_test_key();
  const TestKey old = make_test_key();
  const fs::path acme_dir = temp.path() / "bundle" / "acme";
  const fs::path revoked_dir = temp.path() / "revoked";
  fs::create_directories(acme_dir);
  fs::create_directories(revoked_dir);
  write_file(temp.path() / "vendor.pub", vendor.pair.public_pem);
  write_file(temp.path() / "old.pub", old.pair.public_pem);
  write_file(acme_dir / "acme.pub", acme.pair.public_pem);
  write_file(revoked_dir / "old.pub", old.pair.public_pem);
  const Keyring keyring = Keyring::load(temp.path());
  CHECK(keyring.key_ids() == std::vector<std::string>{vendor.key_id});
  CHECK(keyring.find(acme.key_id) == nullptr);
  REQUIRE(keyring.find_for_bundle(acme.key_id, "acme") != nullptr);
  CHECK(keyring.find_for_bundle(acme.key_id, "vendor") == nullptr);
  CHECK(keyring.bundles_of(acme.key_id) == std::vector<std::string>{"acme"});
  CHECK(keyring.find_for_bundle(old.key_id, "vendor") == nullptr);
  REQUIRE(keyring.revocation(old.key_id) != nullptr);
  CHECK(*keyring.revocation(old.key_id) == (revoked_dir / "old.pub").string());
}
