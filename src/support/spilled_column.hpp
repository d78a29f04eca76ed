#pragma once
// A column of values moved out of memory into an unnamed temporary file while a pass does not need it, then read
// back in order (or in reverse order), chunk by chunk (issue 32: the critical path's earliest finishes while its
// backward pass runs, and the DAG's topological order during both passes: 8 and 4 bytes per node less at the
// run's peak). The file is std::tmpfile's, unlinked at once, so nothing stays behind
// however the process ends; its pages belong to the kernel's cache, which may write them out, not to this
// process. When no temporary file can be written, the values stay in memory: the same results, the old peak.
#include <algorithm>
#include <cstdio>
#include <memory>
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
    if (std::fwrite(kept_.data(), sizeof(T), size_, f) != size_ || std::fflush(f) != 0) {
      file_.reset();
      return;
    }
    std::vector<T, Allocator>().swap(kept_);
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
  template <typename F>
  bool for_each_chunk_backward(F f) const {
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
    }
    return true;
  }

 private:
  static constexpr std::size_t kChunk = 65536;
  struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::size_t size_;
  std::vector<T, Allocator> kept_;  // the values, unless spilled
  std::unique_ptr<std::FILE, Close> file_;
};

}  // namespace rpl
