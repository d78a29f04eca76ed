#pragma once
// Helpers for the kernel-resource tests: lookups in results, and builders
// for clang offload bundles (plain and CCOB-compressed; layouts in collectors/amd/offload_bundle.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "collectors/kernel_resources.hpp"

namespace rpl::test {

// The result for one kernel (mangled name) and arch; throws std::runtime_error when absent.
const collectors::BinaryKernelResources& by_name(const std::vector<collectors::BinaryKernelResources>& all,
                                                 const std::string& mangled, const std::string& arch);

struct TestBundleEntry {
  std::string id;
  std::vector<std::byte> bytes;
};

// An uncompressed clang offload bundle, entries aligned to 16 bytes.
std::vector<std::byte> make_bundle(const std::vector<TestBundleEntry>& entries);

// A CCOB around `bundle`: version 1 (no total size), 2 (u32 sizes) or 3 (u64 sizes); method 1 = zstd,
// 0 = zlib (header only: the payload is still zstd, for testing the refusal).
std::vector<std::byte> make_compressed(const std::vector<std::byte>& bundle, uint16_t version, uint16_t method = 1);

}  // namespace rpl::test
