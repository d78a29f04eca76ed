// NVIDIA kernel resources through cuobjdump (collectors/nvidia/cubin_resources.hpp). cuobjdump is not a
// Debian package, so most tests use real cuobjdump output captured with CUDA 13.0
// (tests/data/cuobjdump/, see its README) and a stand-in cuobjdump script that prints it; the test with
// the real tool skips, saying why, when the toolkit has no cuobjdump.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "collectors/kernel_resources.hpp"
#include "collectors/nvidia/cubin_resources.hpp"
#include "testing/binary_files.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using collectors::nvidia::CubinFunction;
using collectors::nvidia::parse_resource_usage;
using collectors::nvidia::read_cubin_resources;
using test::expect_error;

std::string sample(const std::string& name) {
  return std::string(RPL_SOURCE_DIR) + "/tests/data/cuobjdump/" + name;
}

std::string read_text(const std::string& path) {
  const auto bytes = test::read_binary(path);
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

const CubinFunction& find(const std::vector<CubinFunction>& all, const std::string& name, const std::string& arch) {
  for (const auto& f : all) {
    if (f.name == name && f.arch == arch) return f;
  }
  throw std::runtime_error("no function " + name + " for " + arch);
}

// Sets PATH for one scope.
class PathOverride {
 public:
  explicit PathOverride(const std::string& path) {
    const char* old = std::getenv("PATH");
    saved_ = old != nullptr ? old : "";
    ::setenv("PATH", path.c_str(), 1);
  }
  ~PathOverride() { ::setenv("PATH", saved_.c_str(), 1); }
  const std::string& saved() const { return saved_; }

 private:
  std::string saved_;
};

// A stand-in cuobjdump: checks its arguments like the real one and runs `body` (sh).
std::string fake_cuobjdump(const test::TempDir& dir, const std::string& body, const std::string& name = "cuobjdump") {
  const std::string path = dir.file(name);
  std::ofstream(path) << "#!/bin/sh\n"
                      << "[ \"$1\" = --dump-resource-usage ] || { echo \"bad arguments: $*\" >&2; exit 99; }\n"
                      << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(CuobjdumpOutput, FatBinaryWithTwoArchitectures) {
  const auto all = parse_resource_usage(read_text(sample("fatbin_sm80_sm90.txt")), "", "app");
  // Three kernels for each of sm_80 and sm_90; the kernel-less "Common" entries yield nothing.
  ASSERT_EQ(all.size(), 6u);
  // sm_80 values as printed (ptxas -v agreed: 22 registers, 1024 bytes smem, 368 bytes cmem[0]).
  const auto& sum80 = find(all, "_Z9block_sumPKfPf", "sm_80");
  EXPECT_EQ(sum80.registers, 22u);
  EXPECT_EQ(sum80.stack, 0u);
  EXPECT_EQ(sum80.shared, 1024u);
  EXPECT_EQ(sum80.local, 0u);
  EXPECT_EQ(sum80.constant0, 368u);
  EXPECT_EQ(sum80.texture + sum80.surface + sum80.sampler, 0u);
  EXPECT_TRUE(sum80.other.empty());
  EXPECT_EQ(find(all, "_Z9block_sumPKfPf", "sm_90").shared, 2048u);  // includes the reserved KiB
  const auto& stack = find(all, "_Z10with_stackPfi", "sm_90");
  EXPECT_EQ(stack.registers, 40u);
  EXPECT_EQ(stack.stack, 256u);  // float buf[64] in a non-inlined callee: 64 * 4
  EXPECT_EQ(stack.constant0, 540u);
  EXPECT_EQ(find(all, "_Z5scalePffi", "sm_80").registers, 8u);
}

TEST(CuobjdumpOutput, PtxEntriesAreSkipped) {
  const auto all = parse_resource_usage(read_text(sample("fatbin_sm80_ptx90.txt")), "", "app");
  ASSERT_EQ(all.size(), 3u);
  for (const auto& f : all) EXPECT_EQ(f.arch, "sm_80");
}

TEST(CuobjdumpOutput, BareCubinTakesTheCallersArch) {
  const auto all = parse_resource_usage(read_text(sample("cubin_sm90.txt")), "sm_90", "k.cubin");
  ASSERT_EQ(all.size(), 2u);
  const auto& sum = find(all, "_Z9block_sumPKfPf", "sm_90");
  EXPECT_EQ(sum.shared, 2048u);  // 1024 static (+ the reserved KiB on sm_90); CONSTANT[3] is module-wide
  EXPECT_EQ(find(all, "_Z5scalePffi", "sm_90").registers, 10u);
}

TEST(CuobjdumpOutput, UnknownKeysAreKeptAndBadTokensRejected) {
  const std::string text =
      "\nResource usage:\n Common:\n  GLOBAL:0\n Function f:\n"
      "  REG:12 STACK:16 SHARED:0 LOCAL:8 CONSTANT[0]:352 CONSTANT[2]:8 BARRIERS:1\n";
  const auto all = parse_resource_usage(text, "sm_86", "x");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].local, 8u);
  ASSERT_EQ(all[0].other.size(), 2u);
  EXPECT_EQ(all[0].other[0].first, "CONSTANT[2]");
  EXPECT_EQ(all[0].other[0].second, 8u);
  EXPECT_EQ(all[0].other[1].first, "BARRIERS");

  expect_error([] { parse_resource_usage(" Function f:\n  REG:12 STACK:lots\n", "", "x.cubin"); },
               ExitCode::ProfilerFailed, {"x.cubin", "line 2", "STACK:lots"});
  expect_error([] { parse_resource_usage(" Function f:\n  REG12\n", "", "x.cubin"); }, ExitCode::ProfilerFailed,
               {"REG12"});
  EXPECT_TRUE(parse_resource_usage("", "", "x").empty());
}

