// API keys: loaded from --api-key-file and ALGENTA_API_KEYS, held only as
// SHA-256 digests, compared in constant time.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::serve {

// A key file or variable that cannot be used; what() names the file, the
// line or the mode, never a key.
struct ApiKeyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr std::uint64_t kMaxApiKeyFileBytes = 1 << 20;
inline constexpr std::size_t kMaxApiKeyBytes = 1024;
inline constexpr std::size_t kShortApiKeyBytes = 16;  // shorter ones are warned about

class ApiKeys {
 public:
  ApiKeys() = default;  // no keys: every request is allowed

  // Keys from `file` (one per line; blank lines and lines starting with #
  // skipped) and from `env_value` (comma-separated), both optional. A file
  // others may read or anyone but its owner may write is refused; a
  // group-readable one is allowed with a warning. A source that is given
  // but holds no key is refused: asking for keys and getting none must
  // not open the server.
  static ApiKeys load(const std::optional<std::filesystem::path>& file,
                      const std::optional<std::string>& env_value,
                      std::vector<std::string>& warnings);
  static ApiKeys from_keys(const std::vector<std::string>& keys);
  // load() from a --api-key-file flag (empty: none) and the process's
  // ALGENTA_API_KEYS variable (unset: none): what a server's command line gives.
  static ApiKeys from_flag_and_environment(const std::string& key_file,
                                           std::vector<std::string>& warnings);

  bool enabled() const { return !digests_.empty(); }
  std::size_t size() const { return digests_.size(); }

  // Whether `presented` is one of the keys. Compares digests with
  // CRYPTO_memcmp against every key, so the time taken does not depend on
  // which key matched or how much of one did.
  bool accepts(std::string_view presented) const;

 private:
  using Digest = std::array<unsigned char, 32>;
  void add(std::string_view key);
  std::vector<Digest> digests_;
};

// The keys in a key file's text; `name` names it in errors.
std::vector<std::string> parse_key_file(std::string_view text, const std::string& name);
// The keys in ALGENTA_API_KEYS' value.
std::vector<std::string> parse_key_list(std::string_view text);

}  // namespace algenta::serve
