#pragma once
// Writing and reading spill files (see spill_format.hpp). The writer is what the CUDA collector uses on
// CUPTI's buffer-completion thread and in its fatal-signal handler: append paths never allocate and use
// only writev(2), which is async-signal-safe. The reader is used by the converter.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/nvidia/spill_format.hpp"

namespace rpl::spill {

// One chunk to append: `count` items of `bytes` payload in total.
struct ChunkView {
  ChunkType type = ChunkType::String;
  uint32_t count = 0;
  const void* data = nullptr;
  std::size_t bytes = 0;
};

template <typename T>
ChunkView records_chunk(const T* records, std::size_t count) {
  static_assert(kIsSpillRecord<T>);
  return ChunkView{ChunkTypeOf<T>::value, static_cast<uint32_t>(count), records, count * sizeof(T)};
}

class SpillWriter {
 public:
  SpillWriter() = default;
  ~SpillWriter();
  SpillWriter(const SpillWriter&) = delete;
  SpillWriter& operator=(const SpillWriter&) = delete;

  // Creates (or truncates) `path` and writes the header (its magic and version are filled in here).
  // Throws rpl::Error(OutputFailed) naming the path.
  void open(const std::string& path, FileHeader header);
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  void close() noexcept;

  // Appends the chunks with as few writev(2) calls as possible; empty chunks are left out. Returns false
  // on a write error or when closed. Never throws, never allocates; safe in a signal handler.
  bool append(const ChunkView* chunks, std::size_t n) noexcept;
  bool append(const ChunkView& chunk) noexcept { return append(&chunk, 1); }
  template <typename T>
  bool append_records(const T* records, std::size_t count) noexcept {
    return append(records_chunk(records, count));
  }

 private:
  int fd_ = -1;
  std::string path_;
};

// Accumulates String-chunk payload: entries plus bytes, padded. Reused between batches; allocates only
// when it grows.
class StringChunkBuilder {
 public:
  void add(uint32_t id, std::string_view text);
  void clear() { bytes_.clear(); count_ = 0; }
  bool empty() const { return count_ == 0; }
  ChunkView chunk() const { return ChunkView{ChunkType::String, count_, bytes_.data(), bytes_.size()}; }

 private:
  std::vector<uint8_t> bytes_;
  uint32_t count_ = 0;
};

struct SpillContents {
  FileHeader header;
  std::vector<std::string> strings;  // indexed by string id; "" where not defined
  std::vector<KernelRecord> kernels;
  std::vector<CopyRecord> copies;
  std::vector<ApiRecord> api_calls;
  std::vector<SyncRecord> syncs;
  std::vector<EventRecordRecord> event_records;
  std::vector<DeviceRecord> devices;
  std::vector<ContextRecord> contexts;
  std::vector<StreamRecord> streams;
  std::optional<ProcessRecord> process;
  std::optional<LaunchEnvRecord> launch_env;
  std::optional<FooterRecord> footer;  // absent: the process died before writing one
  bool truncated = false;              // the last chunk was cut short (whole records before it are kept)
  uint32_t skipped_chunks = 0;         // chunks of a type this reader does not know

  const std::string& string(uint32_t id) const;
};

// Reads a whole spill file. Throws rpl::Error: InputMissing (cannot open), InputCorrupt (not a spill,
// another format version, a chunk whose size does not match its record count).
SpillContents read_spill(const std::string& path);

}  // namespace rpl::spill
