// Fuzzes the strict manifest parser: any input must either parse or raise
// ManifestError; a crash, a sanitizer report or another exception is a bug.
// A manifest that parses must also survive the canonical writer unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "manifest/manifest.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace algenta::manifest;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const Manifest manifest = parse_manifest(bytes);
    if (!(parse_manifest(serialize_manifest(manifest)) == manifest)) std::abort();
  } catch (const ManifestError&) {
    // Refusing bad input is the expected outcome.
  }
  return 0;
}
