#include "capture/elf_symbols.hpp"

#include <elf.h>

#include <algorithm>
#include <cctype>
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

namespace {

// The end of one hashed namespace's `<hash>_<n>_<file>_<hash>` at `at` (just after its prefix), or npos.
std::size_t hashed_namespace_end(const std::string& s, std::size_t at, std::string& kept) {
  auto hex_end = [&](std::size_t i) {  // nvcc's hashes are 8 hex digits; the mangled name goes on right after
    const std::size_t limit = std::min(s.size(), i + 8);
    while (i < limit && std::isxdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i;
  };
  const std::size_t h1 = hex_end(at);
  if (h1 == at || h1 >= s.size() || s[h1] != '_') return std::string::npos;
  std::size_t d = h1 + 1;
  while (d < s.size() && std::isdigit(static_cast<unsigned char>(s[d]))) ++d;
  if (d == h1 + 1 || d >= s.size() || s[d] != '_' || d - h1 > 6) return std::string::npos;
  const std::size_t len = std::stoul(s.substr(h1 + 1, d - h1 - 1)), file = d + 1;
  if (file + len >= s.size() || s[file + len] != '_') return std::string::npos;
  const std::size_t h2 = hex_end(file + len + 1);
  if (h2 == file + len + 1) return std::string::npos;
  kept = "#" + s.substr(h1, file + len + 1 - h1) + "#";  // "#_<n>_<file>_#"
  return h2;
}

}  // namespace

std::string without_translation_unit_hashes(const std::string& name) {
  std::string out;
  std::size_t at = 0;
  while (at < name.size()) {
    std::size_t next = std::string::npos, prefix = 0;
    for (const char* p : {"_INTERNAL_", "_GLOBAL__N__"}) {
      const std::size_t found = name.find(p, at);
      if (found < next) next = found, prefix = std::strlen(p);
    }
    if (next == std::string::npos) break;
    std::string kept;
    const std::size_t end = hashed_namespace_end(name, next + prefix, kept);
    if (end == std::string::npos) {
      out += name.substr(at, next + prefix - at);
      at = next + prefix;
      continue;
    }
    out += name.substr(at, next + prefix - at) + kept;
    at = end;
  }
  return out + name.substr(std::min(at, name.size()));
}

std::string same_variable_in_build(const std::vector<ElfSymbol>& symbols, const std::string& name) {
  const std::string key = without_translation_unit_hashes(name);
  std::string found;
  for (const ElfSymbol& s : symbols) {
    if (!s.is_object()) continue;
    if (s.name == name) return name;
    if (without_translation_unit_hashes(s.name) != key) continue;
    if (!found.empty() && found != s.name) return "";  // two candidates: never guess
    found = s.name;
  }
  return found;
}

}  // namespace rpl::capture
