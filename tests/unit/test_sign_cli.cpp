// The algenta-sign tool end to end: keygen, trust, sign a copy of the built
// test plugin, verify, and the refusals for edited manifests and plugins.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "algenta/plugin_abi.h"
#include "manifest/crypto.hpp"
#include "manifest/manifest.hpp"
#include "manifest/trust.hpp"
#include "support/bundle_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta::test;
using algenta::manifest::kManifestFile;
using algenta::manifest::kSignatureFile;
using Catch::Contains;

namespace {

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Temporary key files, keyring and bundle holding a copy of the test plugin.
struct SignCli {
  TempDir temp;
  fs::path private_key = temp.path() / "signing.key";
  fs::path public_key = temp.path() / "signing.pub";
  fs::path keyring = temp.path() / "keyring";
  fs::path bundle = temp.path() / "bundle";
  fs::path plugin = bundle / "libacme_engine.so";

  SignCli() {
    fs::create_directory(bundle);
    fs::copy_file(test_plugin_dir() / "libacme_engine.so", plugin);
  }

  CommandResult run(const std::string& arguments) const {
    return run_command(quoted(sign_exe()) + " " + arguments);
  }

  CommandResult keygen() const {
    return run("keygen --private " + quoted(private_key) + " --public " + quoted(public_key));
  }

  // keygen + trust + sign; every step must succeed.
  void sign_bundle() const {
    REQUIRE(keygen().exit_code == 0);
    const CommandResult trust =
        run("trust --public " + quoted(public_key) + " --keyring " + quoted(keyring));
    INFO(trust.output);
    REQUIRE(trust.exit_code == 0);
    const CommandResult sign = run("sign --key " + quoted(private_key) + " --plugins " +
                                   quoted(bundle));
    INFO(sign.output);
    REQUIRE(sign.exit_code == 0);
  }

  CommandResult verify() const {
    return run("verify --keyring " + quoted(keyring) + " --plugins " + quoted(bundle));
  }
};

}  // namespace

TEST_CASE("keygen makes a 0600 private key and refuses to overwrite it", "[sign-cli]") {
  SignCli cli;
  const CommandResult made = cli.keygen();
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  CHECK(trimmed(made.output) ==
        algenta::manifest::key_id_of_public_pem(read_file(cli.public_key)));
  CHECK(fs::status(cli.private_key).permissions() ==
        (fs::perms::owner_read | fs::perms::owner_write));
  const std::string private_pem = read_file(cli.private_key);

  const CommandResult again = cli.run("keygen --private " + quoted(cli.private_key) +
                                      " --public " + quoted(cli.temp.path() / "other.pub"));
  CHECK(again.exit_code == 1);
  CHECK_THAT(again.output, Contains("already exists"));
  CHECK(read_file(cli.private_key) == private_pem);
  CHECK_FALSE(fs::exists(cli.temp.path() / "other.pub"));
}

TEST_CASE("trust copies the public key into the keyring under its key id", "[sign-cli]") {
  SignCli cli;
  REQUIRE(cli.keygen().exit_code == 0);
  const CommandResult trust =
      cli.run("trust --public " + quoted(cli.public_key) + " --keyring " + quoted(cli.keyring));
  INFO(trust.output);
  REQUIRE(trust.exit_code == 0);
  const std::string key_id = algenta::manifest::key_id_of_public_pem(read_file(cli.public_key));
  CHECK(read_file(cli.keyring / (key_id + ".pub")) == read_file(cli.public_key));
  CHECK((fs::status(cli.keyring).permissions() & fs::perms::all) ==
        (fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
         fs::perms::others_read | fs::perms::others_exec));
}

