// Signing a plugin bundle: describe every plugin file in a directory, write
// the canonical manifest.json and its Ed25519 signature next to them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "manifest/manifest.hpp"

namespace algenta::sign {

// A request the signer refuses (e.g. a version below the bundle's current one).
struct SignError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Declared minimum NVIDIA driver for GPU plugins: the CUDA 13 runtime needs 580.
inline constexpr std::uint32_t kCudaMinDriver = 580;

struct SignOptions {
  std::filesystem::path private_key;  // PKCS#8 PEM
  std::filesystem::path plugins_dir;  // the bundle directory
  // Default: existing version + 1, or 1. Never below the existing version,
  // and at the existing version only for the very same manifest bytes.
  std::optional<std::uint64_t> version;
  int valid_days = 365;
  std::int64_t now_unix_seconds = 0;
};

// Lists every regular file named lib*.so in the bundle (sorted), describes
// it, and writes manifest.json, then manifest.json.sig, each atomically.
// Returns what was signed.
manifest::Manifest sign_bundle(const SignOptions& options);

}  // namespace algenta::sign
