// The signed plugin manifest: data model, strict parser and canonical writer.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::manifest {

inline constexpr std::string_view kSchema = "algenta.plugin-manifest/1";
inline constexpr std::size_t kMaxManifestBytes = 1u << 20;  // 1 MiB cap
// The deepest valid manifest is 3 containers deep (plugins[i].abi); the cap
// keeps hostile input from costing more than it must.
inline constexpr std::size_t kMaxManifestDepth = 8;

// Raised for anything wrong with a manifest's bytes or fields; what() names
// the exact fact (field, value, allowed range).
struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PluginEntry {
  std::string file;    // file name inside the bundle directory, no '/'
  std::string sha256;  // lowercase hex of the file's bytes
  std::uint64_t size = 0;
  std::string name;    // plugin name, e.g. "cuda_sm90a"
  std::string role;    // "engine" | "oracle"
  std::string target;  // "sm_75" | "sm_80" | "sm_89" | "sm_90a" | "cpu" | ...
  std::uint32_t abi_major = 0;
  std::uint32_t abi_minor = 0;
  std::vector<std::string> families;
  std::vector<std::string> host_libraries;  // sonames, e.g. "libcublas.so.13"
  std::uint32_t min_driver = 0;  // NVIDIA driver major (e.g. 580); 0 = none

  bool operator==(const PluginEntry&) const = default;
};

struct Manifest {
  std::string schema{kSchema};
  std::uint64_t version = 0;  // monotonic per signing key
  std::string issued;         // RFC 3339 UTC, "2026-12-02T16:00:00Z"
  std::string expires;        // RFC 3339 UTC
  std::string key_id;         // see crypto.hpp key_id_of()
  std::vector<PluginEntry> plugins;

  bool operator==(const Manifest&) const = default;
};

// Strict parse: rejects input over kMaxManifestBytes, invalid UTF-8, duplicate
// keys at any depth, trailing data, unknown schema, missing/mistyped fields,
// unknown fields, file names with '/' or "..", bad hex digests.
Manifest parse_manifest(std::string_view bytes);

// Canonical serialisation (stable key order, 2-space indent, trailing '\n').
// parse_manifest(serialize_manifest(m)) == m.
std::string serialize_manifest(const Manifest& manifest);

// RFC 3339 "YYYY-MM-DDTHH:MM:SSZ" <-> seconds since the Unix epoch.
std::int64_t parse_utc_timestamp(std::string_view text);  // throws ManifestError
std::string format_utc_timestamp(std::int64_t unix_seconds);

}  // namespace algenta::manifest
