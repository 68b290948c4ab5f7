// Ed25519 and SHA-256 through OpenSSL 3's EVP interface. Every OpenSSL object
// is owned by a unique_ptr so no error path leaks one; every failure becomes a
// CryptoError carrying OpenSSL's own reason.
#include "manifest/crypto.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <array>
#include <climits>
#include <memory>

namespace algenta::manifest {
namespace {

constexpr std::size_t kEd25519PublicKeyBytes = 32;
constexpr std::size_t kEd25519SignatureBytes = 64;
constexpr std::size_t kKeyIdBytes = 16;

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// Takes the oldest queued OpenSSL error (the root cause) and clears the rest,
// so a later failure never reports a stale reason.
[[noreturn]] void fail(const std::string& what) {
  const unsigned long code = ERR_get_error();
  std::string reason = "no OpenSSL error queued";
  if (code != 0) {
    std::array<char, 256> text{};
    ERR_error_string_n(code, text.data(), text.size());
    reason = text.data();
  }
  ERR_clear_error();
  throw CryptoError(what + ": " + reason);
}

std::string to_hex(const unsigned char* bytes, std::size_t count) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(count * 2);
  for (std::size_t i = 0; i < count; ++i) {
    hex.push_back(kDigits[bytes[i] >> 4]);
    hex.push_back(kDigits[bytes[i] & 0x0f]);
  }
  return hex;
}

BioPtr read_bio(std::string_view bytes) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    throw CryptoError("key PEM is too large (" + std::to_string(bytes.size()) + " bytes)");
  }
  BioPtr bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
  if (!bio) fail("cannot allocate an OpenSSL memory buffer");
  return bio;
}

std::string drain(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// Never prompt on the terminal for an encrypted key: fail instead.
int refuse_passphrase(char*, int, int, void*) { return -1; }

void require_ed25519(const EVP_PKEY* key, const char* what) {
  if (EVP_PKEY_is_a(key, "ED25519") != 1) {
    const char* type = EVP_PKEY_get0_type_name(key);
    throw CryptoError(std::string(what) + " is a " + (type != nullptr ? type : "non-Ed25519") +
                      " key, expected an Ed25519 key");
  }
}

PkeyPtr read_public_key(std::string_view public_pem) {
  BioPtr bio = read_bio(public_pem);
  PkeyPtr key(PEM_read_bio_PUBKEY(bio.get(), nullptr, refuse_passphrase, nullptr));
  if (!key) fail("cannot read the public key PEM");
  require_ed25519(key.get(), "the public key");
  return key;
}

PkeyPtr read_private_key(std::string_view private_pem) {
  BioPtr bio = read_bio(private_pem);
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, refuse_passphrase, nullptr));
  if (!key) fail("cannot read the private key PEM (unencrypted PKCS#8 expected)");
  require_ed25519(key.get(), "the private key");
  return key;
}

std::string public_pem_of(EVP_PKEY* key) {
  BioPtr out(BIO_new(BIO_s_mem()));
  if (!out || PEM_write_bio_PUBKEY(out.get(), key) != 1) fail("cannot write the public key PEM");
  return drain(out.get());
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int digest_size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &digest_size, EVP_sha256(),
                 nullptr) != 1) {
    fail("SHA-256 failed");
  }
  return to_hex(digest.data(), digest_size);
}

KeyPair generate_ed25519_keypair() {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (!key) fail("cannot generate an Ed25519 key");
  BioPtr private_out(BIO_new(BIO_s_mem()));
  if (!private_out || PEM_write_bio_PrivateKey(private_out.get(), key.get(), nullptr, nullptr,
                                               0, nullptr, nullptr) != 1) {
    fail("cannot write the private key PEM");
  }
  return KeyPair{drain(private_out.get()), public_pem_of(key.get())};
}

std::string key_id_of_public_pem(std::string_view public_pem) {
  PkeyPtr key = read_public_key(public_pem);
  std::array<unsigned char, kEd25519PublicKeyBytes> raw{};
  std::size_t raw_size = raw.size();
  if (EVP_PKEY_get_raw_public_key(key.get(), raw.data(), &raw_size) != 1 ||
      raw_size != raw.size()) {
    fail("cannot read the raw Ed25519 public key");
  }
  const std::string digest =
      sha256_hex(std::string_view(reinterpret_cast<const char*>(raw.data()), raw_size));
  return digest.substr(0, kKeyIdBytes * 2);
}

std::string public_pem_of_private_pem(std::string_view private_pem) {
  PkeyPtr key = read_private_key(private_pem);
  return public_pem_of(key.get());
}

std::string sign_ed25519(std::string_view private_pem, std::string_view message) {
  PkeyPtr key = read_private_key(private_pem);
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx) fail("cannot allocate a signing context");
  // Ed25519 hashes internally: the digest argument must be NULL.
  if (EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) {
    fail("cannot start an Ed25519 signature");
  }
  std::string signature(kEd25519SignatureBytes, '\0');
  std::size_t signature_size = signature.size();
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()),
                     &signature_size, reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1) {
    fail("Ed25519 signing failed");
  }
  signature.resize(signature_size);
  return signature;
}

bool verify_ed25519(std::string_view public_pem, std::string_view message,
                    std::string_view signature) {
  PkeyPtr key = read_public_key(public_pem);
  if (signature.size() != kEd25519SignatureBytes) return false;
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx) fail("cannot allocate a verification context");
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) {
    fail("cannot start an Ed25519 verification");
  }
  const int result = EVP_DigestVerify(
      ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
      reinterpret_cast<const unsigned char*>(message.data()), message.size());
  // Anything but 1 is a signature that does not verify; drop what OpenSSL queued.
  ERR_clear_error();
  return result == 1;
}

}  // namespace algenta::manifest
