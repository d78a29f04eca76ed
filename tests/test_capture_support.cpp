// Pieces the capture collectors share: the live-allocation set and the code-object symbol reader.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "capture/elf_symbols.hpp"
#include "capture/live_regions.hpp"
#include "capture/replay_report.hpp"
#include "capture/reservation_plan.hpp"
#include "report/replay_summary.hpp"
#include "support/errors.hpp"
#include "testing/binary_files.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::capture {
namespace {
using report::replay_summary_text;  // the summary is rendered by report/

TEST(LiveRegions, AllocationsFreesAndUnmaps) {
  LiveRegions live;
  live.add(0x1000, 0x100, "device");
  live.add(0x3000, 0x200, "stream_ordered");
  live.add(0x2000, 0x10, "pitched");
  EXPECT_EQ(live.count(), 3u);
  EXPECT_EQ(live.total_bytes(), 0x310u);
  auto s = live.snapshot();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].address, 0x2000u);
  EXPECT_EQ(s[1].kind, "pitched");
  EXPECT_TRUE(live.remove(0x2000));
  EXPECT_FALSE(live.remove(0x2000));
  EXPECT_FALSE(live.remove(0x1001));  // not a base address
  // VMM: two mappings in one reservation, unmapped together.
  live.add(0x10000, 0x1000, "virtual");
  live.add(0x11000, 0x1000, "virtual");
  EXPECT_EQ(live.remove_within(0x10000, 0x2000), 2u);
  EXPECT_EQ(live.count(), 2u);
}

TEST(LiveRegions, ANewAllocationReplacesStaleOverlappingOnes) {
  LiveRegions live;
  live.add(0x1000, 0x100, "device");
  live.add(0x1080, 0x100, "device");  // its free was missed: the older range is stale
  live.add(0x0f00, 0x181, "device");  // reaches into 0x1080's range: replaces it too
  auto s = live.snapshot();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].address, 0x0f00u);
  live.add(0x1081, 0x10, "device");  // right after it: both stay
  EXPECT_EQ(live.count(), 2u);
  live.add(0x2000, 0, "device");  // empty: ignored
  EXPECT_EQ(live.count(), 2u);
}

std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

TEST(ElfSymbols, AmdCodeObjectKernels) {
  auto image = read_bytes(std::string(RPL_SOURCE_DIR) + "/tests/data/hip/kernels-gfx90a.co");
  ASSERT_FALSE(image.empty());
  auto symbols = read_elf_symbols(image);
  std::vector<std::string> functions;
  for (const auto& s : symbols)
    if (s.is_function() && s.binding != 0) functions.push_back(s.name);
  std::sort(functions.begin(), functions.end());
  EXPECT_NE(std::find(functions.begin(), functions.end(), "_Z7add_onePfi"), functions.end());
  EXPECT_NE(std::find(functions.begin(), functions.end(), "_Z8tile_sumPKfPf"), functions.end());
}

// Two builds of one source from other folders (tests/data/cuda/README.md): nvcc's file-local names differ by the
// translation unit's hashes, and each build's variable is found in the other.
TEST(ElfSymbols, FileLocalVariablesMatchAcrossBuilds) {
  const std::string dir = std::string(RPL_SOURCE_DIR) + "/tests/data/cuda/";
  const auto a = read_elf_symbols(read_bytes(dir + "internal_vars-a.cubin"));
  const auto b = read_elf_symbols(read_bytes(dir + "internal_vars-b.cubin"));
  auto scale_in = [](const std::vector<ElfSymbol>& symbols) {
    for (const auto& s : symbols)
      if (s.is_object() && s.name.find("5scaleE") != std::string::npos) return s.name;
    return std::string();
  };
  const std::string in_a = scale_in(a), in_b = scale_in(b);
  ASSERT_FALSE(in_a.empty());
  ASSERT_FALSE(in_b.empty());
  EXPECT_NE(in_a, in_b) << "the builds' hashes differ, or this test proves nothing";
  EXPECT_EQ(same_variable_in_build(b, in_a), in_b);
  EXPECT_EQ(same_variable_in_build(a, in_b), in_a);
  EXPECT_EQ(same_variable_in_build(a, in_a), in_a);
  EXPECT_EQ(same_variable_in_build(b, "calls"), "calls");  // a plain file-local name needs nothing
  EXPECT_EQ(same_variable_in_build(b, "_ZN47_INTERNAL_d850e7fe_16_internal_vars_cu_24f1eb1f5otherE"), "");
  EXPECT_EQ(without_translation_unit_hashes("_ZN45_INTERNAL_7fc383c9_14_row_sum_ext_cu_0cbaf6c44cuda3std3__45__cpo5beginE"),
            "_ZN45_INTERNAL_#_14_row_sum_ext_cu_#4cuda3std3__45__cpo5beginE");
  EXPECT_EQ(without_translation_unit_hashes("_INTERNAL_zz"), "_INTERNAL_zz");  // not the pattern: unchanged
  // Two variables that differ only by their hashes: never a guess.
  std::vector<ElfSymbol> two = {{"_ZN10_INTERNAL_aa_1_f_bb1xE", ".nv.global", 4, 1, 0, 0},
                                {"_ZN10_INTERNAL_cc_1_f_dd1xE", ".nv.global", 4, 1, 0, 0}};
  EXPECT_EQ(same_variable_in_build(two, "_ZN10_INTERNAL_ee_1_f_ff1xE"), "");
}

