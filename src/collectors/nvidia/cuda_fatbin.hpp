#pragma once
// CUDA code images as the driver receives them (cuModuleLoadData*, cuLibraryLoadData, __cudaRegisterFatBinary):
// a cubin (ELF), PTX text, a fat binary (several cubins and PTX for different architectures, members
// optionally compressed with LZ4 or zstd), or the runtime's wrapper around a fat binary. Read from their bytes
// alone (no CUDA headers or libraries): the capture library uses this to find the cubin the device runs when
// the driver hands it something other than a plain cubin.
//
// Layout (little endian), as nvcc 12/13 write it:
//   fat binary header, 16 bytes: magic 0xBA55ED50 (u32), version (u16), header size (u16), size of the
//     members that follow the header (u64). Several fat binaries may follow one another (a .nv_fatbin section).
//   member header: kind (u16: 1 PTX, 2 ELF), version (u16), header size (u32), payload size (u64, padded),
//     compressed size (u32) @16, architecture (u32, e.g. 90) @28, flags (u64) @40 (0x2000 LZ4, 0x8000 zstd
//     compressed), uncompressed size (u64) @56; the payload follows the member header.
//   runtime wrapper (__fatBinC_Wrapper_t): magic 0x466243B1 (u32), version (u32), pointer to the fat binary.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace rpl::collectors::nvidia {

class FatbinFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class CodeImageKind { Cubin, Fatbin, FatbinWrapper, Ptx, Unknown };
const char* code_image_kind_name(CodeImageKind kind);

// What the first bytes say the image is (at least 4 bytes readable; PTX: text starting with a comment or a
// directive).
CodeImageKind classify_code_image(std::span<const std::byte> head);

// The size of an image given only its start, as the driver's loaders receive it: an ELF's size from its header
// (the end of its section or program header table, whichever is last), a fat binary's from its header, PTX up
// to and including its NUL. `readable` bounds how far may be read (for PTX and ELF tables). nullopt for a
// wrapper (it points elsewhere), an unknown image, or a header that points past `readable`.
std::optional<std::size_t> code_image_size(const std::byte* start, std::size_t readable);

struct FatbinMember {
  enum class Kind { Ptx, Elf, Other };
  Kind kind = Kind::Other;
  uint32_t arch = 0;            // 90 for sm_90 / compute_90
  uint64_t flags = 0;
  std::string compression;      // "", "lz4" or "zstd"
  uint64_t uncompressed_size = 0;
  std::span<const std::byte> payload;  // as stored (compressed where compression is set)
};

// Every member of every fat binary in `image` (one or several back to back). Throws FatbinFormatError naming
// the offset when a header is malformed or a member runs past the end.
std::vector<FatbinMember> read_fatbin(std::span<const std::byte> image);

// The member's bytes, decompressed where needed (a cubin, or PTX text without its padding NULs). Throws
// FatbinFormatError when decompression fails or gives another size than the header says.
std::vector<std::byte> fatbin_member_bytes(const FatbinMember& member);

// The ELF member the driver would load on a device of compute capability `arch` (major*10+minor): the same
// architecture, else the newest older one of the same major version (cubins run on later minor revisions of
// their major version). nullptr when there is none (the driver would JIT the PTX).
const FatbinMember* select_cubin(const std::vector<FatbinMember>& members, uint32_t arch);
// The newest PTX member not newer than `arch`; nullptr when none.
const FatbinMember* select_ptx(const std::vector<FatbinMember>& members, uint32_t arch);

}  // namespace rpl::collectors::nvidia
