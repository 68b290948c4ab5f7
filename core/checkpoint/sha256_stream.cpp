#include "checkpoint/sha256_stream.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace algenta::checkpoint {

void Sha256Stream::ContextDeleter::operator()(evp_md_ctx_st* context) const noexcept { EVP_MD_CTX_free(context); }

Sha256Stream::Sha256Stream() : context_(EVP_MD_CTX_new()) {
  if (!context_ || EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256: OpenSSL could not start a digest");
  }
}

Sha256Stream::~Sha256Stream() = default;
Sha256Stream::Sha256Stream(Sha256Stream&&) noexcept = default;
Sha256Stream& Sha256Stream::operator=(Sha256Stream&&) noexcept = default;

void Sha256Stream::update(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  if (!context_ || EVP_DigestUpdate(context_.get(), bytes.data(), bytes.size()) != 1) {
    throw std::runtime_error("SHA-256: OpenSSL could not update the digest");
  }
}

std::string Sha256Stream::finish_hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!context_ || EVP_DigestFinal_ex(context_.get(), digest, &length) != 1) {
    throw std::runtime_error("SHA-256: OpenSSL could not finish the digest");
  }
  context_.reset();
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

std::string sha256_hex_of(std::span<const std::byte> bytes) {
  Sha256Stream stream;
  stream.update(bytes);
  return stream.finish_hex();
}

}  // namespace algenta::checkpoint
