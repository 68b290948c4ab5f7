// What a shared object asks of the dynamic linker, read from its bytes:
// DT_NEEDED sonames and the DT_RPATH / DT_RUNPATH search directories. Reads
// the verified in-memory image, never a path; every offset is bounds-checked.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::loader {

struct ElfError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ElfDynamic {
  std::vector<std::string> needed;
  std::vector<std::string> rpath;    // each DT_RPATH split at ':' (empty elements kept)
  std::vector<std::string> runpath;  // each DT_RUNPATH split at ':'
};

// Throws ElfError naming the fact (not ELF64, offset past the end, string
// not terminated, ...) for anything that is not a well-formed little-endian
// ELF64 shared object.
ElfDynamic read_elf_dynamic(std::string_view image);

}  // namespace algenta::loader
