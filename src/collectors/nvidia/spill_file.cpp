#include "collectors/nvidia/spill_file.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "support/errors.hpp"

namespace rpl::spill {
namespace {

constexpr std::size_t kMaxChunksPerWrite = 16;  // 2 iovecs each, well under IOV_MAX
constexpr uint32_t kMaxStringId = 1u << 26;     // beyond this a string id is taken as corruption
constexpr uint64_t kMaxStringBytes = 1u << 20;

std::size_t padded8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

// writev until everything is written; iov is modified.
bool writev_all(int fd, iovec* iov, int iovcnt) noexcept {
  while (iovcnt > 0) {
    ssize_t n = ::writev(fd, iov, iovcnt);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    auto left = static_cast<std::size_t>(n);
    while (iovcnt > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov;
      --iovcnt;
    }
    if (iovcnt > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return true;
}

// Reads up to `bytes`; returns how many were read (less only at end of file).
std::size_t read_up_to(int fd, void* dst, std::size_t bytes) {
  std::size_t done = 0;
  while (done < bytes) {
    ssize_t n = ::read(fd, static_cast<char*>(dst) + done, bytes - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return done;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads a record chunk's payload into `out` (appending). Returns false if the file ended inside it.
// `available` is what the file still holds, so a corrupt count cannot make us allocate beyond it.
template <typename T>
bool read_records(int fd, const ChunkHeader& ch, uint64_t available, std::vector<T>& out, const std::string& path) {
  if (ch.payload_bytes != uint64_t{ch.count} * sizeof(T))
    throw Error(ExitCode::InputCorrupt,
                fmt::format("{}: chunk of type {} holds {} bytes for {} records of {} bytes", path, ch.type,
                            ch.payload_bytes, ch.count, sizeof(T)));
  std::size_t want = std::min<uint64_t>(ch.payload_bytes, available) / sizeof(T);
  std::size_t old = out.size();
  out.resize(old + want);
  std::size_t got = read_up_to(fd, out.data() + old, want * sizeof(T));
  out.resize(old + got / sizeof(T));  // keep the whole records before a cut
  return got == ch.payload_bytes;
}

bool read_strings(int fd, const ChunkHeader& ch, uint64_t available, SpillContents& c, const std::string& path) {
  std::vector<uint8_t> payload(std::min<uint64_t>(ch.payload_bytes, available));
  std::size_t got = read_up_to(fd, payload.data(), payload.size());
  std::size_t pos = 0;
  for (uint32_t i = 0; i < ch.count; ++i) {
    if (pos + sizeof(StringEntry) > got) break;
    StringEntry e;
    std::memcpy(&e, payload.data() + pos, sizeof e);
    if (e.id == 0 || e.id >= kMaxStringId || e.length > kMaxStringBytes)
      throw Error(ExitCode::InputCorrupt,
                  fmt::format("{}: string entry with id {} and length {} is not plausible", path, e.id, e.length));
    if (pos + sizeof e + e.length > got) break;
    if (c.strings.size() <= e.id) c.strings.resize(e.id + 1);
    c.strings[e.id].assign(reinterpret_cast<const char*>(payload.data() + pos + sizeof e), e.length);
    pos += padded8(sizeof e + e.length);
  }
  return got == ch.payload_bytes;
}

}  // namespace

SpillWriter::~SpillWriter() { close(); }

void SpillWriter::open(const std::string& path, FileHeader header) {
  close();
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.version = kFormatVersion;
  header.header_bytes = sizeof(FileHeader);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(ExitCode::OutputFailed, fmt::format("{}: cannot create spill file: {}", path, std::strerror(errno)));
  iovec iov{&header, sizeof header};
  if (!writev_all(fd, &iov, 1)) {
    int err = errno;
    ::close(fd);
    throw Error(ExitCode::OutputFailed, fmt::format("{}: cannot write spill header: {}", path, std::strerror(err)));
  }
  fd_ = fd;
  path_ = path;
}

void SpillWriter::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool SpillWriter::append(const ChunkView* chunks, std::size_t n) noexcept {
  if (fd_ < 0) return false;
  ChunkHeader headers[kMaxChunksPerWrite];
  iovec iov[2 * kMaxChunksPerWrite];
  while (n > 0) {
    std::size_t batch = std::min(n, kMaxChunksPerWrite);
    int iovcnt = 0;
    for (std::size_t i = 0; i < batch; ++i) {
      const ChunkView& c = chunks[i];
      if (c.count == 0) continue;
      headers[i] = ChunkHeader{static_cast<uint32_t>(c.type), c.count, c.bytes};
      iov[iovcnt++] = iovec{&headers[i], sizeof(ChunkHeader)};
      if (c.bytes > 0) iov[iovcnt++] = iovec{const_cast<void*>(c.data), c.bytes};
    }
    if (iovcnt > 0 && !writev_all(fd_, iov, iovcnt)) return false;
    chunks += batch;
    n -= batch;
  }
  return true;
}

void StringChunkBuilder::add(uint32_t id, std::string_view text) {
  StringEntry e{id, static_cast<uint32_t>(std::min<std::size_t>(text.size(), kMaxStringBytes))};
  std::size_t pos = bytes_.size();
  bytes_.resize(pos + padded8(sizeof e + e.length), 0);
  std::memcpy(bytes_.data() + pos, &e, sizeof e);
  std::memcpy(bytes_.data() + pos + sizeof e, text.data(), e.length);
  ++count_;
}

const std::string& SpillContents::string(uint32_t id) const {
  static const std::string kEmpty;
  return id < strings.size() ? strings[id] : kEmpty;
}

SpillContents read_spill(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    throw Error(ExitCode::InputMissing, fmt::format("{}: cannot open spill file: {}", path, std::strerror(errno)));
  SpillContents c;
  if (read_up_to(fd.get(), &c.header, sizeof c.header) != sizeof c.header ||
      std::memcmp(c.header.magic, kMagic, sizeof kMagic) != 0)
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: not an rpl spill file (bad magic)", path));
  if (c.header.version != kFormatVersion || c.header.header_bytes != sizeof(FileHeader))
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: spill format version {} (header {} bytes); this reader "
                                                    "reads version {}",
                                                    path, c.header.version, c.header.header_bytes, kFormatVersion));
  struct stat st {};
  uint64_t file_bytes = ::fstat(fd.get(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  uint64_t offset = sizeof c.header;
  std::vector<ProcessRecord> process;
  std::vector<LaunchEnvRecord> launch_env;
  std::vector<FooterRecord> footer;
  std::vector<uint8_t> skip;
  for (;;) {
    ChunkHeader ch;
    std::size_t got = read_up_to(fd.get(), &ch, sizeof ch);
    if (got == 0) break;
    if (got != sizeof ch) {
      c.truncated = true;
      break;
    }
    offset += sizeof ch;
    uint64_t available = file_bytes > offset ? file_bytes - offset : 0;
    bool whole = true;
    switch (static_cast<ChunkType>(ch.type)) {
      case ChunkType::String: whole = read_strings(fd.get(), ch, available, c, path); break;
      case ChunkType::Kernel: whole = read_records(fd.get(), ch, available, c.kernels, path); break;
      case ChunkType::Copy: whole = read_records(fd.get(), ch, available, c.copies, path); break;
      case ChunkType::Api: whole = read_records(fd.get(), ch, available, c.api_calls, path); break;
      case ChunkType::Sync: whole = read_records(fd.get(), ch, available, c.syncs, path); break;
      case ChunkType::EventRecord: whole = read_records(fd.get(), ch, available, c.event_records, path); break;
      case ChunkType::Device: whole = read_records(fd.get(), ch, available, c.devices, path); break;
      case ChunkType::Context: whole = read_records(fd.get(), ch, available, c.contexts, path); break;
      case ChunkType::Stream: whole = read_records(fd.get(), ch, available, c.streams, path); break;
      case ChunkType::Process: whole = read_records(fd.get(), ch, available, process, path); break;
      case ChunkType::Footer: whole = read_records(fd.get(), ch, available, footer, path); break;
      case ChunkType::LaunchEnv: whole = read_records(fd.get(), ch, available, launch_env, path); break;
      default: {
        skip.resize(std::min<uint64_t>(ch.payload_bytes, available));
        whole = read_up_to(fd.get(), skip.data(), skip.size()) == ch.payload_bytes;
        ++c.skipped_chunks;
      }
    }
    if (!whole) {
      c.truncated = true;
      break;
    }
    offset += ch.payload_bytes;
  }
  if (!process.empty()) c.process = process.front();
  if (!launch_env.empty()) c.launch_env = launch_env.front();
  if (!footer.empty()) c.footer = footer.back();
  return c;
}

}  // namespace rpl::spill
