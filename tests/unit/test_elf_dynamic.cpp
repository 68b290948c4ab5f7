// The ELF64 dynamic-section reader over in-memory images: real plugins,
// their search-path variants, and truncated or garbage input (refused with
// a named fact, never a crash).
#include <elf.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "loader/elf_dynamic.hpp"
#include "support/bundle_fixture.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using Catch::Matchers::Contains;
using Catch::Matchers::VectorContains;

namespace {

std::string plugin_bytes(const std::string& name) {
  return test::read_file(test::test_plugin_dir() / ("lib" + name + ".so"));
}

}  // namespace

TEST_CASE("the reader lists NEEDED, RPATH and RUNPATH of built plugins", "[elf]") {
  SECTION("the plain plugin: libc, no search path") {
    const loader::ElfDynamic d = loader::read_elf_dynamic(plugin_bytes("acme_engine"));
    CHECK_THAT(d.needed, VectorContains(std::string("libc.so.6")));
    CHECK(d.rpath.empty());
    CHECK(d.runpath.empty());
  }
  SECTION("RUNPATH .") {
    CHECK(loader::read_elf_dynamic(plugin_bytes("acme_rpath_dot")).runpath ==
          std::vector<std::string>{"."});
  }
  SECTION("RUNPATH $ORIGIN") {
    CHECK(loader::read_elf_dynamic(plugin_bytes("acme_rpath_origin")).runpath ==
          std::vector<std::string>{"$ORIGIN"});
  }
  SECTION("RUNPATH with an empty element") {
    CHECK(loader::read_elf_dynamic(plugin_bytes("acme_rpath_empty")).runpath ==
          std::vector<std::string>{"/usr/lib", "", "/lib"});
  }
  SECTION("the old DT_RPATH") {
    const loader::ElfDynamic d = loader::read_elf_dynamic(plugin_bytes("acme_old_rpath"));
    CHECK(d.rpath == std::vector<std::string>{"lib"});
    CHECK(d.runpath.empty());
  }
  SECTION("a NEEDED library of its own") {
    CHECK_THAT(loader::read_elf_dynamic(plugin_bytes("acme_needs_dep")).needed,
               VectorContains(std::string("libalgenta_testdep.so.1")));
  }
}

TEST_CASE("every truncation of a plugin is refused or read, never a crash", "[elf]") {
  const std::string image = plugin_bytes("acme_rpath_dot");
  std::size_t refused = 0;
  for (std::size_t size = 0; size < image.size(); size += size < 4096 ? 1 : 61) {
    try {
      loader::read_elf_dynamic(std::string_view(image).substr(0, size));
    } catch (const loader::ElfError& e) {
      ++refused;
      CHECK_THAT(e.what(), Contains("malformed ELF image: "));
    }
  }
  CHECK(refused > 0);
  CHECK_THROWS_WITH(loader::read_elf_dynamic(""), Contains("no ELF magic at byte 0"));
  CHECK_THROWS_WITH(loader::read_elf_dynamic(image.substr(0, 40)),
                    Contains("the ELF64 header") && Contains("past the end of the 40-byte image"));
}

TEST_CASE("garbage and corrupted headers are refused naming the fact", "[elf]") {
  const std::string image = plugin_bytes("acme_engine");
  Elf64_Ehdr header;
  std::memcpy(&header, image.data(), sizeof header);

  SECTION("random bytes behind an ELF magic") {
    std::mt19937 random(1234);
    for (int round = 0; round < 200; ++round) {
      std::string junk(64 + random() % 4096, '\0');
      for (char& c : junk) c = static_cast<char>(random());
      std::memcpy(junk.data(), ELFMAG, SELFMAG);
      junk[EI_CLASS] = ELFCLASS64;
      junk[EI_DATA] = ELFDATA2LSB;
      try {
        loader::read_elf_dynamic(junk);
      } catch (const loader::ElfError&) {
      }
    }
  }
  SECTION("random bit flips in a real plugin") {
    std::mt19937 random(99);
    for (int round = 0; round < 300; ++round) {
      std::string flipped = image;
      for (int i = 0; i < 8; ++i) flipped[random() % 4096 % flipped.size()] ^= static_cast<char>(1u << (random() % 8));
      try {
        loader::read_elf_dynamic(flipped);
      } catch (const loader::ElfError&) {
      }
    }
  }
  SECTION("a 32-bit class") {
    std::string bad = image;
    bad[EI_CLASS] = ELFCLASS32;
    CHECK_THROWS_WITH(loader::read_elf_dynamic(bad), Contains("class 1 is not ELFCLASS64"));
  }
  SECTION("not a shared object") {
    std::string bad = image;
    Elf64_Ehdr h = header;
    h.e_type = ET_EXEC;
    std::memcpy(bad.data(), &h, sizeof h);
    CHECK_THROWS_WITH(loader::read_elf_dynamic(bad), Contains("type 2 is not ET_DYN"));
  }
  SECTION("program headers past the end") {
    std::string bad = image;
    Elf64_Ehdr h = header;
    h.e_phoff = image.size() - 8;
    std::memcpy(bad.data(), &h, sizeof h);
    CHECK_THROWS_WITH(loader::read_elf_dynamic(bad),
                      Contains("the program header table") && Contains("lies past the end"));
  }
  SECTION("a program header size other than Elf64_Phdr's") {
    std::string bad = image;
    Elf64_Ehdr h = header;
    h.e_phentsize = 32;
    std::memcpy(bad.data(), &h, sizeof h);
    CHECK_THROWS_WITH(loader::read_elf_dynamic(bad), Contains("program header size 32 is not 56"));
  }
}
