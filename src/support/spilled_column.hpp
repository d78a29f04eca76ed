#pragma once
// A column of values moved out of memory into an unnamed temporary file while a pass does not need it, then read
// back in order (or in reverse order), chunk by chunk (issue 32: the critical path's earliest finishes while its
// backward pass runs, and the DAG's topological order during both passes: 8 and 4 bytes per node less at the
// run's peak). The file is std::tmpfile's, unlinked at once, so nothing stays behind
// however the process ends; its pages belong to the kernel's cache, which may write them out, not to this
// process. When no temporary file can be written, the values stay in memory: the same results, the old peak.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <span>
#include <type_traits>
#include <vector>

namespace rpl {

template <typename T, typename Allocator = std::allocator<T>>
class SpilledColumn {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SpilledColumn() : size_(0) {}
  // `spill` false keeps the values in memory (small columns, where a file costs more than it spares).
  explicit SpilledColumn(std::vector<T, Allocator>&& values, bool spill = true)
      : size_(values.size()), kept_(std::move(values)) {
    if (!spill) return;
    std::FILE* f = std::tmpfile();
    if (f == nullptr) return;
    file_.reset(f);
    // (an empty column writes nothing: fwrite's buffer may not be null, and an empty vector's data() can be)
    if ((size_ != 0 && std::fwrite(kept_.data(), sizeof(T), size_, f) != size_) || std::fflush(f) != 0) {
      file_.reset();
      return;
    }
    std::vector<T, Allocator>().swap(kept_);
  }

  // An empty column to append to, value by value (the values reach the file a chunk at a time). When no temporary
  // file can be written, or a write fails (a full disk), the values stay in memory.
  static SpilledColumn appender(bool spill = true) {
    SpilledColumn c;
    if (spill) c.file_.reset(std::tmpfile());
    return c;
  }
  void push_back(const T& v) {
    if (!file_) {
      kept_.push_back(v);
      ++size_;
      return;
    }
    if (pending_.empty()) pending_.reserve(kChunk);
    pending_.push_back(v);
    ++size_;
    if (pending_.size() == kChunk) flush_pending();
  }
  // Ends appending: the last values reach the file. Call before reading.
  void seal() {
    if (file_ && !pending_.empty()) flush_pending();
    if (file_ && std::fflush(file_.get()) != 0) to_memory();
    std::vector<T>().swap(pending_);
  }

  std::size_t size() const { return size_; }
  bool spilled() const { return file_ != nullptr; }

  // Calls f(first_index, std::span<const T>) over every value in order. Returns false (after calling f for the
  // chunks read so far) when the file cannot be read back.
  template <typename F>
  bool for_each_chunk(F f) const {
    if (!file_) {
      f(std::size_t{0}, std::span<const T>(kept_.data(), kept_.size()));
      return true;
    }
    if (std::fseek(file_.get(), 0, SEEK_SET) != 0) return false;
    std::vector<T> buffer(std::min(kChunk, size_));
    for (std::size_t first = 0; first < size_; first += buffer.size()) {
      const std::size_t count = std::min(buffer.size(), size_ - first);
      if (std::fread(buffer.data(), sizeof(T), count, file_.get()) != count) return false;
      f(first, std::span<const T>(buffer.data(), count));
    }
    return true;
  }

  // The same from the last chunk to the first (each chunk's values still in index order): a reverse pass.
  // `release`: the file is cut after each chunk is read, so that its disk space is freed as the pass goes (the
  // column cannot be read again).
  template <typename F>
  bool for_each_chunk_backward(F f, bool release = false) const {
    if (!file_) {
      f(std::size_t{0}, std::span<const T>(kept_.data(), kept_.size()));
      return true;
    }
    std::vector<T> buffer(std::min(kChunk, size_));
    for (std::size_t end = size_; end > 0;) {
      const std::size_t count = std::min(buffer.size(), end), first = end - count;
      if (std::fseek(file_.get(), static_cast<long>(first * sizeof(T)), SEEK_SET) != 0 ||
          std::fread(buffer.data(), sizeof(T), count, file_.get()) != count)
        return false;
      f(first, std::span<const T>(buffer.data(), count));
      end = first;
      if (release && ::ftruncate(::fileno(file_.get()), static_cast<off_t>(first * sizeof(T))) != 0) release = false;
    }
    return true;
  }

 private:
  static constexpr std::size_t kChunk = 65536;
  struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  void flush_pending() {
    if (std::fwrite(pending_.data(), sizeof(T), pending_.size(), file_.get()) != pending_.size()) {
      to_memory();
      return;
    }
    pending_.clear();
  }
  // A write failed: the values written so far are read back and the column goes on in memory.
  void to_memory() {
    const std::size_t written = size_ - pending_.size();
    std::vector<T, Allocator> values(written);
    if (std::fflush(file_.get()) != 0 || std::fseek(file_.get(), 0, SEEK_SET) != 0 ||
        (written != 0 && std::fread(values.data(), sizeof(T), written, file_.get()) != written))
      throw std::runtime_error("a temporary file could not be written nor read back");
    values.insert(values.end(), pending_.begin(), pending_.end());
    kept_ = std::move(values);
    pending_.clear();
    file_.reset();
  }

  std::size_t size_;
  std::vector<T, Allocator> kept_;  // the values, unless spilled
  std::vector<T> pending_;          // appended values not yet written
  std::unique_ptr<std::FILE, Close> file_;
};

}  // namespace rpl
