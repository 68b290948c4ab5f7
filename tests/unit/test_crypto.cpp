// Ed25519 keys and signatures, key ids and SHA-256 through OpenSSL.
#include <catch2/catch.hpp>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <functional>
#include <memory>

#include "manifest/crypto.hpp"

using namespace algenta::manifest;
using Catch::Contains;

namespace {

using PkeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

std::string pem_of(const std::function<int(BIO*)>& write) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  REQUIRE(write(bio.get()) == 1);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// A PEM pair of a key type the manifest must never accept.
KeyPair pem_pair(EVP_PKEY* raw_key) {
  PkeyPtr key(raw_key, EVP_PKEY_free);
  REQUIRE(key);
  KeyPair pair;
  pair.private_pem = pem_of([&](BIO* bio) {
    return PEM_write_bio_PrivateKey(bio, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  pair.public_pem = pem_of([&](BIO* bio) { return PEM_write_bio_PUBKEY(bio, key.get()); });
  return pair;
}

}  // namespace

TEST_CASE("sha256_hex matches the standard test vectors", "[crypto]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("a signature verifies with its key and nothing else", "[crypto]") {
  const KeyPair pair = generate_ed25519_keypair();
  CHECK_THAT(pair.private_pem, Contains("BEGIN PRIVATE KEY"));  // PKCS#8, unencrypted
  CHECK_THAT(pair.public_pem, Contains("BEGIN PUBLIC KEY"));
  const std::string message = "{\"version\": 1}\n";
  const std::string signature = sign_ed25519(pair.private_pem, message);
  REQUIRE(signature.size() == 64);
  CHECK(verify_ed25519(pair.public_pem, message, signature));

  SECTION("another key") {
    CHECK_FALSE(verify_ed25519(generate_ed25519_keypair().public_pem, message, signature));
  }
  SECTION("one flipped bit in the message") {
    std::string changed = message;
    changed[3] ^= 0x01;
    CHECK_FALSE(verify_ed25519(pair.public_pem, changed, signature));
  }
  SECTION("one flipped bit in the signature") {
    std::string changed = signature;
    changed[40] ^= 0x10;
    CHECK_FALSE(verify_ed25519(pair.public_pem, message, changed));
  }
  SECTION("a truncated signature") {
    CHECK_FALSE(verify_ed25519(pair.public_pem, message, signature.substr(0, 63)));
  }
}

TEST_CASE("the key id is stable and derived from the key", "[crypto]") {
  const KeyPair pair = generate_ed25519_keypair();
  const std::string id = key_id_of_public_pem(pair.public_pem);
  CHECK(id.size() == 32);
  CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(key_id_of_public_pem(pair.public_pem) == id);
  CHECK(key_id_of_public_pem(public_pem_of_private_pem(pair.private_pem)) == id);
  CHECK(key_id_of_public_pem(generate_ed25519_keypair().public_pem) != id);
}

TEST_CASE("keys that are not Ed25519 are refused", "[crypto]") {
  const KeyPair rsa = pem_pair(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{2048}));
  const KeyPair ec = pem_pair(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  REQUIRE_THROWS_WITH(key_id_of_public_pem(rsa.public_pem), Contains("expected an Ed25519 key"));
  REQUIRE_THROWS_WITH(key_id_of_public_pem(ec.public_pem), Contains("expected an Ed25519 key"));
  REQUIRE_THROWS_AS(sign_ed25519(rsa.private_pem, "x"), CryptoError);
  REQUIRE_THROWS_AS(public_pem_of_private_pem(ec.private_pem), CryptoError);
  REQUIRE_THROWS_AS(verify_ed25519(ec.public_pem, "x", std::string(64, '\0')), CryptoError);
}

TEST_CASE("malformed PEM is a CryptoError carrying OpenSSL's reason", "[crypto]") {
  REQUIRE_THROWS_WITH(key_id_of_public_pem("not a key"),
                      Contains("cannot read the public key PEM") && Contains("error:"));
  REQUIRE_THROWS_AS(sign_ed25519("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                                 "x"),
                    CryptoError);
}
