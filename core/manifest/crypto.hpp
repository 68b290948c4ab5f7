// Ed25519 keys and signatures, SHA-256 digests: OpenSSL 3 EVP only.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace algenta::manifest {

struct CryptoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string sha256_hex(std::string_view bytes);

struct KeyPair {
  std::string private_pem;  // PKCS#8 PEM
  std::string public_pem;   // SubjectPublicKeyInfo PEM
};

KeyPair generate_ed25519_keypair();

// Key id: first 16 bytes of SHA-256 over the raw 32-byte public key, as hex.
std::string key_id_of_public_pem(std::string_view public_pem);
std::string public_pem_of_private_pem(std::string_view private_pem);

// Signature over the exact bytes; raw 64-byte Ed25519 signature.
std::string sign_ed25519(std::string_view private_pem, std::string_view message);
bool verify_ed25519(std::string_view public_pem, std::string_view message,
                    std::string_view signature);

}  // namespace algenta::manifest
