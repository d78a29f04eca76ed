#pragma once
// Clang offload bundles: the container HIP uses to embed device code objects in a host binary (section
// .hip_fatbin) or to write `--cuda-device-only` output. Facts: reference amd-profiling-stack.md §6.2.
//
// Uncompressed bundle (little-endian):
//   "__CLANG_OFFLOAD_BUNDLE__" (24 bytes), u64 entry count, then per entry
//   u64 offset (from the bundle start), u64 size, u64 id length, id bytes
//   ("hipv4-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux", ...).
// Compressed bundle (newer clang, `--offload-compress`; Debian's clang 15 cannot write one):
//   "CCOB", u16 version, u16 method (0 zlib, 1 zstd), total size (v2: u32, v3: u64; absent in v1),
//   uncompressed size (v1/v2: u32, v3: u64), u64 truncated MD5, then the compressed bundle.
#include <deque>
#include <string>
#include <vector>

#include "collectors/binary_image.hpp"

namespace rpl::collectors::amd {

inline constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
inline constexpr std::string_view kCompressedBundleMagic = "CCOB";

struct BundleEntry {
  std::string id;  // "hipv4-amdgcn-amd-amdhsa--gfx90a"
  Bytes bytes;     // the entry's payload (for AMD GPU entries: a code object ELF)
};

// Every entry of every bundle found in `region` (a .hip_fatbin section or a bundle file): bundles may be
// concatenated with zero padding between them (one per translation unit after linking).
struct OffloadBundles {
  std::vector<BundleEntry> entries;
  std::deque<std::vector<std::byte>> decompressed;  // owns what compressed entries' spans point into
};

// Throws rpl::Error(InputCorrupt) naming `what` when a bundle header or entry table is damaged, an entry
// lies outside its bundle, or decompression fails; InputInvalid for a compression method other than
// zstd. A region without any bundle magic yields no entries.
OffloadBundles read_offload_bundles(Bytes region, const std::string& what);

// True for entries that carry an AMD GPU code object: the triple after the offload kind is amdgcn-*.
bool is_amdgpu_entry(const std::string& id);

}  // namespace rpl::collectors::amd
