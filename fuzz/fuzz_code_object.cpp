// GPU binary readers: AMDGPU code objects (ELF notes, MessagePack metadata, kernel descriptors), clang
// offload bundles, and, through the same file entry point `rocm-perf resources` uses, whatever the bytes
// look like (cubins go to cuobjdump, which is not fuzzed here; its text output is: the second mode).
#include <span>
#include <string>

#include "collectors/amd/code_object.hpp"
#include "collectors/amd/offload_bundle.hpp"
#include "collectors/nvidia/cubin_resources.hpp"
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  rpl::fuzz::expect_only_rpl_errors([&] {
    switch (data[0] % 3) {
      case 0: (void)rpl::collectors::amd::read_code_object(bytes, "fuzz.co"); break;
      case 1: (void)rpl::collectors::amd::read_offload_bundles(bytes, "fuzz.hipfb"); break;
      default:
        (void)rpl::collectors::nvidia::parse_resource_usage(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                                    "sm_90", "fuzz.cubin");
    }
  });
  return 0;
}