TEST(ElfSymbols, RejectsWhatIsNotElf) {
  std::vector<std::byte> junk(100, std::byte{0x41});
  EXPECT_THROW(read_elf_symbols(junk), ElfFormatError);
  EXPECT_THROW(read_elf_symbols(std::span<const std::byte>()), ElfFormatError);
  auto image = read_bytes(std::string(RPL_SOURCE_DIR) + "/tests/data/hip/kernels-gfx90a.co");
  image.resize(image.size() / 2);  // section headers are at the end
  EXPECT_THROW(read_elf_symbols(image), ElfFormatError);
}

TEST(ElfSymbols, CubinKernelsAndGlobals) {
#ifndef RPL_NVCC
  GTEST_SKIP() << "nvcc was not found when configuring (looked on PATH and in /usr/local/cuda/bin)";
#else
  test::TempDir dir;
  std::ofstream(dir.file("k.cu")) << "__device__ unsigned long long g_table[32];\n"
                                     "__constant__ float c_scale[4];\n"
                                     "__global__ void chase(unsigned long long* o) { o[threadIdx.x] = g_table[threadIdx.x] * c_scale[0]; }\n"
                                     "__global__ void other(int* p) { p[0] = 1; }\n";
  int status = 0;
  std::string log = test::run_shell(std::string(RPL_NVCC) + " -arch=sm_90 -cubin -o " + dir.file("k.cubin") + " " +
                                        dir.file("k.cu") + " 2>&1",
                                    &status);
  ASSERT_EQ(status, 0) << log;
  auto symbols = read_elf_symbols(read_bytes(dir.file("k.cubin")));
  auto find = [&](const std::string& name) -> const ElfSymbol* {
    for (const auto& s : symbols)
      if (s.name == name) return &s;
    return nullptr;
  };
  ASSERT_TRUE(find("_Z5chasePy"));
  EXPECT_TRUE(find("_Z5chasePy")->is_function());
  ASSERT_TRUE(find("_Z5otherPi"));
  ASSERT_TRUE(find("g_table"));
  EXPECT_TRUE(find("g_table")->is_object());
  EXPECT_EQ(find("g_table")->size, 256u);
  ASSERT_TRUE(find("c_scale"));
  EXPECT_EQ(find("c_scale")->size, 16u);
#endif
}

Manifest regions_manifest() {
  Manifest m;
  m.platform = "cuda";
  m.kernel = {"_Z1kv", "k()", "k", 1};
  auto add = [&](uint64_t a, uint64_t s, const char* kind, const char* symbol = "") {
    Region r;
    r.id = m.regions.size();
    r.address = a, r.size = s, r.kind = kind, r.symbol = symbol;
    m.regions.push_back(r);
  };
  add(0x7f0000001000, 0x100, "device");
  add(0x7f0000001200, 0x100, "device");        // same granule
  add(0x7f0000002000, 0x1000, "pitched");      // touches the first granule's end: merged
  add(0x7f0000009000, 0x10, "stream_ordered"); // apart
  add(0x7f0000004000, 0x40, "global", "g_table");
  return m;
}

