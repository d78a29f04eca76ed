#pragma once
// PackedNodeSeq: a sequence of node ids in about one byte each, for the per-stream orders of the DAG build (issue
// 32: at 100M nodes, a 4-byte array per node was the last transient above the 2 GB peak target).
//
// Each id is held as its difference from the previous one (zigzag, LEB128 varint: one byte while the difference
// is within +-63, five at most), in blocks of 64 whose first id is held whole, so that position k is decoded
// from its block's start (at most 63 steps) and a binary search probes the blocks' first ids before reading one
// block. A stream's work interleaved with seven other streams' differs by about 8 from one node to the next:
// 1 byte, plus 12 bytes per block of 64 (0.19 per id).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/dag.hpp"
#include "analysis/fast_sort.hpp"
#include "support/large_vector.hpp"

namespace rpl::analysis::dag {

class PackedNodeSeq {
 public:
  static constexpr unsigned kBlockBits = 6;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;

  PackedNodeSeq() = default;
  PackedNodeSeq(PackedNodeSeq&&) noexcept = default;
  PackedNodeSeq& operator=(PackedNodeSeq&&) noexcept = default;

  void reserve(std::size_t n);  // the per-block arrays for n ids (the bytes grow in chunks)
  void push_back(NodeId v);
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  NodeId operator[](std::size_t k) const;
  std::size_t bytes() const;

  // Sequential reads from a position on: next() gives the id at the position and moves past it.
  class Reader {
   public:
    Reader(const PackedNodeSeq& seq, std::size_t k);
    NodeId next();
    std::size_t position() const { return k_; }

   private:
    const PackedNodeSeq* seq_;
    std::size_t k_;
    NodeId value_ = 0;
    const uint8_t* p_ = nullptr;
  };

  // The first position in [b, e) whose id is not `before(id)`, where `before` holds for a prefix of [b, e)
  // (std::partition_point over the ids): O(log(blocks)) whole ids probed, then at most 127 ids decoded.
  template <typename Before>
  std::size_t partition_point(std::size_t b, std::size_t e, Before before) const {
    if (b >= e) return e;
    std::size_t lo = (b >> kBlockBits) + 1, hi = ((e - 1) >> kBlockBits) + 1;  // blocks whose head is in (b, e)
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (before(heads_[mid])) lo = mid + 1;
      else hi = mid;
    }
    const std::size_t from = std::max(b, (lo - 1) << kBlockBits), to = std::min(e, lo << kBlockBits);
    Reader r(*this, from);
    for (std::size_t k = from; k < to; ++k)
      if (!before(r.next())) return k;
    return to;
  }

 private:
  // A block's varints never cross a chunk: a block starts a new chunk unless 63 five-byte varints fit.
  static constexpr std::size_t kMaxBlockBytes = (kBlock - 1) * 5;
  const uint8_t* block_bytes(std::size_t block) const {
    const uint64_t at = starts_[block];
    return chunks_[at >> 32].data + (at & 0xffffffffu);
  }
  void new_chunk();

  // Bytes from the heap while small, else mapped apart: freed, a mapped chunk goes back to the system at once,
  // where a heap chunk could stay in the process's resident set as free heap until the end of the run (glibc
  // raises its mapping threshold as large buffers are freed; at 100M nodes that kept about 100 MB resident).
  struct Chunk {
    uint8_t* data = nullptr;
    std::size_t size = 0;
    explicit Chunk(std::size_t bytes);
    Chunk(Chunk&& o) noexcept : data(std::exchange(o.data, nullptr)), size(o.size) {}
    Chunk& operator=(Chunk&&) = delete;
    ~Chunk();
  };

  LargeVector<NodeId> heads_;     // per block: its first id
  LargeVector<uint64_t> starts_;  // per block: chunk << 32 | offset of its first difference
  std::vector<Chunk> chunks_;
  std::size_t chunk_used_ = 0, chunk_size_ = 0;
  std::size_t size_ = 0;
  NodeId last_ = 0;
};

// Assembles one ordered PackedNodeSeq from the ops appended in id order: the ascending runs that come (a
// stream's dispatches, then its copies) are kept apart and merged at the end, without a 4-byte id per op;
// past kMaxRuns runs the ops go into a plain array that is sorted (the result is the same order).
template <typename Less>
class OrderBuilder {
 public:
  static constexpr std::size_t kMaxRuns = 8;
  explicit OrderBuilder(Less less) : less_(less) {}

  void add(NodeId v) {
    if (!plain_.empty()) return plain_.push_back(v);
    if (runs_.empty() || less_(v, last_)) {
      if (runs_.size() == kMaxRuns) {
        to_plain();
        return plain_.push_back(v);
      }
      runs_.emplace_back();
    }
    runs_.back().push_back(v);
    last_ = v;
  }

  // The ops added, ordered by `less` (a strict total order).
  PackedNodeSeq finish() {
    if (!plain_.empty()) {
      sort_runs(plain_.begin(), plain_.end(), less_);
      PackedNodeSeq out;
      out.reserve(plain_.size());
      for (NodeId v : plain_) out.push_back(v);
      plain_ = {};
      return out;
    }
    if (runs_.empty()) return {};
    if (runs_.size() == 1) return std::move(runs_.front());
    std::size_t total = 0;
    std::vector<PackedNodeSeq::Reader> readers;
    std::vector<std::size_t> left;
    for (const PackedNodeSeq& run : runs_) {
      readers.emplace_back(run, 0);
      left.push_back(run.size());
      total += run.size();
    }
    std::vector<NodeId> heads(runs_.size());
    for (std::size_t i = 0; i < runs_.size(); ++i) heads[i] = readers[i].next();
    PackedNodeSeq out;
    out.reserve(total);
    for (std::size_t done = 0; done < total; ++done) {
      std::size_t best = runs_.size();
      for (std::size_t i = 0; i < runs_.size(); ++i)
        if (left[i] > 0 && (best == runs_.size() || less_(heads[i], heads[best]))) best = i;
      out.push_back(heads[best]);
      if (--left[best] > 0) heads[best] = readers[best].next();
    }
    runs_.clear();
    return out;
  }

 private:
  void to_plain() {
    for (const PackedNodeSeq& run : runs_) {
      PackedNodeSeq::Reader r(run, 0);
      for (std::size_t i = 0; i < run.size(); ++i) plain_.push_back(r.next());
    }
    runs_.clear();
  }
  Less less_;
  std::vector<PackedNodeSeq> runs_;
  NodeId last_ = 0;
  LargeVector<NodeId> plain_;
};

}  // namespace rpl::analysis::dag
