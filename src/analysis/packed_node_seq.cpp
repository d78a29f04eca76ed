#include "analysis/packed_node_seq.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace rpl::analysis::dag {
namespace {

constexpr std::size_t kFirstChunk = 512, kLargestChunk = std::size_t{1} << 20;
constexpr std::size_t kMappedChunk = std::size_t{64} << 10;  // chunks from this size on are mapped apart

uint64_t zigzag(int64_t d) { return (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63); }
int64_t unzigzag(uint64_t z) { return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1); }

// The difference at p, p moved past it.
int64_t read_difference(const uint8_t*& p) {
  uint64_t z = *p++;
  if (z & 0x80) [[unlikely]] {
    z &= 0x7f;
    for (unsigned shift = 7;; shift += 7) {
      const uint8_t byte = *p++;
      z |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) break;
    }
  }
  return unzigzag(z);
}

}  // namespace

void PackedNodeSeq::reserve(std::size_t n) {
  const std::size_t blocks = (n + kBlock - 1) >> kBlockBits;
  heads_.reserve(blocks), starts_.reserve(blocks);
}

PackedNodeSeq::Chunk::Chunk(std::size_t bytes) : size(bytes) {
  if (bytes < kMappedChunk) {
    data = new uint8_t[bytes];
    return;
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data = static_cast<uint8_t*>(p);
}

PackedNodeSeq::Chunk::~Chunk() {
  if (data == nullptr) return;
  if (size < kMappedChunk) delete[] data;
  else ::munmap(data, size);
}

void PackedNodeSeq::new_chunk() {
  // Chunks double from a small first one (many short streams stay small) up to 1 MiB; each holds a whole block.
  static_assert(kFirstChunk >= kMaxBlockBytes);
  chunk_size_ = chunks_.empty() ? kFirstChunk : std::min(kLargestChunk, chunk_size_ * 2);
  chunks_.emplace_back(chunk_size_);
  chunk_used_ = 0;
}

void PackedNodeSeq::push_back(NodeId v) {
  if ((size_ & (kBlock - 1)) == 0) {
    if (chunks_.empty() || chunk_size_ - chunk_used_ < kMaxBlockBytes) new_chunk();
    heads_.push_back(v);
    starts_.push_back((uint64_t{chunks_.size() - 1} << 32) | chunk_used_);
  } else {
    uint64_t z = zigzag(int64_t{v} - int64_t{last_});
    uint8_t* p = chunks_.back().data + chunk_used_;
    while (z >= 0x80) {
      *p++ = static_cast<uint8_t>(z | 0x80);
      z >>= 7;
    }
    *p++ = static_cast<uint8_t>(z);
    chunk_used_ = static_cast<std::size_t>(p - chunks_.back().data);
  }
  last_ = v;
  ++size_;
}

NodeId PackedNodeSeq::operator[](std::size_t k) const {
  const std::size_t block = k >> kBlockBits;
  int64_t v = heads_[block];
  const uint8_t* p = block_bytes(block);
  for (std::size_t i = k & (kBlock - 1); i > 0; --i) v += read_difference(p);
  return static_cast<NodeId>(v);
}

std::size_t PackedNodeSeq::bytes() const {
  std::size_t chunk_bytes = 0;
  for (const Chunk& c : chunks_) chunk_bytes += c.size;
  return heads_.capacity() * sizeof(NodeId) + starts_.capacity() * sizeof(uint64_t) + chunk_bytes;
}

PackedNodeSeq::Reader::Reader(const PackedNodeSeq& seq, std::size_t k) : seq_(&seq), k_(k) {
  if (k >= seq.size_) return;
  const std::size_t block = k >> kBlockBits;
  value_ = seq.heads_[block];
  p_ = seq.block_bytes(block);
  for (std::size_t i = k & (kBlock - 1); i > 0; --i) value_ = static_cast<NodeId>(int64_t{value_} + read_difference(p_));
}

NodeId PackedNodeSeq::Reader::next() {
  const NodeId v = value_;
  if (++k_ < seq_->size_) {
    if ((k_ & (kBlock - 1)) == 0) {
      value_ = seq_->heads_[k_ >> kBlockBits];
      p_ = seq_->block_bytes(k_ >> kBlockBits);
    } else {
      value_ = static_cast<NodeId>(int64_t{value_} + read_difference(p_));
    }
  }
  return v;
}

}  // namespace rpl::analysis::dag
