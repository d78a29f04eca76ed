#include "collectors/elf_tables.hpp"

#include <fmt/core.h>

#include <cstring>

#include "support/errors.hpp"

namespace rpl::collectors {
namespace {

template <class T>
T read_at(Bytes b, uint64_t offset, const std::string& what) {
  if (offset > b.size() || b.size() - offset < sizeof(T))
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: ELF table entry at offset {} lies outside the file", what, offset));
  T v;
  std::memcpy(&v, b.data() + offset, sizeof(T));
  return v;
}

std::string string_at(Bytes b, const ElfSection& strtab, uint32_t index) {
  if (index >= strtab.size || strtab.offset + strtab.size > b.size()) return {};
  const char* begin = reinterpret_cast<const char*>(b.data() + strtab.offset + index);
  std::size_t limit = strtab.size - index;
  return std::string(begin, strnlen(begin, limit));
}

}  // namespace

std::optional<Bytes> ElfTables::contents(const ElfSection& s) const {
  constexpr uint32_t kNoBits = 8;
  if (s.type == kNoBits || s.offset > image.size() || image.size() - s.offset < s.size) return std::nullopt;
  return image.subspan(s.offset, s.size);
}

ElfTables read_elf_tables(Bytes b, const std::string& what) {
  if (!is_elf(b) || b.size() < 64 || static_cast<uint8_t>(b[4]) != 2 || static_cast<uint8_t>(b[5]) != 1)
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: not a 64-bit little-endian ELF image", what));
  ElfTables t;
  t.image = b;
  t.machine = read_at<uint16_t>(b, 18, what);
  const uint64_t shoff = read_at<uint64_t>(b, 0x28, what);
  const uint16_t shentsize = read_at<uint16_t>(b, 0x3a, what), shnum = read_at<uint16_t>(b, 0x3c, what),
                 shstrndx = read_at<uint16_t>(b, 0x3e, what);
  if (shnum == 0) return t;
  if (shentsize < 64 || shstrndx >= shnum)
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: damaged ELF section header table", what));
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t o = shoff + uint64_t(i) * shentsize;
    ElfSection s;
    s.name = std::to_string(read_at<uint32_t>(b, o, what));  // resolved below
    s.type = read_at<uint32_t>(b, o + 4, what);
    s.flags = read_at<uint64_t>(b, o + 8, what);
    s.offset = read_at<uint64_t>(b, o + 24, what);
    s.size = read_at<uint64_t>(b, o + 32, what);
    s.link = read_at<uint32_t>(b, o + 40, what);
    s.info = read_at<uint32_t>(b, o + 44, what);
    t.sections.push_back(s);
  }
  const ElfSection names = t.sections[shstrndx];
  for (auto& s : t.sections) s.name = string_at(b, names, static_cast<uint32_t>(std::stoul(s.name)));
  constexpr uint32_t kSymtab = 2, kDynsym = 11;
  const ElfSection* table = nullptr;
  for (const auto& s : t.sections)
    if (s.type == kSymtab) table = &s;
  if (!table)
    for (const auto& s : t.sections)
      if (s.type == kDynsym) table = &s;
  if (!table || table->link >= t.sections.size()) return t;
  const ElfSection strtab = t.sections[table->link];
  for (uint64_t o = table->offset + 24; o + 24 <= table->offset + table->size; o += 24) {
    ElfSymbol sym;
    sym.name = string_at(b, strtab, read_at<uint32_t>(b, o, what));
    uint8_t info = read_at<uint8_t>(b, o + 4, what);
    sym.type = info & 0xf;
    sym.binding = info >> 4;
    sym.other = read_at<uint8_t>(b, o + 5, what);
    sym.section_index = read_at<uint16_t>(b, o + 6, what);
    sym.value = read_at<uint64_t>(b, o + 8, what);
    sym.size = read_at<uint64_t>(b, o + 16, what);
    if (sym.section_index > 0 && sym.section_index < t.sections.size()) sym.section = t.sections[sym.section_index].name;
    t.symbols.push_back(std::move(sym));
  }
  return t;
}

}  // namespace rpl::collectors
