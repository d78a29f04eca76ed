#include "capture/blob.hpp"

#include <fmt/core.h>
#include <zstd.h>
#define XXH_INLINE_ALL  // header-only use of Debian's libxxhash-dev: no run-time library to ship
#include <xxhash.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "support/errors.hpp"

namespace rpl::capture {
namespace fs = std::filesystem;
namespace {

// A blob path must stay inside the capture directory: relative, no "..".
fs::path resolve(const fs::path& dir, const std::string& file) {
  fs::path rel(file);
  bool escapes = file.empty() || rel.is_absolute();
  for (const auto& part : rel) escapes = escapes || part == "..";
  if (escapes)
    throw Error(ExitCode::InputCorrupt,
                fmt::format("capture {}: blob path \"{}\" leaves the capture directory", dir.string(), file));
  return dir / rel;
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

}  // namespace

struct BlobWriter::Impl {
  fs::path path;
  BlobRef ref;
  File file;
  ZSTD_CCtx* cctx = nullptr;
  XXH64_state_t* hash = nullptr;
  std::vector<char> out;
  bool finished = false;

  void fail(const char* what) {
    throw Error(ExitCode::OutputFailed, fmt::format("cannot write {}: {}", path.string(), what));
  }
  // Compresses `in` (all of it) and writes what zstd produced; `end` flushes the frame.
  void pump(ZSTD_inBuffer in, ZSTD_EndDirective mode) {
    for (;;) {
      ZSTD_outBuffer o{out.data(), out.size(), 0};
      std::size_t left = ZSTD_compressStream2(cctx, &o, &in, mode);
      if (ZSTD_isError(left)) fail(ZSTD_getErrorName(left));
      if (o.pos && std::fwrite(out.data(), 1, o.pos, file.get()) != o.pos) fail(std::strerror(errno));
      ref.stored_size += o.pos;
      bool done = mode == ZSTD_e_end ? left == 0 : in.pos == in.size;
      if (done) return;
    }
  }
};

BlobWriter::BlobWriter(const fs::path& dir, std::string file, int level) : impl_(std::make_unique<Impl>()) {
  impl_->path = resolve(dir, file);
  impl_->ref.file = std::move(file);
  std::error_code ec;
  fs::create_directories(impl_->path.parent_path(), ec);
  impl_->file.reset(std::fopen(impl_->path.c_str(), "wb"));
  if (!impl_->file) impl_->fail(std::strerror(errno));
  impl_->cctx = ZSTD_createCCtx();
  impl_->hash = XXH64_createState();
  if (!impl_->cctx || !impl_->hash) throw std::bad_alloc();
  XXH64_reset(impl_->hash, 0);
  ZSTD_CCtx_setParameter(impl_->cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(impl_->cctx, ZSTD_c_checksumFlag, 1);
  // Worker threads where libzstd was built with them (Debian's is); ignored otherwise.
  unsigned workers = std::min(4u, std::max(1u, std::thread::hardware_concurrency() / 2));
  if (workers > 1) ZSTD_CCtx_setParameter(impl_->cctx, ZSTD_c_nbWorkers, int(workers));
  impl_->out.resize(ZSTD_CStreamOutSize());
}

BlobWriter::~BlobWriter() {
  if (!impl_) return;
  ZSTD_freeCCtx(impl_->cctx);
  XXH64_freeState(impl_->hash);
  if (!impl_->finished) {
    impl_->file.reset();
    std::error_code ec;
    fs::remove(impl_->path, ec);
  }
}

void BlobWriter::write(const void* data, std::size_t size) {
  XXH64_update(impl_->hash, data, size);
  impl_->ref.size += size;
  impl_->pump(ZSTD_inBuffer{data, size, 0}, ZSTD_e_continue);
}

BlobRef BlobWriter::finish() {
  impl_->pump(ZSTD_inBuffer{nullptr, 0, 0}, ZSTD_e_end);
  if (std::fflush(impl_->file.get()) != 0 || std::fclose(impl_->file.release()) != 0)
    impl_->fail(std::strerror(errno));
  impl_->ref.xxh64 = XXH64_digest(impl_->hash);
  impl_->finished = true;
  return impl_->ref;
}

BlobRef write_blob(const fs::path& dir, const std::string& file, std::span<const std::byte> bytes) {
  BlobWriter w(dir, file, 3);
  w.write(bytes.data(), bytes.size());
  return w.finish();
}

void read_blob(const fs::path& dir, const BlobRef& ref, const ChunkSink& sink) {
  fs::path path = resolve(dir, ref.file);
  auto corrupt = [&](const std::string& why) {
    return Error(ExitCode::InputCorrupt, fmt::format("capture blob {} is damaged: {}", path.string(), why));
  };
  File file(std::fopen(path.c_str(), "rb"));
  if (!file)
    throw Error(ExitCode::InputMissing, fmt::format("cannot read capture blob {}: {}", path.string(), std::strerror(errno)));
  std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  std::unique_ptr<XXH64_state_t, XXH_errorcode (*)(XXH64_state_t*)> hash(XXH64_createState(), XXH64_freeState);
  if (!dctx || !hash) throw std::bad_alloc();
  XXH64_reset(hash.get(), 0);
  std::vector<char> in(ZSTD_DStreamInSize());
  std::vector<std::byte> out(std::size_t{1} << 20);
  uint64_t produced = 0, stored = 0;
  std::size_t frame_left = 1;  // 0 exactly when the last frame was complete
  for (;;) {
    std::size_t n = std::fread(in.data(), 1, in.size(), file.get());
    if (n == 0) {
      if (std::ferror(file.get())) throw corrupt(std::strerror(errno));
      break;
    }
    stored += n;
    ZSTD_inBuffer ib{in.data(), n, 0};
    while (ib.pos < ib.size) {
      ZSTD_outBuffer ob{out.data(), out.size(), 0};
      frame_left = ZSTD_decompressStream(dctx.get(), &ob, &ib);
      if (ZSTD_isError(frame_left)) throw corrupt(ZSTD_getErrorName(frame_left));
      if (ob.pos) {
        produced += ob.pos;
        if (produced > ref.size) throw corrupt(fmt::format("more than the {} bytes the manifest records", ref.size));
        XXH64_update(hash.get(), out.data(), ob.pos);
        sink(out.data(), ob.pos);
      }
    }
  }
  // Drain what zstd still holds for the last input.
  for (;;) {
    ZSTD_inBuffer ib{nullptr, 0, 0};
    ZSTD_outBuffer ob{out.data(), out.size(), 0};
    std::size_t r = ZSTD_decompressStream(dctx.get(), &ob, &ib);
    if (ZSTD_isError(r)) throw corrupt(ZSTD_getErrorName(r));
    if (ob.pos == 0) break;
    frame_left = r;
    produced += ob.pos;
    if (produced > ref.size) throw corrupt(fmt::format("more than the {} bytes the manifest records", ref.size));
    XXH64_update(hash.get(), out.data(), ob.pos);
    sink(out.data(), ob.pos);
  }
  if (stored == 0) throw corrupt("the file is empty");
  if (frame_left != 0) throw corrupt("the compressed stream is truncated");
  if (produced != ref.size) throw corrupt(fmt::format("{} bytes, the manifest records {}", produced, ref.size));
  if (uint64_t h = XXH64_digest(hash.get()); h != ref.xxh64)
    throw corrupt(fmt::format("checksum {} differs from the manifest's {}", to_hex(h), to_hex(ref.xxh64)));
}

std::vector<std::byte> read_blob(const fs::path& dir, const BlobRef& ref) {
  std::vector<std::byte> bytes;
  bytes.reserve(ref.size);
  read_blob(dir, ref, [&](const std::byte* d, std::size_t n) { bytes.insert(bytes.end(), d, d + n); });
  return bytes;
}

void verify_blob(const fs::path& dir, const BlobRef& ref) {
  read_blob(dir, ref, [](const std::byte*, std::size_t) {});
}

std::string to_hex(uint64_t value) { return fmt::format("{:#x}", value); }

uint64_t from_hex(const std::string& text) {
  if (text.size() < 3 || text.size() > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    throw std::invalid_argument("expected 0x followed by hex digits");
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), v, 16);
  if (ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument("expected 0x followed by hex digits");
  return v;
}

uint64_t blob_checksum(std::span<const std::byte> bytes) { return XXH64(bytes.data(), bytes.size(), 0); }

}  // namespace rpl::capture
