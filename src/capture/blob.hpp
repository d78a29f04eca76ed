#pragma once
// Blobs of a capture directory: one file each, zstd-compressed, with an xxHash64 of the uncompressed bytes.
// Both directions stream in bounded chunks, so a multi-gigabyte memory region never needs a second full copy
// in host memory. Vendor-neutral: no GPU SDK is involved.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rpl::capture {

// Where a blob lies (relative to the capture directory) and what its contents must be.
struct BlobRef {
  std::string file;          // relative path, e.g. "memory/before/r000012.zst"
  uint64_t size = 0;         // uncompressed bytes
  uint64_t stored_size = 0;  // bytes in the file
  uint64_t xxh64 = 0;        // of the uncompressed bytes, seed 0
};

// Streams bytes into <dir>/<file>: compressed as they come, hashed, never buffered whole.
class BlobWriter {
 public:
  // level: zstd level (1 is fast enough for device-memory snapshots at several hundred MB/s).
  BlobWriter(const std::filesystem::path& dir, std::string file, int level = 1);
  ~BlobWriter();  // a writer not finished removes its partial file
  BlobWriter(const BlobWriter&) = delete;
  BlobWriter& operator=(const BlobWriter&) = delete;

  void write(const void* data, std::size_t size);
  BlobRef finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

BlobRef write_blob(const std::filesystem::path& dir, const std::string& file, std::span<const std::byte> bytes);

using ChunkSink = std::function<void(const std::byte* data, std::size_t size)>;

// Calls `sink` with the uncompressed bytes in order, in chunks of at most about 1 MiB. Throws rpl::Error:
// InputMissing when the file cannot be opened, InputCorrupt (naming the file) when it is not a valid zstd
// stream, its size or checksum differ from `ref`. The sink has seen the data before a checksum mismatch is
// known; callers treat the whole operation as failed.
void read_blob(const std::filesystem::path& dir, const BlobRef& ref, const ChunkSink& sink);

// Small blobs (code objects, argument buffers) read whole.
std::vector<std::byte> read_blob(const std::filesystem::path& dir, const BlobRef& ref);

// The checksum BlobRef::xxh64 holds, of bytes in memory.
uint64_t blob_checksum(std::span<const std::byte> bytes);

// Checks one blob end to end without keeping its contents.
void verify_blob(const std::filesystem::path& dir, const BlobRef& ref);

// "0x1a2b..." and back (addresses and checksums are written as hex strings: JSON numbers lose precision
// above 2^53 in many readers).
std::string to_hex(uint64_t value);
// Throws std::invalid_argument when `text` is not "0x" followed by 1-16 hex digits.
uint64_t from_hex(const std::string& text);

}  // namespace rpl::capture
