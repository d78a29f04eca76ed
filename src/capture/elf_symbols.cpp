#include "capture/elf_symbols.hpp"

#include <elf.h>

#include <cstring>

namespace rpl::capture {
namespace {

template <typename T>
T read_at(std::span<const std::byte> image, uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) throw ElfFormatError("ELF structure outside the image");
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

std::string string_at(std::span<const std::byte> image, const Elf64_Shdr& table, uint32_t index) {
  if (index >= table.sh_size || table.sh_offset > image.size() || table.sh_size > image.size() - table.sh_offset)
    throw ElfFormatError("ELF string outside its table");
  const char* begin = reinterpret_cast<const char*>(image.data() + table.sh_offset + index);
  return std::string(begin, strnlen(begin, table.sh_size - index));
}

}  // namespace

std::vector<ElfSymbol> read_elf_symbols(std::span<const std::byte> image) {
  auto header = read_at<Elf64_Ehdr>(image, 0);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) throw ElfFormatError("not an ELF image");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    throw ElfFormatError("not a 64-bit little-endian ELF image");
  if (header.e_shentsize != sizeof(Elf64_Shdr)) throw ElfFormatError("unexpected section header size");
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (uint16_t i = 0; i < header.e_shnum; ++i)
    sections[i] = read_at<Elf64_Shdr>(image, header.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr));
  auto section_name = [&](uint16_t index) -> std::string {
    if (header.e_shstrndx >= sections.size() || index >= sections.size()) return "";
    return string_at(image, sections[header.e_shstrndx], sections[index].sh_name);
  };

  std::vector<ElfSymbol> symbols;
  for (const Elf64_Shdr& table : sections) {
    if (table.sh_type != SHT_SYMTAB) continue;
    if (table.sh_link >= sections.size() || table.sh_entsize != sizeof(Elf64_Sym))
      throw ElfFormatError("malformed symbol table");
    const Elf64_Shdr& strings = sections[table.sh_link];
    for (uint64_t off = sizeof(Elf64_Sym); off + sizeof(Elf64_Sym) <= table.sh_size; off += sizeof(Elf64_Sym)) {
      auto sym = read_at<Elf64_Sym>(image, table.sh_offset + off);
      if (sym.st_name == 0) continue;
      ElfSymbol s;
      s.name = string_at(image, strings, sym.st_name);
      if (s.name.empty()) continue;
      if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE) s.section = section_name(sym.st_shndx);
      s.size = sym.st_size;
      s.type = ELF64_ST_TYPE(sym.st_info);
      s.binding = ELF64_ST_BIND(sym.st_info);
      s.other = sym.st_other;
      symbols.push_back(std::move(s));
    }
  }
  return symbols;
}

}  // namespace rpl::capture
