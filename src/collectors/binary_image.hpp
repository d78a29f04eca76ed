#pragma once
#include "support/demangle.hpp"
// Read-only access to binary files for the kernel-resource readers: a memory-mapped file, and an ELF
// image (a whole file or a code object inside a fat binary) read through libelf. Pure file parsing:
// no GPU runtime or SDK header is involved.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

struct Elf;  // libelf's handle

namespace rpl::collectors {

using Bytes = std::span<const std::byte>;

inline std::string_view as_text(Bytes bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}
inline bool starts_with(Bytes bytes, std::string_view magic) { return as_text(bytes).starts_with(magic); }

// The whole file, mapped read-only. Throws rpl::Error: InputMissing when it cannot be opened,
// InputInvalid when it is empty or not a regular file.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  Bytes bytes() const { return {static_cast<const std::byte*>(data_), size_}; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

constexpr uint16_t kElfMachineX86_64 = 62;
constexpr uint16_t kElfMachineCuda = 190;
constexpr uint16_t kElfMachineAmdgpu = 224;

inline bool is_elf(Bytes bytes) { return starts_with(bytes, "\x7f" "ELF"); }

// One ELF image in memory (the bytes must outlive it). `what` names the image in error messages,
// e.g. "app" or "app [hipv4-amdgcn-amd-amdhsa--gfx90a]". Throws rpl::Error(InputCorrupt) when libelf
// cannot parse the header.
class ElfImage {
 public:
  ElfImage(Bytes bytes, std::string what);
  ~ElfImage();
  ElfImage(const ElfImage&) = delete;
  ElfImage& operator=(const ElfImage&) = delete;

  const std::string& what() const { return what_; }
  uint16_t machine() const { return machine_; }
  uint8_t os_abi() const { return os_abi_; }
  uint8_t abi_version() const { return abi_version_; }
  uint32_t flags() const { return flags_; }

  // Contents of the first section with this name; nullopt when there is none or it occupies no file
  // bytes (SHT_NOBITS). Throws InputCorrupt when the section lies outside the file.
  std::optional<Bytes> section(std::string_view name) const;

  // Calls `visit(owner, type, descriptor)` for every note, in SHT_NOTE sections or, when the image has
  // no section headers, in PT_NOTE segments.
  void for_each_note(const std::function<void(std::string_view, uint32_t, Bytes)>& visit) const;

  // The file bytes of every defined symbol of exactly `size` bytes (st_size), by name, from .symtab and
  // .dynsym; symbols not backed by file bytes are left out. Names point into the image. One pass over
  // the symbol tables, so looking up thousands of kernel descriptors stays linear.
  std::unordered_map<std::string_view, Bytes> symbols_of_size(std::size_t size) const;

 private:
  std::optional<Bytes> file_range(uint64_t offset, uint64_t size) const;

  Bytes bytes_;
  std::string what_;
  ::Elf* elf_ = nullptr;
  uint16_t machine_ = 0;
  uint8_t os_abi_ = 0;
  uint8_t abi_version_ = 0;
  uint32_t flags_ = 0;
};

using rpl::demangle;  // support/demangle.hpp

}  // namespace rpl::collectors
