#include "collectors/binary_image.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <memory>

#include "support/errors.hpp"

namespace rpl::collectors {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Error(ExitCode::InputMissing, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ExitCode::InputInvalid, fmt::format("{}: not a regular file", path));
  }
  if (st.st_size == 0) {
    ::close(fd);
    throw Error(ExitCode::InputInvalid, fmt::format("{}: empty file, not a GPU binary", path));
  }
  size_ = static_cast<std::size_t>(st.st_size);
  // Private and writable so libelf may adjust its view in place without touching the file; pages are
  // only copied if written, which libelf does not do for native-endian images.
  void* data = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  int saved_errno = errno;
  ::close(fd);
  if (data == MAP_FAILED) {
    throw Error(ExitCode::InputMissing, fmt::format("{}: cannot map: {}", path, std::strerror(saved_errno)));
  }
  data_ = data;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

namespace {

std::string libelf_error() {
  const char* message = elf_errmsg(-1);
  return message != nullptr ? message : "unknown libelf error";
}

void ensure_libelf_initialised() {
  static const bool ok = elf_version(EV_CURRENT) != EV_NONE;
  if (!ok) throw Error(ExitCode::Internal, "libelf: library version mismatch");
}

}  // namespace

ElfImage::ElfImage(Bytes bytes, std::string what) : bytes_(bytes), what_(std::move(what)) {
  ensure_libelf_initialised();
  if (!is_elf(bytes_)) throw Error(ExitCode::InputInvalid, fmt::format("{}: not an ELF file", what_));
  // elf_memory takes a mutable pointer but only reads a native-endian image (see MappedFile).
  elf_ = elf_memory(const_cast<char*>(reinterpret_cast<const char*>(bytes_.data())), bytes_.size());
  GElf_Ehdr header{};
  if (elf_ == nullptr || elf_kind(elf_) != ELF_K_ELF || gelf_getehdr(elf_, &header) == nullptr) {
    std::string reason = libelf_error();
    if (elf_ != nullptr) elf_end(elf_);
    elf_ = nullptr;
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: damaged ELF header: {}", what_, reason));
  }
  // libelf quietly yields no sections or segments for tables past the end; a cut file must say so.
  auto table_fits = [&](uint64_t offset, uint64_t count, uint64_t entry_size) {
    return count == 0 || (offset <= bytes_.size() && count * entry_size <= bytes_.size() - offset);
  };
  if (!table_fits(header.e_shoff, header.e_shnum, header.e_shentsize) ||
      !table_fits(header.e_phoff, header.e_phnum, header.e_phentsize)) {
    elf_end(elf_);
    elf_ = nullptr;
    throw Error(ExitCode::InputCorrupt,
                fmt::format("{}: truncated ELF file: its section or program header table lies past the end of "
                            "its {} bytes",
                            what_, bytes_.size()));
  }
  machine_ = header.e_machine;
  os_abi_ = header.e_ident[EI_OSABI];
  abi_version_ = header.e_ident[EI_ABIVERSION];
  flags_ = header.e_flags;
}

ElfImage::~ElfImage() {
  if (elf_ != nullptr) elf_end(elf_);
}

std::optional<Bytes> ElfImage::file_range(uint64_t offset, uint64_t size) const {
  if (offset > bytes_.size() || size > bytes_.size() - offset) return std::nullopt;
  return bytes_.subspan(offset, size);
}

std::optional<Bytes> ElfImage::section(std::string_view name) const {
  std::size_t names_index = 0;
  if (elf_getshdrstrndx(elf_, &names_index) != 0) {
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: damaged section table: {}", what_, libelf_error()));
  }
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr{};
    if (gelf_getshdr(scn, &shdr) == nullptr) continue;
    const char* section_name = elf_strptr(elf_, names_index, shdr.sh_name);
    if (section_name == nullptr || name != section_name) continue;
    if (shdr.sh_type == SHT_NOBITS) return std::nullopt;
    auto range = file_range(shdr.sh_offset, shdr.sh_size);
    if (!range) {
      throw Error(ExitCode::InputCorrupt,
                  fmt::format("{}: section {} ({} bytes at offset {}) lies outside the {}-byte file", what_,
                              name, shdr.sh_size, shdr.sh_offset, bytes_.size()));
    }
    return range;
  }
  return std::nullopt;
}

