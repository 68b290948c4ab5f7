// SHA-256 over data that arrives in pieces (a multi-GB blob), through the
// OpenSSL 3 EVP interface.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

struct evp_md_ctx_st;

namespace algenta::checkpoint {

class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(Sha256Stream&&) noexcept;
  Sha256Stream& operator=(Sha256Stream&&) noexcept;

  void update(std::span<const std::byte> bytes);
  // 64 lowercase hex digits; the stream cannot be updated afterwards.
  std::string finish_hex();

 private:
  struct ContextDeleter {
    void operator()(evp_md_ctx_st* context) const noexcept;
  };
  std::unique_ptr<evp_md_ctx_st, ContextDeleter> context_;
};

// One-shot digest of a whole buffer (e.g. a mapped blob), as hex.
std::string sha256_hex_of(std::span<const std::byte> bytes);

}  // namespace algenta::checkpoint