TEST(CuobjdumpOutput, ArchFromCubinHeader) {
  using collectors::nvidia::cubin_arch;
  // e_flags of nvcc 13 cubins (ELF ABI version 8): SM number in bits 8..15.
  EXPECT_EQ(cubin_arch(8, 0x6005004), "sm_80");
  EXPECT_EQ(cubin_arch(8, 0x6005a04), "sm_90");
  // Older cubins (ABI version 7): SM number in bits 0..7 (virtual arch in bits 16..23).
  EXPECT_EQ(cubin_arch(7, 0x500550), "sm_80");
  EXPECT_EQ(cubin_arch(7, 0), "");
}

TEST(CuobjdumpRun, StandInToolAndDispatch) {
  test::TempDir dir;
  const std::string tool = fake_cuobjdump(dir, "cat '" + sample("fatbin_sm80_sm90.txt") + "'");
  // A file that starts with the CUDA fatbin magic 0xBA55ED50 is routed to cuobjdump.
  test::write_binary(dir.file("k.fatbin"), {std::byte{0x50}, std::byte{0xed}, std::byte{0x55}, std::byte{0xba},
                                            std::byte{1}, std::byte{0}, std::byte{0x10}, std::byte{0}});
  collectors::ReadOptions options;
  options.cuobjdump = tool;
  const auto all = collectors::read_kernel_resources(dir.file("k.fatbin"), options);
  ASSERT_EQ(all.size(), 6u);
  for (const auto& r : all) {
    EXPECT_EQ(r.vendor, collectors::GpuVendor::Nvidia);
    EXPECT_EQ(r.container, "fatbin");
    EXPECT_EQ(r.wave_size, 32u);
  }
  const collectors::BinaryKernelResources* stack = nullptr;
  for (const auto& r : all) {
    if (r.mangled == "_Z10with_stackPfi" && r.arch == "sm_80") stack = &r;
  }
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack->name, "with_stack(float*, int)");
  EXPECT_EQ(stack->arch_vgprs, 40u);
  EXPECT_EQ(stack->scratch_bytes, 256u);  // STACK 256 + LOCAL 0
  EXPECT_EQ(stack->constant_bytes, 364u);
  EXPECT_EQ(stack->accum_vgprs, 0u);
}

TEST(CuobjdumpRun, FoundOnPath) {
  test::TempDir dir;
  const std::string tool = fake_cuobjdump(dir, "cat '" + sample("cubin_sm90.txt") + "'");
  std::optional<std::string> found;
  std::vector<CubinFunction> all;
  {
    PathOverride path(dir.path().string() + ":" + (std::getenv("PATH") ? std::getenv("PATH") : ""));
    found = collectors::nvidia::find_cuobjdump();
    all = read_cubin_resources(tool, "sm_90");  // any existing file will do for the stand-in
  }
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, tool);
  EXPECT_EQ(all.size(), 2u);
}

