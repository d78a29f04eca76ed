#include "collectors/amd/offload_bundle.hpp"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>
#include <fmt/format.h>

#include "support/errors.hpp"

namespace rpl::collectors::amd {

namespace {

constexpr uint16_t kMethodZlib = 0;
constexpr uint16_t kMethodZstd = 1;
// A corrupt header must not make us allocate without bound; real bundles are far below this.
constexpr uint64_t kMaxUncompressedBundle = uint64_t{1} << 30;

template <typename T>
T read_le(Bytes bytes, std::size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof(T));  // x86-64 and aarch64 hosts are little-endian
  return value;
}

[[noreturn]] void corrupt_bundle(const std::string& what, const std::string& detail) {
  throw Error(ExitCode::InputCorrupt, fmt::format("{}: damaged clang offload bundle: {}", what, detail));
}

// Parses one uncompressed bundle at the start of `bytes`; returns its length (the end of its last entry).
std::size_t parse_bundle(Bytes bytes, const std::string& what, std::vector<BundleEntry>& out) {
  std::size_t pos = kBundleMagic.size();
  auto need = [&](std::size_t n, const char* field) {
    if (bytes.size() - pos < n) corrupt_bundle(what, fmt::format("truncated {} at byte {}", field, pos));
  };
  need(8, "entry count");
  const uint64_t count = read_le<uint64_t>(bytes, pos);
  pos += 8;
  // Each entry takes at least 24 header bytes, which bounds a sane count by the data present.
  if (count > (bytes.size() - pos) / 24) corrupt_bundle(what, fmt::format("entry count {} does not fit", count));
  std::size_t end = pos;
  for (uint64_t i = 0; i < count; ++i) {
    need(24, "entry header");
    const uint64_t offset = read_le<uint64_t>(bytes, pos);
    const uint64_t size = read_le<uint64_t>(bytes, pos + 8);
    const uint64_t id_length = read_le<uint64_t>(bytes, pos + 16);
    pos += 24;
    if (id_length > bytes.size() - pos) corrupt_bundle(what, fmt::format("entry {} id runs past the data", i));
    std::string id(as_text(bytes.subspan(pos, id_length)));
    pos += id_length;
    if (offset > bytes.size() || size > bytes.size() - offset) {
      corrupt_bundle(what, fmt::format("entry {} ({}: {} bytes at offset {}) lies outside the {}-byte bundle", i, id,
                                size, offset, bytes.size()));
    }
    end = std::max<std::size_t>({end, pos, offset + size});
    out.push_back(BundleEntry{std::move(id), bytes.subspan(offset, size)});
  }
  return end;
}

struct CompressedHeader {
  uint16_t version = 0;
  uint16_t method = 0;
  uint64_t total_size = 0;  // 0 when the version does not record it (v1)
  uint64_t uncompressed_size = 0;
  std::size_t header_size = 0;
};

CompressedHeader parse_compressed_header(Bytes bytes, const std::string& what) {
  CompressedHeader h;
  if (bytes.size() < 8) corrupt_bundle(what, "truncated compressed bundle header");
  h.version = read_le<uint16_t>(bytes, 4);
  h.method = read_le<uint16_t>(bytes, 6);
  std::size_t pos = 8;
  switch (h.version) {
    case 1: h.header_size = 8 + 4 + 8; break;
    case 2: h.header_size = 8 + 4 + 4 + 8; break;
    case 3: h.header_size = 8 + 8 + 8 + 8; break;
    default: corrupt_bundle(what, fmt::format("unknown compressed bundle version {}", h.version));
  }
  if (bytes.size() < h.header_size) corrupt_bundle(what, "truncated compressed bundle header");
  if (h.version == 2) {
    h.total_size = read_le<uint32_t>(bytes, pos);
    pos += 4;
  } else if (h.version == 3) {
    h.total_size = read_le<uint64_t>(bytes, pos);
    pos += 8;
  }
  h.uncompressed_size = h.version == 3 ? read_le<uint64_t>(bytes, pos) : read_le<uint32_t>(bytes, pos);
  if (h.total_size != 0 && (h.total_size < h.header_size || h.total_size > bytes.size())) {
    corrupt_bundle(what, fmt::format("compressed bundle size {} does not fit the {} bytes present", h.total_size,
                              bytes.size()));
  }
  return h;
}

// Decompresses the CCOB at the start of `bytes` into `storage`; returns the CCOB's length.
std::size_t decompress_bundle(Bytes bytes, const std::string& what, std::vector<std::byte>& storage) {
  const CompressedHeader h = parse_compressed_header(bytes, what);
  if (h.method == kMethodZlib) {
    throw Error(ExitCode::InputInvalid,
                fmt::format("{}: compressed clang offload bundle uses zlib; only zstd is supported", what));
  }
  if (h.method != kMethodZstd) corrupt_bundle(what, fmt::format("unknown compression method {}", h.method));
  Bytes payload = bytes.subspan(h.header_size);
  if (h.total_size != 0) {
    payload = payload.first(h.total_size - h.header_size);
  } else {
    // v1 does not record its length: the payload is one zstd frame.
    const std::size_t frame = ZSTD_findFrameCompressedSize(payload.data(), payload.size());
    if (ZSTD_isError(frame)) corrupt_bundle(what, fmt::format("zstd frame: {}", ZSTD_getErrorName(frame)));
    payload = payload.first(frame);
  }
  if (h.uncompressed_size > kMaxUncompressedBundle) {
    corrupt_bundle(what, fmt::format("uncompressed size {} is implausible", h.uncompressed_size));
  }
  // Streamed, so memory follows what the frame really produces, never the size the header claims (a 4 KB
  // input claiming 1 GiB made every read allocate and clear that much before zstd failed; found by fuzzing).
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (!dctx) throw Error(ExitCode::ProfilerFailed, "zstd: cannot create a decompression context");
  storage.clear();
  std::vector<std::byte> chunk(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{payload.data(), payload.size(), 0};
  for (;;) {
    ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
    const std::size_t left = ZSTD_decompressStream(dctx.get(), &out, &in);
    if (ZSTD_isError(left)) corrupt_bundle(what, fmt::format("zstd: {}", ZSTD_getErrorName(left)));
    if (out.pos > h.uncompressed_size - storage.size())
      corrupt_bundle(what, fmt::format("decompresses to more than the {} bytes its header says", h.uncompressed_size));
    storage.insert(storage.end(), chunk.begin(), chunk.begin() + std::ptrdiff_t(out.pos));
    if (left == 0) break;                                    // the frame is complete
    if (in.pos == in.size && out.pos < out.size) corrupt_bundle(what, "zstd: truncated frame");
  }
  if (storage.size() != h.uncompressed_size) {
    corrupt_bundle(what, fmt::format("decompressed {} bytes, header says {}", storage.size(), h.uncompressed_size));
  }
  if (!starts_with(Bytes(storage), kBundleMagic)) corrupt_bundle(what, "decompressed data is not a bundle");
  return h.header_size + payload.size();
}

// Finds the next bundle magic of either kind. Each kind's next position is remembered until passed,
// so a region with many bundles is scanned once, not once per bundle.
class BundleScanner {
 public:
  explicit BundleScanner(std::string_view text)
      : text_(text), plain_(text.find(kBundleMagic)), compressed_(text.find(kCompressedBundleMagic)) {}
  std::size_t next(std::size_t from) {
    if (plain_ != npos_ && plain_ < from) plain_ = text_.find(kBundleMagic, from);
    if (compressed_ != npos_ && compressed_ < from) compressed_ = text_.find(kCompressedBundleMagic, from);
    return std::min(plain_, compressed_);
  }

 private:
  static constexpr std::size_t npos_ = std::string_view::npos;
  std::string_view text_;
  std::size_t plain_;
  std::size_t compressed_;
};

}  // namespace

OffloadBundles read_offload_bundles(Bytes region, const std::string& what) {
  OffloadBundles result;
  BundleScanner scanner(as_text(region));
  for (std::size_t pos = scanner.next(0); pos != std::string_view::npos; pos = scanner.next(pos)) {
    Bytes rest = region.subspan(pos);
    if (starts_with(rest, kBundleMagic)) {
      pos += parse_bundle(rest, what, result.entries);
    } else {
      auto& storage = result.decompressed.emplace_back();
      pos += decompress_bundle(rest, what, storage);
      parse_bundle(Bytes(storage), what, result.entries);
    }
  }
  return result;
}

bool is_amdgpu_entry(const std::string& id) {
  const auto dash = id.find('-');
  return dash != std::string::npos && std::string_view(id).substr(dash + 1).starts_with("amdgcn-");
}

}  // namespace rpl::collectors::amd
