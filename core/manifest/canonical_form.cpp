#include "manifest/canonical_form.hpp"

#include <algorithm>
#include <cstdio>

namespace algenta::manifest {
namespace {

// One byte as a message may show it: 'a', '\n', '\xef', with its hex value.
std::string described(unsigned char byte) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", byte);
  std::string text;
  if (byte == '\n') {
    text = "\\n";
  } else if (byte == '\t') {
    text = "\\t";
  } else if (byte == '\r') {
    text = "\\r";
  } else if (byte >= 0x20 && byte < 0x7f) {
    text = std::string(1, static_cast<char>(byte));
  } else {
    text = std::string("\\x") + (hex + 2);
  }
  return "'" + text + "' (" + hex + ")";
}

std::string described_at(std::string_view bytes, std::size_t offset) {
  if (offset >= bytes.size()) return "the end of the file";
  return described(static_cast<unsigned char>(bytes[offset]));
}

}  // namespace

std::optional<std::string> first_difference_from_canonical(const Manifest& manifest,
                                                           std::string_view bytes) {
  const std::string canonical = serialize_manifest(manifest);
  if (canonical == bytes) return std::nullopt;
  const auto mismatch = std::mismatch(canonical.begin(), canonical.end(), bytes.begin(), bytes.end());
  const auto offset = static_cast<std::size_t>(mismatch.first - canonical.begin());
  return "at byte offset " + std::to_string(offset) + " expected " +
         described_at(canonical, offset) + ", found " + described_at(bytes, offset);
}

Manifest parse_canonical_manifest(std::string_view bytes) {
  Manifest manifest = parse_manifest(bytes);
  if (const auto difference = first_difference_from_canonical(manifest, bytes)) {
    throw ManifestError("not the canonical form algenta-sign writes: " + *difference);
  }
  return manifest;
}

}  // namespace algenta::manifest
