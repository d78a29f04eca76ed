#include "collectors/nvidia/cuda_fatbin.hpp"

#include <elf.h>
#include <fmt/core.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace rpl::collectors::nvidia {
namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
constexpr uint32_t kWrapperMagic = 0x466243B1u;
constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;

template <typename T>
T fatbin_read(std::span<const std::byte> bytes, std::size_t offset) {
  T v{};
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T))
    throw FatbinFormatError(fmt::format("truncated at offset {} (image of {} bytes)", offset, bytes.size()));
  std::memcpy(&v, bytes.data() + offset, sizeof(T));
  return v;
}

uint32_t fatbin_u32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

const char* code_image_kind_name(CodeImageKind kind) {
  switch (kind) {
    case CodeImageKind::Cubin: return "cubin";
    case CodeImageKind::Fatbin: return "fatbin";
    case CodeImageKind::FatbinWrapper: return "fatbin wrapper";
    case CodeImageKind::Ptx: return "PTX";
    case CodeImageKind::Unknown: break;
  }
  return "unknown";
}

CodeImageKind classify_code_image(std::span<const std::byte> head) {
  if (head.size() < 4) return CodeImageKind::Unknown;
  uint32_t magic = fatbin_u32(head.data());
  if (std::memcmp(head.data(), ELFMAG, SELFMAG) == 0) return CodeImageKind::Cubin;
  if (magic == kFatbinMagic) return CodeImageKind::Fatbin;
  if (magic == kWrapperMagic) return CodeImageKind::FatbinWrapper;
  // PTX as nvcc, NVRTC and Triton write it: comments, blank lines, then .version.
  std::size_t i = 0;
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  if (i + 1 < head.size() && ((char(head[i]) == '/' && char(head[i + 1]) == '/') || char(head[i]) == '.'))
    return CodeImageKind::Ptx;
  return CodeImageKind::Unknown;
}

std::optional<std::size_t> code_image_size(const std::byte* start, std::size_t readable) try {
  if (!start || readable < 4) return std::nullopt;
  std::span<const std::byte> bytes(start, readable);
  switch (classify_code_image(bytes.first(std::min<std::size_t>(readable, 64)))) {
    case CodeImageKind::Fatbin: {
      auto header_size = fatbin_read<uint16_t>(bytes, 6);
      auto members = fatbin_read<uint64_t>(bytes, 8);
      return std::size_t(header_size + members);
    }
    case CodeImageKind::Cubin: {
      auto eh = fatbin_read<Elf64_Ehdr>(bytes, 0);
      std::size_t end = std::max<std::size_t>(sizeof eh, eh.e_shoff + std::size_t(eh.e_shnum) * eh.e_shentsize);
      end = std::max<std::size_t>(end, eh.e_phoff + std::size_t(eh.e_phnum) * eh.e_phentsize);
      for (uint16_t i = 0; i < eh.e_shnum && eh.e_shentsize == sizeof(Elf64_Shdr); ++i) {
        auto sh = fatbin_read<Elf64_Shdr>(bytes, eh.e_shoff + std::size_t(i) * sizeof(Elf64_Shdr));
        if (sh.sh_type != SHT_NOBITS) end = std::max<std::size_t>(end, sh.sh_offset + sh.sh_size);
      }
      return end;
    }
    case CodeImageKind::Ptx: {
      const void* nul = std::memchr(start, 0, readable);
      if (!nul) return std::nullopt;
      return std::size_t(static_cast<const std::byte*>(nul) - start) + 1;
    }
    default: return std::nullopt;
  }
} catch (const FatbinFormatError&) {
  return std::nullopt;  // a header that points past what may be read
}