TEST_CASE("sign describes the plugin from its descriptor and verify accepts it", "[sign-cli]") {
  SignCli cli;
  cli.sign_bundle();
  const std::string bytes = read_file(cli.bundle / kManifestFile);
  const auto manifest = algenta::manifest::parse_manifest(bytes);
  CHECK(manifest.version == 1);
  CHECK(manifest.key_id == algenta::manifest::key_id_of_public_pem(read_file(cli.public_key)));
  REQUIRE(manifest.plugins.size() == 1);
  const auto& entry = manifest.plugins[0];
  CHECK(entry.file == "libacme_engine.so");
  CHECK(entry.name == "acme_engine");
  CHECK(entry.role == "engine");
  CHECK(entry.target == "sm_86");
  CHECK(entry.abi_major == 1);
  CHECK(entry.abi_minor == ALGENTA_ABI_MINOR);  // the minimal plugin needs the header it is built with
  CHECK(entry.families == std::vector<std::string>{"llama"});
  CHECK(entry.host_libraries.empty());
  CHECK(entry.min_driver == 580);
  const std::string plugin_bytes = read_file(cli.plugin);
  CHECK(entry.sha256 == algenta::manifest::sha256_hex(plugin_bytes));
  CHECK(entry.size == plugin_bytes.size());
  CHECK(algenta::manifest::verify_ed25519(read_file(cli.public_key), bytes,
                                          read_file(cli.bundle / kSignatureFile)));

  const CommandResult verified = cli.verify();
  INFO(verified.output);
  CHECK(verified.exit_code == 0);
  CHECK_THAT(verified.output, Contains("accepted: version 1, 1 plugins"));
}

TEST_CASE("sign raises the version and refuses to lower it", "[sign-cli]") {
  SignCli cli;
  cli.sign_bundle();
  const std::string sign = "sign --key " + quoted(cli.private_key) + " --plugins " +
                           quoted(cli.bundle);
  REQUIRE(cli.run(sign).exit_code == 0);
  CHECK(algenta::manifest::parse_manifest(read_file(cli.bundle / kManifestFile)).version == 2);
  REQUIRE(cli.run(sign + " --version 9").exit_code == 0);
  CHECK(algenta::manifest::parse_manifest(read_file(cli.bundle / kManifestFile)).version == 9);

  const CommandResult lower = cli.run(sign + " --version 3");
  CHECK(lower.exit_code == 1);
  CHECK_THAT(lower.output, Contains("--version 3 is lower than the bundle's current version 9"));
}

TEST_CASE("sign refuses to reuse the bundle's version for other content", "[sign-cli]") {
  SignCli cli;
  cli.sign_bundle();
  const std::string signed_bytes = read_file(cli.bundle / kManifestFile);
  fs::copy_file(test_plugin_dir() / "libacme_swapped.so", cli.bundle / "libacme_swapped.so");
  const std::string sign = "sign --key " + quoted(cli.private_key) + " --plugins " +
                           quoted(cli.bundle);

  const CommandResult reused = cli.run(sign + " --version 1");
  CHECK(reused.exit_code == 1);
  CHECK_THAT(reused.output,
             Contains("version 1 is already used: the bundle's manifest.json is version 1 with "
                      "other content; hosts that accepted it would refuse this as a replay (sign "
                      "with --version 2 or higher, or leave --version out)"));
  CHECK(read_file(cli.bundle / kManifestFile) == signed_bytes);

  const CommandResult raised = cli.run(sign + " --version 2");
  INFO(raised.output);
  CHECK(raised.exit_code == 0);
  CHECK(algenta::manifest::parse_manifest(read_file(cli.bundle / kManifestFile)).plugins.size() == 2);
}

TEST_CASE("verify refuses an edited manifest with exit code 2", "[sign-cli]") {
  SignCli cli;
  cli.sign_bundle();
  std::string bytes = read_file(cli.bundle / kManifestFile);
  bytes.replace(bytes.find("\"sm_86\""), 7, "\"sm_90\"");
  write_file(cli.bundle / kManifestFile, bytes);
  const CommandResult verified = cli.verify();
  CHECK(verified.exit_code == 2);
  CHECK_THAT(verified.output, Contains("refused: signature does not verify"));
}