TEST(CuobjdumpRun, FailuresAreReported) {
  test::TempDir dir;
  const std::string input = dir.file("in.bin");
  test::write_binary(input, test::to_bytes("x"));

  const auto failing = fake_cuobjdump(dir, "echo 'cuobjdump fatal   : something broke' >&2; exit 3", "fails");
  expect_error([&] { read_cubin_resources(input, "", failing); }, ExitCode::ProfilerFailed,
               {input, "status 3", "something broke"});

  const auto no_code = fake_cuobjdump(
      dir, "echo \"cuobjdump info    : File '$2' does not contain device code\" >&2; exit 255", "nocode");
  expect_error([&] { read_cubin_resources(input, "", no_code); }, ExitCode::InputInvalid,
               {input, "no NVIDIA device code"});

  const auto crashes = fake_cuobjdump(dir, "kill -9 $$", "crashes");
  expect_error([&] { read_cubin_resources(input, "", crashes); }, ExitCode::ProfilerFailed, {"signal 9"});

  const auto garbage = fake_cuobjdump(dir, "printf ' Function f:\\n  REG:x\\n'", "garbage");
  expect_error([&] { read_cubin_resources(input, "", garbage); }, ExitCode::ProfilerFailed, {"REG:x"});

  expect_error([&] { read_cubin_resources(input, "", dir.file("absent-cuobjdump")); }, ExitCode::ProfilerFailed,
               {"absent-cuobjdump", "does not exist"});

  // Nothing on PATH: the message says what to install, unless this machine has the default one.
  if (collectors::nvidia::find_cuobjdump("/usr/local/cuda/bin/cuobjdump")) return;
  PathOverride path(dir.path().string());
  expect_error([&] { read_cubin_resources(input); }, ExitCode::ProfilerFailed, {input, "cuobjdump", "CUDA toolkit"});
}

// ---- with nvcc (and, where installed, the real cuobjdump) ------------------------------------------------

#ifdef RPL_NVCC
bool compile(const std::string& args) {
  int status = 0;
  const std::string log = test::run_shell(std::string(RPL_NVCC) + " " + args + " 2>&1", &status);
  EXPECT_EQ(status, 0) << log;
  return status == 0;
}
#endif

TEST(NvccBinaries, CubinArchComesFromItsHeader) {
#ifndef RPL_NVCC
  GTEST_SKIP() << "nvcc was not found when configuring (looked on PATH and in /usr/local/cuda/bin)";
#else
  test::TempDir dir;
  const std::string src = sample("kernels.cu");
  ASSERT_TRUE(compile("-arch=sm_80 -cubin -o " + dir.file("k80.cubin") + " " + src));
  ASSERT_TRUE(compile("-arch=sm_90 -cubin -o " + dir.file("k90.cubin") + " " + src));
  // The stand-in prints a bare cubin's output (no arch line): the arch must come from the ELF header.
  collectors::ReadOptions options;
  options.cuobjdump = fake_cuobjdump(dir, "cat '" + sample("cubin_sm90.txt") + "'");
  for (const char* arch : {"80", "90"}) {
    const auto all = collectors::read_kernel_resources(dir.file(std::string("k") + arch + ".cubin"), options);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].arch, std::string("sm_") + arch);
    EXPECT_EQ(all[0].container, "");
  }
#endif
}

TEST(NvccBinaries, HostExecutableWithNvFatbinGoesToCuobjdump) {
#ifndef RPL_NVCC
  GTEST_SKIP() << "nvcc was not found when configuring (looked on PATH and in /usr/local/cuda/bin)";
#else
  test::TempDir dir;
  ASSERT_TRUE(compile("-gencode arch=compute_80,code=sm_80 -o " + dir.file("app") + " " + sample("kernels.cu")));
  // The stand-in only answers for the file it is given; the dispatcher must pass the executable itself.
  collectors::ReadOptions options;
  options.cuobjdump = fake_cuobjdump(
      dir, "[ \"$2\" = '" + dir.file("app") + "' ] || exit 98; cat '" + sample("fatbin_sm80_sm90.txt") + "'");
  const auto all = collectors::read_kernel_resources(dir.file("app"), options);
  ASSERT_EQ(all.size(), 6u);
  for (const auto& r : all) EXPECT_EQ(r.container, "fatbin");
#endif
}

TEST(NvccBinaries, RealCuobjdumpOnAHostExecutable) {
#ifndef RPL_NVCC
  GTEST_SKIP() << "nvcc was not found when configuring";
#else
  if (!collectors::nvidia::find_cuobjdump()) {
    GTEST_SKIP() << "cuobjdump not found on PATH or in /usr/local/cuda/bin (the CUDA toolkit's cuobjdump "
                    "component is not installed); the parser is tested on captured output instead";
  }
  test::TempDir dir;
  ASSERT_TRUE(compile("-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -o " +
                      dir.file("app") + " " + sample("kernels.cu")));
  const auto all = collectors::read_kernel_resources(dir.file("app"));
  ASSERT_EQ(all.size(), 6u);  // 3 kernels x 2 archs
  for (const auto& r : all) {
    EXPECT_GT(r.arch_vgprs, 0u) << r.mangled;
    EXPECT_EQ(r.container, "fatbin");
    if (r.mangled == "_Z9block_sumPKfPf") {
      EXPECT_GE(r.lds_bytes, 1024u);  // float tile[256]
    }
    if (r.mangled == "_Z10with_stackPfi") {
      EXPECT_GE(r.scratch_bytes, 256u);  // float buf[64]
    }
  }
#endif
}

}  // namespace
}  // namespace rpl
