#include "loader/elf_dynamic.hpp"

#include <elf.h>

#include <cstring>
#include <optional>

namespace algenta::loader {
namespace {

[[noreturn]] void malformed(const std::string& fact) {
  throw ElfError("malformed ELF image: " + fact);
}

// Bytes [offset, offset + size) of the image, or a refusal naming `what`.
void require_range(std::string_view image, std::uint64_t offset, std::uint64_t size,
                   const std::string& what) {
  if (offset > image.size() || size > image.size() - offset) {
    malformed(what + " (bytes " + std::to_string(offset) + "+" + std::to_string(size) +
              ") lies past the end of the " + std::to_string(image.size()) + "-byte image");
  }
}

template <typename T>
T read_at(std::string_view image, std::uint64_t offset, const std::string& what) {
  require_range(image, offset, sizeof(T), what);
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

std::vector<std::string> split_path_list(const std::string& list) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = list.find(':', start);
    parts.push_back(list.substr(start, colon - start));
    if (colon == std::string::npos) return parts;
    start = colon + 1;
  }
}

struct StringTable {
  std::uint64_t offset = 0;  // in the file
  std::uint64_t size = 0;
};

// DT_STRTAB holds a virtual address: the PT_LOAD segment covering it says
// where those bytes sit in the file.
StringTable locate_string_table(std::string_view image, const Elf64_Ehdr& header,
                                std::uint64_t vaddr, std::uint64_t size) {
  for (std::uint16_t i = 0; i < header.e_phnum; ++i) {
    const auto ph = read_at<Elf64_Phdr>(image, header.e_phoff + std::uint64_t{i} * sizeof(Elf64_Phdr),
                                        "program header " + std::to_string(i));
    if (ph.p_type != PT_LOAD || vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz) continue;
    const std::uint64_t into = vaddr - ph.p_vaddr;
    if (size > ph.p_filesz - into) {
      malformed("DT_STRSZ " + std::to_string(size) + " runs past the PT_LOAD segment holding DT_STRTAB");
    }
    require_range(image, ph.p_offset + into, size, "the dynamic string table");
    return {ph.p_offset + into, size};
  }
  malformed("DT_STRTAB address 0x" + [&] {
    char hex[32];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(vaddr));
    return std::string(hex);
  }() + " lies in no PT_LOAD segment's file bytes");
}

std::string string_at(std::string_view image, const StringTable& table, std::uint64_t offset,
                      const char* tag) {
  if (offset >= table.size) {
    malformed(std::string(tag) + " string offset " + std::to_string(offset) +
              " is outside the " + std::to_string(table.size) + "-byte string table");
  }
  const std::string_view rest = image.substr(table.offset + offset, table.size - offset);
  const std::size_t end = rest.find('\0');
  if (end == std::string_view::npos) {
    malformed(std::string(tag) + " string at offset " + std::to_string(offset) +
              " is not terminated inside the string table");
  }
  return std::string(rest.substr(0, end));
}

}  // namespace

ElfDynamic read_elf_dynamic(std::string_view image) {
  if (image.size() < EI_NIDENT || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0) {
    malformed("no ELF magic at byte 0");
  }
  const auto header = read_at<Elf64_Ehdr>(image, 0, "the ELF64 header");
  if (header.e_ident[EI_CLASS] != ELFCLASS64) {
    malformed("class " + std::to_string(header.e_ident[EI_CLASS]) + " is not ELFCLASS64");
  }
  if (header.e_ident[EI_DATA] != ELFDATA2LSB) {
    malformed("data encoding " + std::to_string(header.e_ident[EI_DATA]) + " is not little-endian");
  }
  if (header.e_type != ET_DYN) malformed("type " + std::to_string(header.e_type) + " is not ET_DYN");
  if (header.e_phentsize != sizeof(Elf64_Phdr)) {
    malformed("program header size " + std::to_string(header.e_phentsize) + " is not " +
              std::to_string(sizeof(Elf64_Phdr)));
  }
  require_range(image, header.e_phoff, std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr),
                "the program header table");

  std::optional<Elf64_Phdr> dynamic;
  for (std::uint16_t i = 0; i < header.e_phnum; ++i) {
    const auto ph = read_at<Elf64_Phdr>(image, header.e_phoff + std::uint64_t{i} * sizeof(Elf64_Phdr),
                                        "program header " + std::to_string(i));
    if (ph.p_type != PT_DYNAMIC) continue;
    if (dynamic) malformed("more than one PT_DYNAMIC segment");
    dynamic = ph;
  }
  ElfDynamic result;
  if (!dynamic) return result;  // nothing for the dynamic linker to resolve
  require_range(image, dynamic->p_offset, dynamic->p_filesz, "the PT_DYNAMIC segment");

  std::optional<std::uint64_t> strtab;
  std::optional<std::uint64_t> strsz;
  std::vector<std::pair<std::int64_t, std::uint64_t>> strings;  // (tag, offset)
  bool terminated = false;
  const std::uint64_t count = dynamic->p_filesz / sizeof(Elf64_Dyn);
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto dyn = read_at<Elf64_Dyn>(image, dynamic->p_offset + i * sizeof(Elf64_Dyn),
                                        "dynamic entry " + std::to_string(i));
    if (dyn.d_tag == DT_NULL) {
      terminated = true;
      break;
    }
    if (dyn.d_tag == DT_STRTAB) strtab = dyn.d_un.d_ptr;
    if (dyn.d_tag == DT_STRSZ) strsz = dyn.d_un.d_val;
    if (dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RPATH || dyn.d_tag == DT_RUNPATH) {
      strings.emplace_back(dyn.d_tag, dyn.d_un.d_val);
    }
  }
  if (!terminated) malformed("the dynamic section has no DT_NULL terminator");
  if (strings.empty()) return result;
  if (!strtab || !strsz) malformed("DT_NEEDED/DT_RPATH/DT_RUNPATH present without DT_STRTAB and DT_STRSZ");

  const StringTable table = locate_string_table(image, header, *strtab, *strsz);
  for (const auto& [tag, offset] : strings) {
    if (tag == DT_NEEDED) {
      result.needed.push_back(string_at(image, table, offset, "DT_NEEDED"));
    } else if (tag == DT_RPATH) {
      for (std::string& part : split_path_list(string_at(image, table, offset, "DT_RPATH"))) {
        result.rpath.push_back(std::move(part));
      }
    } else {
      for (std::string& part : split_path_list(string_at(image, table, offset, "DT_RUNPATH"))) {
        result.runpath.push_back(std::move(part));
      }
    }
  }
  return result;
}

}  // namespace algenta::loader
