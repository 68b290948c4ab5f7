// Fuzzes the one-text rule: bytes the canonical check accepts must be
// exactly serialize(parse(bytes)), must read as one manifest every time, and
// none of the neighbouring texts a lenient reader takes for the same value
// (a byte-order mark before, a NUL and more after, whitespace around) may be
// accepted too. Anything else the check may refuse, with ManifestError only.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "manifest/canonical_form.hpp"
#include "manifest/manifest.hpp"

namespace {

using namespace algenta::manifest;

bool accepted(std::string_view bytes) {
  try {
    parse_canonical_manifest(bytes);
    return true;
  } catch (const ManifestError&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  Manifest manifest;
  try {
    manifest = parse_canonical_manifest(bytes);
  } catch (const ManifestError&) {
    return 0;  // refused: the expected outcome for almost every input
  }
  if (serialize_manifest(manifest) != bytes) std::abort();
  if (!(parse_manifest(bytes) == manifest)) std::abort();
  if (!(parse_canonical_manifest(bytes) == manifest)) std::abort();
  const std::string neighbours[] = {"\xEF\xBB\xBF" + bytes, bytes + std::string(1, '\0') + "{}",
                                    bytes + std::string(1, '\0'), bytes + "\n", " " + bytes,
                                    bytes.substr(0, bytes.size() - 1)};
  for (const std::string& neighbour : neighbours) {
    if (accepted(neighbour)) std::abort();
  }
  return 0;
}