TEST_CASE("verify reports a tampered plugin file as a digest mismatch", "[sign-cli]") {
  SignCli cli;
  cli.sign_bundle();
  std::string plugin_bytes = read_file(cli.plugin);
  plugin_bytes[plugin_bytes.size() / 2] ^= 0x5a;
  write_file(cli.plugin, plugin_bytes);
  const CommandResult verified = cli.verify();
  CHECK(verified.exit_code == 2);
  CHECK_THAT(verified.output,
             Contains("refused: libacme_engine.so: sha256 digest mismatch"));
}

TEST_CASE("usage errors exit 1 with one line on stderr", "[sign-cli]") {
  SignCli cli;
  const CommandResult none = cli.run("");
  CHECK(none.exit_code == 1);
  CHECK_THAT(none.output, Contains("subcommand is required"));
  CHECK(std::count(none.output.begin(), none.output.end(), '\n') == 1);
  const CommandResult missing_keyring = cli.run("verify --keyring " +
                                                quoted(cli.temp.path() / "absent") +
                                                " --plugins " + quoted(cli.bundle));
  CHECK(missing_keyring.exit_code == 1);
  CHECK_THAT(missing_keyring.output, Contains("keyring directory") && Contains("does not exist"));
}

TEST_CASE("algenta-sign trusts a key for one bundle and revokes it", "[sign-cli]") {
  SignCli cli;
  REQUIRE(cli.keygen().exit_code == 0);
  const std::string key_id = algenta::manifest::key_id_of_public_pem(read_file(cli.public_key));
  const CommandResult sign =
      cli.run("sign --key " + quoted(cli.private_key) + " --plugins " + quoted(cli.bundle));
  REQUIRE(sign.exit_code == 0);

  const CommandResult elsewhere = cli.run("trust --public " + quoted(cli.public_key) +
                                          " --keyring " + quoted(cli.keyring) + " --bundle acme");
  INFO(elsewhere.output);
  REQUIRE(elsewhere.exit_code == 0);
  CHECK(fs::exists(cli.keyring / "bundle" / "acme" / (key_id + ".pub")));
  const std::string verify =
      "verify --keyring " + quoted(cli.keyring) + " --plugins " + quoted(cli.bundle);
  const CommandResult refused = cli.run(verify);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("signing key " + key_id +
                                      " is trusted only for bundle acme, not for bundle"));

  REQUIRE(cli.run("trust --public " + quoted(cli.public_key) + " --keyring " +
                  quoted(cli.keyring) + " --bundle bundle").exit_code == 0);
  const CommandResult accepted = cli.run(verify);
  INFO(accepted.output);
  CHECK(accepted.exit_code == 0);

  const CommandResult revoke =
      cli.run("revoke --public " + quoted(cli.public_key) + " --keyring " + quoted(cli.keyring));
  INFO(revoke.output);
  REQUIRE(revoke.exit_code == 0);
  CHECK_FALSE(fs::exists(cli.keyring / "bundle" / "bundle" / (key_id + ".pub")));
  const CommandResult revoked = cli.run(verify);
  CHECK(revoked.exit_code == 2);
  CHECK_THAT(revoked.output, Contains("signing key " + key_id + " is revoked (" +
                                      (cli.keyring / "revoked" / (key_id + ".pub")).string()));
  const CommandResult again = cli.run("trust --public " + quoted(cli.public_key) +
                                      " --keyring " + quoted(cli.keyring));
  CHECK(again.exit_code == 2);
  CHECK_THAT(again.output, Contains("key " + key_id + " is revoked"));
  CHECK_THAT(cli.run("trust --public " + quoted(cli.public_key) + " --keyring " +
                     quoted(cli.keyring) + " --bundle ..").output,
             Contains("is not a bundle directory name"));
}
