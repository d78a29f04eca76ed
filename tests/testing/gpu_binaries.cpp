#include "testing/gpu_binaries.hpp"

#include <gtest/gtest.h>
#include <zstd.h>

#include <stdexcept>

#include "testing/binary_files.hpp"

namespace rpl::test {

const collectors::BinaryKernelResources& by_name(const std::vector<collectors::BinaryKernelResources>& all,
                                                 const std::string& mangled, const std::string& arch) {
  for (const auto& r : all) {
    if (r.mangled == mangled && r.arch == arch) return r;
  }
  throw std::runtime_error("no kernel " + mangled + " for " + arch);
}

namespace {

template <typename T>
void put(std::vector<std::byte>& out, T value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

}  // namespace

std::vector<std::byte> make_bundle(const std::vector<TestBundleEntry>& entries) {
  std::size_t header = 24 + 8;
  for (const auto& e : entries) header += 24 + e.id.size();
  auto align = [](std::size_t v) { return (v + 15) / 16 * 16; };
  std::vector<uint64_t> offsets;
  std::size_t next = align(header);
  for (const auto& e : entries) {
    offsets.push_back(next);
    next = align(next + e.bytes.size());
  }
  std::vector<std::byte> out = to_bytes("__CLANG_OFFLOAD_BUNDLE__");
  put<uint64_t>(out, entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    put<uint64_t>(out, offsets[i]);
    put<uint64_t>(out, entries[i].bytes.size());
    put<uint64_t>(out, entries[i].id.size());
    const auto id = to_bytes(entries[i].id);
    out.insert(out.end(), id.begin(), id.end());
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    out.resize(offsets[i], std::byte{0});
    out.insert(out.end(), entries[i].bytes.begin(), entries[i].bytes.end());
  }
  return out;
}

std::vector<std::byte> make_compressed(const std::vector<std::byte>& bundle, uint16_t version,
                                       uint16_t method) {
  std::vector<std::byte> payload(ZSTD_compressBound(bundle.size()));
  const std::size_t n = ZSTD_compress(payload.data(), payload.size(), bundle.data(), bundle.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  payload.resize(n);
  const std::size_t header = version == 1 ? 20 : version == 2 ? 24 : 32;
  std::vector<std::byte> out = to_bytes("CCOB");
  put<uint16_t>(out, version);
  put<uint16_t>(out, method);
  if (version == 2) put<uint32_t>(out, static_cast<uint32_t>(header + payload.size()));
  if (version == 3) put<uint64_t>(out, header + payload.size());
  if (version == 3) put<uint64_t>(out, bundle.size());
  else put<uint32_t>(out, static_cast<uint32_t>(bundle.size()));
  put<uint64_t>(out, 0x1234);  // the hash is not checked by readers
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace rpl::test
