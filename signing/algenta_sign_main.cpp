// algenta-sign: the packaging side of plugin trust. Makes signing keys, adds
// public keys to a keyring (for every bundle or for one), revokes them, signs
// plugin bundles and verifies them as the host would. Exit codes: 0 ok,
// 1 usage or I/O error, 2 verification refused.
#include <CLI/CLI.hpp>

#include <chrono>
#include <iostream>

#include "file_io.hpp"
#include "manifest/crypto.hpp"
#include "manifest/trust.hpp"
#include "manifest/trusted_paths.hpp"
#include "private_directories.hpp"
#include "sign_bundle.hpp"

namespace {

namespace fs = std::filesystem;
namespace manifest = algenta::manifest;
namespace sign = algenta::sign;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitRefused = 2;

std::int64_t now_unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int keygen(const fs::path& private_file, const fs::path& public_file) {
  const manifest::KeyPair pair = manifest::generate_ed25519_keypair();
  sign::write_new_file(private_file, pair.private_pem, 0600);
  try {
    sign::write_new_file(public_file, pair.public_pem, 0644);
  } catch (const sign::IoError&) {
    // Leave no half-made key pair behind.
    fs::remove(private_file);
    throw;
  }
  std::cout << manifest::key_id_of_public_pem(pair.public_pem) << "\n";
  return kExitOk;
}

// A bundle name is one directory name: no separators, no dot names.
bool is_bundle_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

int trust(const fs::path& public_file, const fs::path& keyring_dir, const std::string& bundle) {
  const std::string public_pem = sign::read_file(public_file);
  const std::string key_id = manifest::key_id_of_public_pem(public_pem);
  if (!bundle.empty() && !is_bundle_name(bundle)) {
    std::cerr << "algenta-sign: --bundle " << bundle << " is not a bundle directory name\n";
    return kExitError;
  }
  if (fs::exists(keyring_dir / "revoked" / (key_id + ".pub"))) {
    std::cerr << "algenta-sign: key " << key_id << " is revoked ("
              << (keyring_dir / "revoked" / (key_id + ".pub")).string() << ")\n";
    return kExitRefused;
  }
  const fs::path directory = bundle.empty() ? keyring_dir : keyring_dir / "bundle" / bundle;
  sign::make_private_directories(directory);
  const fs::path key_file = directory / (key_id + ".pub");
  sign::replace_file(key_file, public_pem, 0644);
  std::cout << "trusted key " << key_id
            << (bundle.empty() ? std::string() : " for bundle " + bundle) << " as "
            << key_file.string() << "\n";
  return kExitOk;
}

// Moves the key to revoked/: every bundle it signed is refused from now on,
// and trust refuses to bring it back.
int revoke(const fs::path& public_file, const fs::path& keyring_dir) {
  const std::string public_pem = sign::read_file(public_file);
  const std::string key_id = manifest::key_id_of_public_pem(public_pem);
  sign::make_private_directories(keyring_dir / "revoked");
  const fs::path revoked = keyring_dir / "revoked" / (key_id + ".pub");
  sign::replace_file(revoked, public_pem, 0644);
  std::error_code error;
  fs::remove(keyring_dir / (key_id + ".pub"), error);
  if (fs::is_directory(keyring_dir / "bundle", error)) {
    for (const fs::directory_entry& bundle : fs::directory_iterator(keyring_dir / "bundle")) {
      fs::remove(bundle.path() / (key_id + ".pub"), error);
    }
  }
  std::cout << "revoked key " << key_id << " as " << revoked.string() << "\n";
  return kExitOk;
}

int sign_plugins(const sign::SignOptions& options) {
  const manifest::Manifest signed_manifest = sign::sign_bundle(options);
  std::cout << "signed " << (options.plugins_dir / manifest::kManifestFile).string()
            << ": version " << signed_manifest.version << ", "
            << signed_manifest.plugins.size() << " plugins, key " << signed_manifest.key_id
            << ", expires " << signed_manifest.expires << "\n";
  return kExitOk;
}

// The problem with one listed plugin file, or "" when its bytes match.
std::string plugin_file_problem(const fs::path& bundle, const manifest::PluginEntry& entry) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(bundle / entry.file, error))) return entry.file + " missing";
  const std::string bytes = sign::read_file(bundle / entry.file);
  if (bytes.size() != entry.size) {
    return entry.file + ": size mismatch (file " + std::to_string(bytes.size()) +
           " bytes, manifest " + std::to_string(entry.size) + ")";
  }
  const std::string digest = manifest::sha256_hex(bytes);
  if (digest != entry.sha256) {
    return entry.file + ": sha256 digest mismatch (file " + digest + ", manifest " +
           entry.sha256 + ")";
  }
  return "";
}

