// One text per manifest: the only bytes that count are the canonical
// serialisation algenta-sign writes. A JSON reader accepts many texts for one
// value (other whitespace, key order, escapes, number spellings, a byte-order
// mark, bytes after a NUL); a signature over any of them would cover several
// readings. Requiring serialize(parse(bytes)) == bytes leaves exactly one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "manifest/manifest.hpp"

namespace algenta::manifest {

// Where `bytes` first part from serialize_manifest(manifest), e.g.
// "at byte offset 0 expected '{' (0x7b), found '\xef' (0xef)"; nullopt when
// they are equal. Bytes are shown escaped, never raw.
std::optional<std::string> first_difference_from_canonical(const Manifest& manifest,
                                                           std::string_view bytes);

// parse_manifest, then refuses (ManifestError naming the first differing
// byte) unless `bytes` are exactly the canonical serialisation.
Manifest parse_canonical_manifest(std::string_view bytes);

}  // namespace algenta::manifest
