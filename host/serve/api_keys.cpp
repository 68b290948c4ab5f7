#include "serve/api_keys.hpp"

#include <cstdlib>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include <cstdio>

#include "files/bounded_read.hpp"

namespace algenta::serve {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A key is printable ASCII without spaces, so it survives an HTTP header.
void check_key(std::string_view key, const std::string& where) {
  if (key.size() > kMaxApiKeyBytes) {
    throw ApiKeyError(where + " holds a key of " + std::to_string(key.size()) +
                      " bytes, over the cap of " + std::to_string(kMaxApiKeyBytes));
  }
  for (std::size_t i = 0; i < key.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    if (c < 0x21 || c > 0x7e) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", c);
      throw ApiKeyError(where + " holds a key with byte " + hex + " at position " +
                        std::to_string(i) +
                        ": keys must be printable ASCII without spaces");
    }
  }
}

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

void check_key_file_mode(const std::filesystem::path& file, std::vector<std::string>& warnings) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return;  // read_bounded names the problem
  const std::string mode = octal_mode(st.st_mode);
  if (st.st_mode & (S_IROTH | S_IWOTH)) {
    throw ApiKeyError("API key file " + file.string() + " has mode " + mode +
                      ": every user on this machine can " +
                      ((st.st_mode & S_IWOTH) ? "change" : "read") + " the keys; run chmod 600 " +
                      file.string());
  }
  if (st.st_mode & S_IWGRP) {
    throw ApiKeyError("API key file " + file.string() + " has mode " + mode +
                      ": its group can change the keys; run chmod 600 " + file.string());
  }
  if (st.st_mode & S_IRGRP) {
    warnings.push_back("API key file " + file.string() + " has mode " + mode +
                       ": members of its group can read the keys (chmod 600 to stop that)");
  }
}

}  // namespace

std::vector<std::string> parse_key_file(std::string_view text, const std::string& name) {
  std::vector<std::string> keys;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;
    check_key(line, name + " line " + std::to_string(line_number));
    keys.emplace_back(line);
  }
  return keys;
}

std::vector<std::string> parse_key_list(std::string_view text) {
  std::vector<std::string> keys;
  std::size_t item = 0;
  while (true) {
    ++item;
    const std::size_t comma = text.find(',');
    const std::string_view key = trim(text.substr(0, comma));
    if (!key.empty()) {
      check_key(key, "ALGENTA_API_KEYS item " + std::to_string(item));
      keys.emplace_back(key);
    }
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  return keys;
}

ApiKeys ApiKeys::from_flag_and_environment(const std::string& key_file,
                                           std::vector<std::string>& warnings) {
  const char* env = std::getenv("ALGENTA_API_KEYS");
  return load(key_file.empty() ? std::nullopt : std::optional<std::filesystem::path>(key_file),
              env ? std::optional<std::string>(env) : std::nullopt, warnings);
}

ApiKeys ApiKeys::load(const std::optional<std::filesystem::path>& file,
                      const std::optional<std::string>& env_value,
                      std::vector<std::string>& warnings) {
  ApiKeys keys;
  if (file) {
    check_key_file_mode(*file, warnings);
    std::string text;
    try {
      text = files::read_bounded(*file, {kMaxApiKeyFileBytes, "an API key file"});
    } catch (const files::FileReadError& e) {
      throw ApiKeyError(std::string("API key file ") + e.what());
    }
    const std::vector<std::string> from_file = parse_key_file(text, "API key file " + file->string());
    if (from_file.empty()) {
      throw ApiKeyError("API key file " + file->string() +
                        " holds no key (only blank lines and # comments)");
    }
    for (const std::string& k : from_file) keys.add(k);
    for (std::size_t i = 0; i < from_file.size(); ++i) {
      if (from_file[i].size() < kShortApiKeyBytes) {
        warnings.push_back("API key file " + file->string() + ": key " + std::to_string(i + 1) +
                           " is " + std::to_string(from_file[i].size()) +
                           " bytes; keys under " + std::to_string(kShortApiKeyBytes) +
                           " bytes are easy to guess");
      }
    }
  }
  if (env_value) {
    const std::vector<std::string> from_env = parse_key_list(*env_value);
    if (from_env.empty()) {
      throw ApiKeyError("ALGENTA_API_KEYS is set but holds no key (unset it to serve without keys)");
    }
    for (const std::string& k : from_env) keys.add(k);
  }
  return keys;
}

ApiKeys ApiKeys::from_keys(const std::vector<std::string>& keys) {
  ApiKeys result;
  for (const std::string& k : keys) result.add(k);
  return result;
}

namespace {

std::array<unsigned char, 32> sha256(std::string_view data) {
  std::array<unsigned char, 32> digest{};
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1 ||
      size != digest.size()) {
    throw std::runtime_error("SHA-256 failed in OpenSSL");
  }
  return digest;
}

}  // namespace

void ApiKeys::add(std::string_view key) { digests_.push_back(sha256(key)); }

bool ApiKeys::accepts(std::string_view presented) const {
  // Hashing first makes every comparison the same length whatever was sent.
  const Digest digest = sha256(presented);
  int matched = 0;
  for (const Digest& d : digests_) {
    matched |= CRYPTO_memcmp(d.data(), digest.data(), d.size()) == 0 ? 1 : 0;
  }
  return matched != 0;
}

}  // namespace algenta::serve