TEST(ReservationPlan, WidenedToGranularityMergedGlobalsLeftToTheLoader) {
  Manifest m = regions_manifest();
  auto plan = plan_reservations(m, 0x1000, 0x1000);
  ASSERT_EQ(plan.size(), 2u);
  ASSERT_EQ(plan[0].mappings.size(), 1u);
  EXPECT_EQ(plan[0].address, 0x7f0000001000u);
  EXPECT_EQ(plan[0].size, 0x2000u);
  EXPECT_EQ(plan[0].mappings[0].regions, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(plan[1].address, 0x7f0000009000u);
  EXPECT_EQ(plan[1].size, 0x1000u);
  auto coarse = plan_reservations(m, 0x200000, 0x200000);  // 2 MiB: everything in one range
  ASSERT_EQ(coarse.size(), 1u);
  EXPECT_EQ(coarse[0].address, 0x7f0000000000u);
  EXPECT_THROW(plan_reservations(m, 3000, 4096), Error);
  EXPECT_THROW(plan_reservations(m, 0x2000, 0x1000), Error);
}

TEST(ReservationPlan, ReservationsAlignedMappingsOnlyWhereRegionsAre) {
  Manifest m = regions_manifest();
  // 32 KiB reservation alignment: the two aligned spans touch, so one reservation; each mapping on its own.
  auto plan = plan_reservations(m, 0x1000, 0x8000);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].address, 0x7f0000000000u);
  EXPECT_EQ(plan[0].size, 0x10000u);
  ASSERT_EQ(plan[0].mappings.size(), 2u);
  EXPECT_EQ(plan[0].mappings[0].address, 0x7f0000001000u);
  EXPECT_EQ(plan[0].mappings[0].size, 0x2000u);
  EXPECT_EQ(plan[0].mappings[1].address, 0x7f0000009000u);
  EXPECT_EQ(plan[0].mappings[1].regions, (std::vector<std::size_t>{3}));
  EXPECT_EQ(plan_reservations(m, 0x1000, 0x4000).size(), 2u);  // 16 KiB: apart
}

TEST(ReplayReport, DocumentsValidateAndSummarise) {
  test::TempDir tmp;
  Manifest m = regions_manifest();
  ReplayReport r;
  r.mode = ReplayMode::FullVm;
  r.capture_dir = "cap";
  r.platform = "cuda";
  r.device_name = "NVIDIA H100";
  r.runner = "rpl_replay_cuda";
  r.kernel = m.kernel;
  r.granularity = 0x200000;
  r.reservation_alignment = 0x2000000;
  r.ranges = {{0x7f0000000000, 0x200000, "exact", 0, ""}};
  r.regions = {{0, 0x7f0000001000, 0x100, "device", "", "exact", 0x7f0000001000},
               {4, 0x7f0000004000, 0x40, "global", "g_table", "loader", 0x7f1000004000}};
  r.iterations = 3;
  r.restore_source = "device";
  r.gpu_time = time_stats({3000, 1000, 2000});
  EXPECT_EQ(r.gpu_time.median_ns, 2000);
  EXPECT_EQ(r.gpu_time.mean_ns, 2000);
  EXPECT_EQ(r.gpu_time.per_iteration_ns[0], 3000);
  r.verification.status = "match";
  r.verification.regions_compared = 2;
  r.verification.bytes_compared = 0x140;
  auto check_doc = [&](const ReplayReport& rep, const std::string& expect_text) {
    std::string path = tmp.file(std::string(to_string(rep.mode)) + rep.verification.status + ".json");
    std::ofstream(path) << to_json(rep).dump();
    EXPECT_EQ(test::validate_against_schema("replay", path), "");
    std::string text = replay_summary_text(to_json(rep));
    EXPECT_NE(text.find(expect_text), std::string::npos) << text;
  };
  check_doc(r, "bit-exact: 2 regions");
  r.cache = CacheState::Warm;
  check_doc(r, "wall ");
  r.verification.status = "mismatch";
  r.verification.bytes_differing = r.verification.mismatched_bytes = 12;
  RegionVerdict verdict;
  verdict.status = "mismatch";
  verdict.bytes_differing = verdict.mismatched_bytes = 12;
  verdict.first_difference = 4;
  r.verification.differing = {{0, 0x7f0000001000, 0x100, "device", "", verdict}};
  check_doc(r, "MISMATCH: 12 bytes in 1 of 2 regions");
  r.verification.status = "nondeterministic";
  r.verification.mismatched_bytes = 0;
  r.verification.nondeterministic_bytes = 8;
  verdict.status = "nondeterministic";
  verdict.mismatched_bytes = 0;
  verdict.nondeterministic_bytes = 8;
  verdict.element = Element::BF16;
  verdict.element_inferred = true;
  verdict.replay_spread.max_ulp = 3;
  verdict.difference.max_ulp = 2;
  r.verification.differing = {{0, 0x7f0000001000, 0x100, "device", "", verdict}};
  check_doc(r, "3 ULP (bf16, inferred)");
  check_doc(r, "nondeterministic: 12 bytes in 1 of 2 regions");
  ReplayReport reserve = r;
  reserve.mode = ReplayMode::ReserveCheck;
  reserve.ranges[0].status = "relocated";
  reserve.ranges[0].got = 0x7e0000000000;
  EXPECT_FALSE(reserve.all_exact());
  check_doc(reserve, "0 of 1 ranges reserved");
}

}  // namespace
}  // namespace rpl::capture