int verify(const fs::path& keyring_dir, const fs::path& bundle, const fs::path& state_file) {
  const manifest::Keyring keyring = manifest::Keyring::load(keyring_dir);
  manifest::require_trusted_state_file(state_file);
  manifest::VersionState state = manifest::VersionState::load(state_file);
  const manifest::BundleVerdict verdict =
      manifest::verify_bundle(bundle, keyring, state, now_unix_seconds());
  if (!verdict.accepted) {
    std::cerr << "refused: " << verdict.reason << "\n";
    return kExitRefused;
  }
  bool all_match = true;
  for (const manifest::PluginEntry& entry : verdict.manifest->plugins) {
    if (const std::string problem = plugin_file_problem(bundle, entry); !problem.empty()) {
      std::cerr << "refused: " << problem << "\n";
      all_match = false;
    }
  }
  if (!all_match) return kExitRefused;
  std::cout << "accepted: version " << verdict.manifest->version << ", "
            << verdict.manifest->plugins.size() << " plugins\n";
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"algenta-sign: make signing keys, sign and verify algenta plugin bundles"};
  app.require_subcommand(1);

  std::string private_file;
  std::string public_file;
  CLI::App* keygen_command = app.add_subcommand("keygen", "make an Ed25519 signing key pair");
  keygen_command->add_option("--private", private_file, "private key file to create (0600)")
      ->required();
  keygen_command->add_option("--public", public_file, "public key file to create")->required();

  std::string keyring_dir;
  CLI::App* trust_command =
      app.add_subcommand("trust", "add a public key to a keyring as <key id>.pub");
  trust_command->add_option("--public", public_file, "public key file")->required();
  trust_command->add_option("--keyring", keyring_dir, "keyring directory")->required();
  std::string bundle;
  trust_command->add_option("--bundle", bundle,
                            "trust the key only for the bundle directory of this name "
                            "(a third party's key, for its own bundle)");

  CLI::App* revoke_command = app.add_subcommand(
      "revoke", "revoke a key: every bundle it signed is refused (keyring/revoked/<key id>.pub)");
  revoke_command->add_option("--public", public_file, "public key file")->required();
  revoke_command->add_option("--keyring", keyring_dir, "keyring directory")->required();

  std::string key_file;
  std::string plugins_dir;
  std::uint64_t version = 0;
  int valid_days = 365;
  CLI::App* sign_command =
      app.add_subcommand("sign", "describe the lib*.so plugins of a bundle and sign its manifest");
  sign_command->add_option("--key", key_file, "private key file")->required();
  sign_command->add_option("--plugins", plugins_dir, "bundle directory")->required();
  CLI::Option* version_option = sign_command->add_option(
      "--version", version, "manifest version (default: the current one + 1, or 1)");
  sign_command->add_option("--valid-days", valid_days, "days until the manifest expires")
      ->check(CLI::Range(1, 3650))
      ->capture_default_str();

  std::string state_file;
  CLI::App* verify_command =
      app.add_subcommand("verify", "verify a bundle's signature, trust and plugin digests");
  verify_command->add_option("--keyring", keyring_dir, "keyring directory")->required();
  verify_command->add_option("--plugins", plugins_dir, "bundle directory")->required();
  verify_command->add_option("--state", state_file,
                             "rollback state file to check and update (default: none)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(error);
    std::cerr << "algenta-sign: " << error.what() << " (see --help)\n";
    return kExitError;
  }

  try {
    if (*keygen_command) return keygen(private_file, public_file);
    if (*trust_command) return trust(public_file, keyring_dir, bundle);
    if (*revoke_command) return revoke(public_file, keyring_dir);
    if (*sign_command) {
      sign::SignOptions options;
      options.private_key = key_file;
      options.plugins_dir = plugins_dir;
      if (version_option->count() > 0) options.version = version;
      options.valid_days = valid_days;
      options.now_unix_seconds = now_unix_seconds();
      return sign_plugins(options);
    }
    return verify(keyring_dir, plugins_dir, state_file);
  } catch (const std::exception& error) {
    std::cerr << "algenta-sign: " << error.what() << "\n";
    return kExitError;
  }
}