std::vector<FatbinMember> read_fatbin(std::span<const std::byte> image) {
  std::vector<FatbinMember> members;
  std::size_t offset = 0;
  while (offset + 16 <= image.size()) {
    auto magic = fatbin_read<uint32_t>(image, offset);
    if (magic == 0) {  // padding between fat binaries in a section
      offset += 8;
      continue;
    }
    if (magic != kFatbinMagic)
      throw FatbinFormatError(fmt::format("no fat binary header at offset {} (magic {:#x})", offset, magic));
    auto header_size = fatbin_read<uint16_t>(image, offset + 6);
    auto body = fatbin_read<uint64_t>(image, offset + 8);
    std::size_t begin = offset + header_size;
    if (header_size < 16 || body > image.size() || begin > image.size() - body)
      throw FatbinFormatError(fmt::format("the fat binary at offset {} claims {} bytes; only {} are there", offset,
                                          body, image.size() - std::min(image.size(), begin)));
    std::size_t end = begin + body;
    for (std::size_t m = begin; m < end;) {
      auto kind = fatbin_read<uint16_t>(image, m);
      auto member_header = fatbin_read<uint32_t>(image, m + 4);
      auto payload_size = fatbin_read<uint64_t>(image, m + 8);
      if (member_header < 64 || member_header > end - m || payload_size > end - m - member_header)
        throw FatbinFormatError(fmt::format("member at offset {}: header of {} and payload of {} bytes do not fit "
                                            "its fat binary (which ends at {})", m, member_header, payload_size, end));
      FatbinMember f;
      f.kind = kind == 1 ? FatbinMember::Kind::Ptx : kind == 2 ? FatbinMember::Kind::Elf : FatbinMember::Kind::Other;
      f.arch = fatbin_read<uint32_t>(image, m + 28);
      f.flags = fatbin_read<uint64_t>(image, m + 40);
      uint32_t compressed = fatbin_read<uint32_t>(image, m + 16);
      f.uncompressed_size = fatbin_read<uint64_t>(image, m + 56);
      std::size_t stored = payload_size;
      if (f.flags & (kFlagLz4 | kFlagZstd)) {
        f.compression = (f.flags & kFlagZstd) ? "zstd" : "lz4";
        if (compressed > payload_size)
          throw FatbinFormatError(fmt::format("member at offset {}: compressed size {} exceeds its payload of {}", m,
                                              compressed, payload_size));
        if (compressed) stored = compressed;
      }
      f.payload = image.subspan(m + member_header, stored);
      members.push_back(f);
      m += member_header + payload_size;
    }
    offset = end;
  }
  return members;
}

std::vector<std::byte> fatbin_member_bytes(const FatbinMember& member) {
  std::vector<std::byte> out;
  if (member.compression.empty()) {
    out.assign(member.payload.begin(), member.payload.end());
  } else {
    // Bounded before allocating: a corrupt header must not make the capture library reserve gigabytes.
    if (member.uncompressed_size == 0 || member.uncompressed_size > (uint64_t{1} << 30) ||
        member.uncompressed_size > uint64_t(member.payload.size()) * 4096 + 65536)
      throw FatbinFormatError(fmt::format("compressed member of sm_{}: implausible uncompressed size {}", member.arch,
                                          member.uncompressed_size));
    out.resize(member.uncompressed_size);
    std::size_t got = 0;
    if (member.compression == "zstd") {
      std::size_t r = ZSTD_decompress(out.data(), out.size(), member.payload.data(), member.payload.size());
      if (ZSTD_isError(r))
        throw FatbinFormatError(fmt::format("zstd member of sm_{}: {}", member.arch, ZSTD_getErrorName(r)));
      got = r;
    } else {
      int r = LZ4_decompress_safe(reinterpret_cast<const char*>(member.payload.data()), reinterpret_cast<char*>(out.data()),
                                  int(member.payload.size()), int(out.size()));
      if (r < 0) throw FatbinFormatError(fmt::format("LZ4 member of sm_{}: corrupt block (error {})", member.arch, r));
      got = std::size_t(r);
    }
    if (got != out.size())
      throw FatbinFormatError(fmt::format("{} member of sm_{} decompressed to {} bytes; its header says {}",
                                          member.compression, member.arch, got, out.size()));
  }
  if (member.kind == FatbinMember::Kind::Ptx)
    while (!out.empty() && out.back() == std::byte{0}) out.pop_back();
  return out;
}

namespace {
const FatbinMember* newest_fitting(const std::vector<FatbinMember>& members, FatbinMember::Kind kind, uint32_t arch,
                                   bool same_major) {
  const FatbinMember* best = nullptr;
  for (const auto& m : members) {
    if (m.kind != kind || m.arch > arch || (same_major && m.arch / 10 != arch / 10)) continue;
    if (!best || m.arch > best->arch) best = &m;
  }
  return best;
}
}  // namespace

const FatbinMember* select_cubin(const std::vector<FatbinMember>& members, uint32_t arch) {
  return newest_fitting(members, FatbinMember::Kind::Elf, arch, true);
}

const FatbinMember* select_ptx(const std::vector<FatbinMember>& members, uint32_t arch) {
  return newest_fitting(members, FatbinMember::Kind::Ptx, arch, false);
}

}  // namespace rpl::collectors::nvidia