namespace {

void visit_notes(Elf_Data* data, const std::function<void(std::string_view, uint32_t, Bytes)>& visit,
                 const std::string& what) {
  if (data == nullptr || data->d_buf == nullptr) return;
  const auto* base = static_cast<const std::byte*>(data->d_buf);
  std::size_t offset = 0, next = 0;
  GElf_Nhdr note{};
  std::size_t name_offset = 0;
  std::size_t desc_offset = 0;
  // gelf_getnote returns 0 at the end of the data and when a note does not fit: tell the two apart, so a
  // damaged note is reported as such rather than as a missing one.
  while ((next = gelf_getnote(data, offset, &note, &name_offset, &desc_offset)) > 0) {
    std::string_view owner(reinterpret_cast<const char*>(base + name_offset), note.n_namesz);
    while (!owner.empty() && owner.back() == '\0') owner.remove_suffix(1);
    visit(owner, note.n_type, Bytes(base + desc_offset, note.n_descsz));
    offset = next;
  }
  // A header whose name fits but whose descriptor runs past the data is a damaged note (a huge descsz);
  // bytes that do not even look like a header are padding or foreign data, ignored as before.
  uint32_t header[3] = {};
  if (offset + sizeof header <= data->d_size) std::memcpy(header, base + offset, sizeof header);
  if (offset + sizeof header <= data->d_size && header[0] > 0 && header[0] <= data->d_size - offset - sizeof header) {
    throw Error(ExitCode::InputCorrupt,
                fmt::format("{}: ELF note at offset {} of its note data (namesz {}, descsz {}, type {}) does not fit "
                            "in the {} bytes there",
                            what, offset, header[0], header[1], header[2], data->d_size - offset));
  }
}

}  // namespace

void ElfImage::for_each_note(const std::function<void(std::string_view, uint32_t, Bytes)>& visit) const {
  std::size_t section_count = 0;
  if (elf_getshdrnum(elf_, &section_count) != 0) section_count = 0;
  if (section_count > 0) {
    for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
      GElf_Shdr shdr{};
      if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_NOTE) continue;
      if (!file_range(shdr.sh_offset, shdr.sh_size)) {
        throw Error(ExitCode::InputCorrupt, fmt::format("{}: note section lies outside the file", what_));
      }
      visit_notes(elf_getdata(scn, nullptr), visit, what_);
    }
    return;
  }
  std::size_t segment_count = 0;
  if (elf_getphdrnum(elf_, &segment_count) != 0) return;
  for (std::size_t i = 0; i < segment_count; ++i) {
    GElf_Phdr phdr{};
    if (gelf_getphdr(elf_, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_NOTE) continue;
    if (!file_range(phdr.p_offset, phdr.p_filesz)) {
      throw Error(ExitCode::InputCorrupt, fmt::format("{}: note segment lies outside the file", what_));
    }
    Elf_Type type = phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;
    visit_notes(elf_getdata_rawchunk(elf_, static_cast<int64_t>(phdr.p_offset), phdr.p_filesz, type), visit, what_);
  }
}

std::unordered_map<std::string_view, Bytes> ElfImage::symbols_of_size(std::size_t size) const {
  std::unordered_map<std::string_view, Bytes> out;
  GElf_Ehdr header{};
  if (gelf_getehdr(elf_, &header) == nullptr) return out;
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr{};
    if (gelf_getshdr(scn, &shdr) == nullptr || (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM) ||
        shdr.sh_entsize == 0) {
      continue;
    }
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    const std::size_t count = shdr.sh_size / shdr.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Sym symbol{};
      if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) break;
      if (symbol.st_size != size || symbol.st_shndx == SHN_UNDEF || symbol.st_shndx >= SHN_LORESERVE) continue;
      const char* name = elf_strptr(elf_, shdr.sh_link, symbol.st_name);
      if (name == nullptr || *name == '\0' || out.contains(name)) continue;
      GElf_Shdr holder{};
      Elf_Scn* holder_scn = elf_getscn(elf_, symbol.st_shndx);
      if (holder_scn == nullptr || gelf_getshdr(holder_scn, &holder) == nullptr || holder.sh_type == SHT_NOBITS) {
        continue;
      }
      // Relocatable objects give section-relative values, linked images virtual addresses.
      const uint64_t base = header.e_type == ET_REL ? 0 : holder.sh_addr;
      if (symbol.st_value < base) continue;
      const uint64_t within = symbol.st_value - base;
      if (within > holder.sh_size || size > holder.sh_size - within) continue;
      if (auto bytes = file_range(holder.sh_offset + within, size)) out.emplace(name, *bytes);
    }
  }
  return out;
}

}  // namespace rpl::collectors
