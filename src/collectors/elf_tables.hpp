#pragma once
// The section and symbol tables of a 64-bit little-endian ELF image (NVIDIA cubins, AMDGPU code objects), read
// straight from its bytes with every offset bounds-checked. Pure file parsing, for the optimizer's gates on
// compiled code objects (code_object_facts.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectors/binary_image.hpp"

namespace rpl::collectors {

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
};

struct ElfSymbol {
  std::string name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t type = 0;     // STT_*: 0 NOTYPE, 1 OBJECT, 2 FUNC, 3 SECTION
  uint8_t binding = 0;  // STB_*: 0 LOCAL, 1 GLOBAL, 2 WEAK
  uint8_t other = 0;    // st_other (NVIDIA marks kernels with 0x10)
  uint16_t section_index = 0;  // 0: undefined
  std::string section;         // the defining section's name, "" when undefined
};

inline constexpr uint8_t kSymObject = 1;
inline constexpr uint8_t kSymFunc = 2;
inline constexpr uint8_t kBindLocal = 0;

struct ElfTables {
  uint16_t machine = 0;
  std::vector<ElfSection> sections;
  std::vector<ElfSymbol> symbols;  // .symtab (or .dynsym when there is no .symtab), without the null entry
  // The bytes of a section (nullopt for SHT_NOBITS or a range outside the image).
  std::optional<Bytes> contents(const ElfSection& s) const;
  Bytes image;
};

// Throws rpl::Error(InputCorrupt) naming `what` when the image is not a 64-bit little-endian ELF or a table lies
// outside it.
ElfTables read_elf_tables(Bytes image, const std::string& what);

}  // namespace rpl::collectors
