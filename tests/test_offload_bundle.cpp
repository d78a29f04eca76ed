// Clang offload bundles, plain and CCOB-compressed, as files, in host ELF sections and damaged
// (collectors/amd/offload_bundle.hpp). The payload is the committed tests/data/hip/kernels-gfx90a.co.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstring>

#include "collectors/amd/code_object.hpp"
#include "collectors/amd/offload_bundle.hpp"
#include "collectors/kernel_resources.hpp"
#include "testing/binary_files.hpp"
#include "testing/gpu_binaries.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using collectors::read_kernel_resources;
using test::by_name;
using test::expect_error;
using test::make_bundle;
using test::make_compressed;
using test::read_binary;
using test::write_binary;

const std::string kFixture = std::string(RPL_SOURCE_DIR) + "/tests/data/hip/kernels-gfx90a.co";

TEST(OffloadBundle, BundleFileWithHostAndGpuEntries) {
  test::TempDir dir;
  const auto co = read_binary(kFixture);
  const auto bundle = make_bundle({{"host-x86_64-unknown-linux", {}}, {"hipv4-amdgcn-amd-amdhsa--gfx90a", co}});
  write_binary(dir.file("k.hipfb"), bundle);
  const auto all = read_kernel_resources(dir.file("k.hipfb"));
  ASSERT_EQ(all.size(), 4u);
  for (const auto& r : all) EXPECT_EQ(r.container, "hipv4-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(by_name(all, "_Z8tile_sumPKfPf", "gfx90a").lds_bytes, 1024u);
}

TEST(OffloadBundle, ConcatenatedBundlesWithPadding) {
  // Two translation units linked together: two bundles in one .hip_fatbin, zero padding between.
  const auto co = read_binary(kFixture);
  auto region = make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", co}});
  region.resize(region.size() + 100, std::byte{0});
  const auto second = make_bundle({{"hip-amdgcn-amd-amdhsa-gfx90a", co}, {"host-x86_64-unknown-linux", {}}});
  region.insert(region.end(), second.begin(), second.end());
  const auto bundles = collectors::amd::read_offload_bundles(collectors::Bytes(region), "region");
  ASSERT_EQ(bundles.entries.size(), 3u);
  EXPECT_EQ(bundles.entries[0].id, "hipv4-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(bundles.entries[1].id, "hip-amdgcn-amd-amdhsa-gfx90a");
  EXPECT_EQ(bundles.entries[1].bytes.size(), co.size());
  EXPECT_TRUE(collectors::amd::is_amdgpu_entry(bundles.entries[1].id));
  EXPECT_FALSE(collectors::amd::is_amdgpu_entry(bundles.entries[2].id));
  EXPECT_FALSE(collectors::amd::is_amdgpu_entry("openmp-x86_64-unknown-linux-gnu"));
}

TEST(OffloadBundle, CompressedBundlesEveryVersion) {
  // Debian's clang 15 cannot write CCOB; newer ROCm clang can (`--offload-compress`, zstd).
  test::TempDir dir;
  const auto bundle = make_bundle({{"host-x86_64-unknown-linux", {}},
                                   {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", read_binary(kFixture)}});
  for (uint16_t version : {1, 2, 3}) {
    SCOPED_TRACE(version);
    const std::string path = dir.file("v" + std::to_string(version) + ".hipfb");
    write_binary(path, make_compressed(bundle, version));
    const auto all = read_kernel_resources(path);
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[0].container, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-");
    EXPECT_EQ(by_name(all, "_Z10uses_agprsPf", "gfx90a").accum_vgprs, 1u);
  }
  // Two compressed bundles back to back (v2 and v3 record their size, so the reader can step over).
  auto two = make_compressed(bundle, 2);
  const auto three = make_compressed(bundle, 3);
  two.insert(two.end(), three.begin(), three.end());
  write_binary(dir.file("two.hipfb"), two);
  EXPECT_EQ(read_kernel_resources(dir.file("two.hipfb")).size(), 8u);
}

TEST(OffloadBundle, DamagedBundlesAreReported) {
  test::TempDir dir;
  const auto co = read_binary(kFixture);
  const auto good = make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", co}});

  auto truncated = good;
  truncated.resize(good.size() - 100);  // the entry now runs past the end
  write_binary(dir.file("truncated.hipfb"), truncated);
  expect_error([&] { read_kernel_resources(dir.file("truncated.hipfb")); }, ExitCode::InputCorrupt,
               {dir.file("truncated.hipfb"), "lies outside"});

  auto huge_count = good;
  std::memset(huge_count.data() + 24, 0x7f, 8);  // entry count
  write_binary(dir.file("count.hipfb"), huge_count);
  expect_error([&] { read_kernel_resources(dir.file("count.hipfb")); }, ExitCode::InputCorrupt,
               {"entry count"});

  write_binary(dir.file("host_only.hipfb"), make_bundle({{"host-x86_64-unknown-linux", {}}}));
  expect_error([&] { read_kernel_resources(dir.file("host_only.hipfb")); }, ExitCode::InputInvalid,
               {"without an AMD GPU"});

  auto bad_zstd = make_compressed(good, 2);
  bad_zstd[40] = std::byte{0xff};  // inside the zstd frame
  bad_zstd[41] = std::byte{0xff};
  write_binary(dir.file("bad_zstd.hipfb"), bad_zstd);
  expect_error([&] { read_kernel_resources(dir.file("bad_zstd.hipfb")); }, ExitCode::InputCorrupt,
               {"bad_zstd.hipfb"});

  write_binary(dir.file("zlib.hipfb"), make_compressed(good, 2, /*method=*/0));
  expect_error([&] { read_kernel_resources(dir.file("zlib.hipfb")); }, ExitCode::InputInvalid, {"zlib"});

  auto version9 = make_compressed(good, 2);
  version9[4] = std::byte{9};
  write_binary(dir.file("v9.hipfb"), version9);
  expect_error([&] { read_kernel_resources(dir.file("v9.hipfb")); }, ExitCode::InputCorrupt, {"version 9"});

  // A header claiming 1 GiB in front of a few bytes: rejected as corrupt without allocating what it claims.
  auto claims_a_gib = make_compressed(good, 3);
  const uint64_t gib = uint64_t{1} << 30;
  std::memcpy(claims_a_gib.data() + 16, &gib, 8);  // v3: uncompressed size at byte 16
  write_binary(dir.file("claims_a_gib.hipfb"), claims_a_gib);
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  expect_error([&] { read_kernel_resources(dir.file("claims_a_gib.hipfb")); }, ExitCode::InputCorrupt,
               {"claims_a_gib.hipfb", "header says"});
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 256 * 1024) << "KiB of peak memory for a 1 GiB claim";

  auto oversize = make_compressed(good, 2);
  std::memset(oversize.data() + 8, 0x7f, 4);  // total size larger than the file
  write_binary(dir.file("oversize.hipfb"), oversize);
  expect_error([&] { read_kernel_resources(dir.file("oversize.hipfb")); }, ExitCode::InputCorrupt,
               {"does not fit"});
}

TEST(OffloadBundle, HostElfSections) {
  // A host ELF made with objcopy from /bin/true, so this runs without hipcc.
  int status = 0;
  test::run_shell("command -v objcopy >/dev/null", &status);
  if (status != 0) GTEST_SKIP() << "objcopy (binutils) not found";
  test::TempDir dir;
  write_binary(dir.file("bundle"), make_bundle({{"host-x86_64-unknown-linux", {}},
                                                {"hipv4-amdgcn-amd-amdhsa--gfx90a", read_binary(kFixture)}}));
  test::run_shell("objcopy --add-section .hip_fatbin=" + dir.file("bundle") + " /bin/true " + dir.file("app"),
                  &status);
  ASSERT_EQ(status, 0);
  const auto all = read_kernel_resources(dir.file("app"));
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(by_name(all, "_Z8tile_sumPKfPf", "gfx90a").container, "hipv4-amdgcn-amd-amdhsa--gfx90a");

  test::run_shell("objcopy --add-section .llvm.offloading=" + dir.file("bundle") + " /bin/true " +
                      dir.file("new_driver"),
                  &status);
  ASSERT_EQ(status, 0);
  expect_error([&] { read_kernel_resources(dir.file("new_driver")); }, ExitCode::InputInvalid,
               {"new_driver", ".llvm.offloading"});
}

TEST(CodeObjectErrors, DamageAnywhereGivesAResultOrAnRplError) {
  // Overwrite one byte at a time (every 7th offset, three values) in a bundle holding the committed
  // code object: the reader must return or throw rpl::Error, never crash or throw anything else
  // (run under -DRPL_SANITIZE=ON to catch out-of-bounds reads).
  const auto bundle = make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", read_binary(kFixture)}});
  // In memory, the way read_kernel_resources reads a bundle file (writing thousands of files is slow).
  auto read_all = [](const std::vector<std::byte>& bytes) {
    const auto bundles = collectors::amd::read_offload_bundles(collectors::Bytes(bytes), "mutant");
    for (const auto& entry : bundles.entries) {
      if (collectors::amd::is_amdgpu_entry(entry.id)) collectors::amd::read_code_object(entry.bytes, entry.id);
    }
  };
  int errors = 0;
  int other_exceptions = 0;
  for (std::size_t offset = 0; offset < bundle.size(); offset += 7) {
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0xff}, uint8_t{0x7f}}) {
      auto mutant = bundle;
      mutant[offset] = std::byte{value};
      try {
        read_all(mutant);
      } catch (const Error&) {
        ++errors;
      } catch (const std::exception& e) {
        ++other_exceptions;
        ADD_FAILURE() << "offset " << offset << " value " << int(value) << ": " << e.what();
      }
    }
  }
  EXPECT_EQ(other_exceptions, 0);
  EXPECT_GT(errors, 0);  // the header and the note are in range, so some mutants must be rejected
}

}  // namespace
}  // namespace rpl
