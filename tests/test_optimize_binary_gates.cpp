// The binary gates (issue 27) on real code objects compiled here without a GPU: nvcc cubins for sm_90 (with the
// PTX nvcc keeps) and Debian hipcc code objects for gfx90a and gfx940. One test per rule, a cheat hiding a clock
// read behind a macro and behind an inline function of another header among them; plus the text scanners on
// recorded lines. Each compiler's tests skip, saying so, where that compiler is not installed.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "collectors/code_object_facts.hpp"
#include "optimize/binary_gates.hpp"
#include "support/process.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::optimize {
namespace {
namespace fs = std::filesystem;
using collectors::CodeObjectFacts;

// The application's own header: a timing macro, an inline stamp, a log and a bail-out it uses elsewhere.
const char* kHelpers = R"(#pragma once
#include <cstdio>
#define APP_NOW() clock64()
__device__ inline long long app_stamp() { return clock64(); }
__device__ inline void app_log(int n) { printf("n=%d\n", n); }
__device__ inline void app_bail() { asm volatile("exit;"); }
)";

const char* kBase = R"(#include "helpers.h"
__global__ void __launch_bounds__(256) scale(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  BODY
}
__global__ void other(int* p) { p[threadIdx.x] = 1; }
)";

std::string with(const std::string& body, const std::string& before = "", const std::string& signature = "") {
  std::string s = kBase;
  s.replace(s.find("BODY"), 4, body);
  if (!signature.empty()) s.replace(s.find("const float* __restrict__ x, float* __restrict__ y, float a, int n"), 66, signature);
  return before + s;
}

const std::string kPlain = "if (i < n) y[i] = a * x[i];";

class Compiler {
 public:
  explicit Compiler(std::string tool) : tool_(find_executable(tool).value_or("")) {}
  bool available() const { return !tool_.empty(); }
  // Compiles `source` as dir/name and returns the code object's facts; fails the test when it does not compile.
  CodeObjectFacts facts(const std::string& name, const std::string& source, const std::string& arch) {
    fs::path src = dir_.path() / (name + (nvcc() ? ".cu" : ".hip"));
    std::ofstream(dir_.path() / (nvcc() ? "helpers.h" : "helpers.h")) << (nvcc() ? kHelpers : hip_helpers());
    std::ofstream(src) << (nvcc() ? "" : "#include <hip/hip_runtime.h>\n") << source;
    fs::path co = dir_.path() / (name + "-" + arch + ".co");
    fs::path keep = co.string() + ".keep";
    fs::create_directories(keep);
    std::string cmd = nvcc() ? fmt::format("{} -cubin -arch={} -O3 --keep --keep-dir {} -I{} -o {} {}", tool_, arch, keep.string(),
                                           dir_.path().string(), co.string(), src.string())
                             : fmt::format("{} --genco --offload-arch={} -O3 -I{} -o {} {}", tool_, arch, dir_.path().string(),
                                           co.string(), src.string());
    cmd += " >" + (co.string() + ".log") + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::string ptx;
    for (const auto& e : fs::directory_iterator(keep))
      if (e.path().extension() == ".ptx") ptx = e.path().string();
    return collectors::read_code_object_facts(co.string(), ptx);
  }

 private:
  bool nvcc() const { return fs::path(tool_).filename() == "nvcc"; }
  static std::string hip_helpers() {
    return R"(#pragma once
#define APP_NOW() clock64()
__device__ inline long long app_stamp() { return clock64(); }
__device__ inline long long app_wall() { return wall_clock64(); }
__device__ inline void app_log(int n) { printf("n=%d\n", n); }
)";
  }
  std::string tool_;
  test::TempDir dir_;
};

StaticVerdict judge(Compiler& c, const std::string& arch, const std::string& candidate, const std::string& original = with(kPlain),
                    const std::vector<uint64_t>& launched_threads = {256}) {
  static int n = 0;
  ++n;
  CodeObjectFacts a = c.facts("orig" + std::to_string(n), original, arch);
  CodeObjectFacts b = c.facts("cand" + std::to_string(n), candidate, arch);
  return check_binary_gates(a, b, launched_threads);
}

#define REQUIRE(compiler)                                                                                          \
  if (!(compiler).available()) GTEST_SKIP() << "not installed here: this vendor's binary rules are not checked"

class Nvcc : public ::testing::Test {
 protected:
  Compiler cc{"nvcc"};
  const std::string arch = "sm_90";
};

TEST_F(Nvcc, ReadsTheKernelAbiFromTheCubin) {
  REQUIRE(cc);
  CodeObjectFacts f = cc.facts("abi", with(kPlain), arch);
  EXPECT_EQ(f.vendor, "nvidia");
  ASSERT_EQ(f.kernels.size(), 2u);
  const auto& k = f.kernels[0].symbol == "_Z5scalePKfPffi" ? f.kernels[0] : f.kernels[1];
  ASSERT_EQ(k.symbol, "_Z5scalePKfPffi");
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.params[0].offset, 0u);
  EXPECT_EQ(k.params[0].size, 8u);
  EXPECT_EQ(k.params[2].offset, 16u);
  EXPECT_EQ(k.params[3].offset, 20u);
  EXPECT_EQ(k.params[3].size, 4u);
  EXPECT_EQ(k.param_block_size, 24u);
  EXPECT_NE(std::find(k.bounds.begin(), k.bounds.end(), "max_threads 256 1 1"), k.bounds.end());
  EXPECT_EQ(f.functions, (std::vector<std::string>{"_Z5otherPi", "_Z5scalePKfPffi"}));
  EXPECT_TRUE(f.findings.empty());
}

TEST_F(Nvcc, AFasterBodyWithVectorLoadsAndLdgPasses) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with("if (4 * i + 3 < n) { float4 v = __ldg(reinterpret_cast<const float4*>(x) + i); "
                                         "v.x *= a; v.y *= a; v.z *= a; v.w *= a; reinterpret_cast<float4*>(y)[i] = v; }"));
  EXPECT_TRUE(v.passed) << v.reason;
}

TEST_F(Nvcc, AToolkitIncludeOfCubPasses) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with("using R = cub::BlockReduce<float, 256>; __shared__ typename R::TempStorage t; "
                                         "float s = R(t).Sum(i < n ? x[i] : 0.0f); if (threadIdx.x == 0) y[blockIdx.x] = a * s;",
                                         "#include <cub/block/block_reduce.cuh>\n"));
  EXPECT_TRUE(v.passed) << v.reason;
}

TEST_F(Nvcc, AWidenedParameterChangesTheAbi) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with(kPlain, "", "const float* __restrict__ x, float* __restrict__ y, float a, long n"));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.gate, "binary_signature") << v.reason;
}

// Session 18's probe: a division's reciprocal hoisted out of it swaps nvcc's internal slow-path subroutines
// (`$__internal_N_$__cuda_sm3x_div_rn_noftz_f32_slowpath` for `rcp_rn_f32_slowpath`); they are no interface.
TEST_F(Nvcc, NvccsInternalSubroutinesAreNotTheSourcesFunctions) {
  REQUIRE(cc);
  const std::string divide = with("if (i < n) y[i] = x[i] / a;"), reciprocal = with("const float r = 1.0f / a;\n  if (i < n) y[i] = x[i] * r;");
  CodeObjectFacts f = cc.facts("internal-divide", divide, arch);
  for (const auto& name : f.functions) EXPECT_NE(name.rfind("$__internal_", 0), 0u) << name;
  StaticVerdict v = judge(cc, arch, reciprocal, divide);
  EXPECT_TRUE(v.passed) << v.reason << " " << v.evidence.dump();
  // a new kernel is still a new function
  StaticVerdict extra = judge(cc, arch, reciprocal + "__global__ void extra(float* p) { p[0] = 1.0f; }\n", divide);
  EXPECT_FALSE(extra.passed);
  EXPECT_EQ(extra.gate, "binary_signature") << extra.reason;
}

TEST_F(Nvcc, ChangedLaunchBoundsAreHeldAgainstTheCapturedLaunches) {
  REQUIRE(cc);
  // bounds below the application's 256 threads per block: the launch would fail
  std::string c = with(kPlain);
  c.replace(c.find("__launch_bounds__(256)"), 22, "__launch_bounds__(128)");
  StaticVerdict v = judge(cc, arch, c);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.gate, "binary_signature");
  EXPECT_NE(v.reason.find("at most 128 threads per block"), std::string::npos) << v.reason;
  // an optimization's bounds: the launch fits, the minimum blocks per SM caps registers
  std::string tuned = with(kPlain);
  tuned.replace(tuned.find("__launch_bounds__(256)"), 22, "__launch_bounds__(256, 4)");
  StaticVerdict ok = judge(cc, arch, tuned);
  EXPECT_TRUE(ok.passed) << ok.reason;
  // bounds the original did not have, as wide as the launch, and bounds removed
  std::string plain = with(kPlain);
  plain.replace(plain.find("__launch_bounds__(256) "), 23, "");
  StaticVerdict added = judge(cc, arch, with(kPlain), plain);
  EXPECT_TRUE(added.passed) << added.reason;
  ASSERT_TRUE(added.evidence.contains("launch_bounds_changed")) << added.evidence.dump();
  EXPECT_EQ(added.evidence["launch_bounds_changed"][0]["launched_threads_per_block"], nlohmann::json::array({256}));
  EXPECT_TRUE(judge(cc, arch, plain).passed);
  // no captured launch known: admitted, and said so (the replay judges the launch)
  StaticVerdict unknown = judge(cc, arch, c, with(kPlain), {});
  EXPECT_TRUE(unknown.passed) << unknown.reason;
  EXPECT_NE(unknown.reason.find("no launch to hold them against"), std::string::npos) << unknown.reason;
}

TEST_F(Nvcc, ANewExportedKernelIsSeen) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with(kPlain) + "__global__ void extra(int* p) { p[0] = 2; }\n");
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.gate, "binary_signature");
}

TEST_F(Nvcc, ANewDeviceGlobalIsSeen) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with("if (g_done) return; if (i < n) y[i] = a * x[i]; if (i == 0) g_done = 1;", "__device__ int g_done;\n"));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.gate, "binary_structure");
  EXPECT_NE(v.reason.find("g_done"), std::string::npos) << v.reason;
}

// A kernel-local `static constexpr` table indexed at run time: nvcc places it in .nv.global.init, writable device
// memory that outlives a launch. It holds no state when the code only reads it (session 18's probe refused such a
// correct candidate); a write through a cast, or its address handed to a helper that is not inlined, makes it
// state again. One `#pragma unroll 1` keeps the index a run-time one (unrolled, nvcc folds the table away).
TEST_F(Nvcc, AKernelLocalStaticConstexprTableOnlyReadIsNoState) {
  REQUIRE(cc);
  const std::string table = "static constexpr float kTaps[4] = {0.125f, 0.25f, 0.25f, 0.375f}; float w = 0.0f;\n"
                            "#pragma unroll 1\nfor (int k = 0; k < 4; ++k) w += kTaps[k];\n";
  StaticVerdict read = judge(cc, arch, with(table + "if (i < n) y[i] = a * w * x[i];"));
  EXPECT_TRUE(read.passed) << read.reason << " " << read.evidence.dump();
  ASSERT_TRUE(read.evidence.contains("read_only_data_allowed")) << read.evidence.dump();
  EXPECT_NE(read.evidence["read_only_data_allowed"].dump().find("kTaps"), std::string::npos) << read.evidence.dump();
  // the same table written through a cast: the second launch would see the first one's value
  StaticVerdict written = judge(cc, arch, with(table + "if (i == 0) const_cast<float*>(kTaps)[n & 3] = w; if (i < n) y[i] = a * w * x[i];"));
  EXPECT_FALSE(written.passed);
  EXPECT_EQ(written.gate, "binary_structure");
  EXPECT_NE(written.reason.find("kTaps"), std::string::npos) << written.reason;
  // its address stored into memory, for anyone to write through later
  StaticVerdict escaped = judge(cc, arch, with(table + "if (i == 0) reinterpret_cast<const float**>(y)[0] = kTaps + (n & 3); "
                                               "if (i < n) y[i + 2] = a * w * x[i];"));
  EXPECT_FALSE(escaped.passed);
  EXPECT_EQ(escaped.gate, "binary_structure");
  // an atomic on it
  StaticVerdict atomic = judge(cc, arch, with(table + "if (i == 0) atomicAdd(const_cast<float*>(kTaps) + (n & 3), 1.0f); "
                                              "if (i < n) y[i] = a * w * x[i];"));
  EXPECT_FALSE(atomic.passed);
  EXPECT_EQ(atomic.gate, "binary_structure");
}

// An atomic on a kernel's const input (a side channel through memory the original only reads) is seen in the PTX,
// which is where the static gate's check is deferred to when the kernel does not parse (session 18's probe admitted a
// cuda::atomic_ref on an input with the stub headers). Atomics on the output are the kernel's own business.
TEST_F(Nvcc, AnAtomicOnAConstInputIsSeen) {
  REQUIRE(cc);
  StaticVerdict on_input = judge(cc, arch, with(kPlain + " if (i == 0) atomicAdd(const_cast<float*>(x), 0.0f);"));
  EXPECT_FALSE(on_input.passed);
  EXPECT_EQ(on_input.gate, "binary_structure");
  EXPECT_EQ(on_input.evidence.value("rule", ""), "atomic_on_input") << on_input.reason;
  StaticVerdict via_offset = judge(cc, arch, with(kPlain + " if (i < n) atomicOr(reinterpret_cast<int*>(const_cast<float*>(x + i)), 0);"));
  EXPECT_FALSE(via_offset.passed);
  EXPECT_EQ(via_offset.evidence.value("rule", ""), "atomic_on_input") << via_offset.reason;
  StaticVerdict on_output = judge(cc, arch, with("if (i < n) atomicAdd(y + (i & 7), a * x[i]);"));
  EXPECT_TRUE(on_output.passed) << on_output.reason << " " << on_output.evidence.dump();
}

TEST_F(Nvcc, PrintfIsSeenAsANewExternalCall) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with(kPlain + " if (i == 0) app_log(n);"));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.gate, "binary_structure");
  EXPECT_NE(v.reason.find("vprintf"), std::string::npos) << v.reason;
}

TEST_F(Nvcc, AClockReadIsSeen) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with("if (clock64() % 7 == 0) return; " + kPlain));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.gate, "binary_structure");
  EXPECT_EQ(v.evidence.value("rule", ""), "clock");
}

TEST_F(Nvcc, AClockReadHiddenBehindAMacroInAnotherHeaderIsSeen) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with("if (APP_NOW() % 7 == 0) return; " + kPlain));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.evidence.value("rule", ""), "clock") << v.reason;
}

TEST_F(Nvcc, AClockReadHiddenBehindAnInlineFunctionInAnotherHeaderIsSeen) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with("long long t0 = app_stamp(); if (i < n && app_stamp() - t0 < 100000) y[i] = a * x[i];"));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.evidence.value("rule", ""), "clock") << v.reason;
  EXPECT_EQ(v.evidence.value("candidate_count", 0), 2);
}

TEST_F(Nvcc, TheGlobalTimerIsSeen) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with("unsigned long long t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); if (t == 1) return; " + kPlain));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.evidence.value("rule", ""), "clock") << v.reason;
}

TEST_F(Nvcc, AnEarlyExitThroughInlineAsmInAnotherHeaderIsSeen) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with("if (i % 2) app_bail(); " + kPlain));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.evidence.value("rule", ""), "exit") << v.reason;
}

TEST_F(Nvcc, ATrapIsSeen) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, arch, with("if (i < n && y[i] != y[i]) __trap(); " + kPlain));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.evidence.value("rule", ""), "trap") << v.reason;
}

TEST_F(Nvcc, WhatTheOriginalAlreadyDidIsNoFinding) {
  REQUIRE(cc);
  std::string original = with("if (APP_NOW() == 0) return; " + kPlain);
  StaticVerdict v = judge(cc, arch, with("if (APP_NOW() == 0) return; if (i < n) y[i] = x[i] * a;"), original);
  EXPECT_TRUE(v.passed) << v.reason;
}

class Hipcc : public ::testing::TestWithParam<std::string> {
 protected:
  Compiler cc{"hipcc"};
};

TEST_P(Hipcc, ReadsTheKernargAbiAndBounds) {
  REQUIRE(cc);
  CodeObjectFacts f = cc.facts("abi", with(kPlain), GetParam());
  EXPECT_EQ(f.vendor, "amd");
  auto k = std::find_if(f.kernels.begin(), f.kernels.end(), [](const auto& k) { return k.symbol == "_Z5scalePKfPffi"; });
  ASSERT_NE(k, f.kernels.end());
  ASSERT_EQ(k->params.size(), 4u);
  EXPECT_EQ(k->params[1].offset, 8u);
  EXPECT_EQ(k->params[1].kind.rfind("global_buffer global", 0), 0u) << k->params[1].kind;
  EXPECT_EQ(k->params[3].kind, "by_value");
  EXPECT_EQ(k->param_block_size, 24u);
  EXPECT_NE(std::find(k->bounds.begin(), k->bounds.end(), "max_flat_workgroup_size 256"), k->bounds.end());
}

TEST_P(Hipcc, AWidenedParameterAndBoundsBelowTheLaunchAreSeen) {
  REQUIRE(cc);
  EXPECT_EQ(judge(cc, GetParam(), with(kPlain, "", "const float* __restrict__ x, float* __restrict__ y, float a, long n")).gate,
            "binary_signature");
  std::string c = with(kPlain);
  c.replace(c.find("__launch_bounds__(256)"), 22, "__launch_bounds__(128)");
  StaticVerdict v = judge(cc, GetParam(), c);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.gate, "binary_signature") << v.reason;
  EXPECT_NE(v.reason.find("at most 128 threads per block"), std::string::npos) << v.reason;
  // a flat work-group size as wide as the launch: admitted
  std::string wide = with(kPlain);
  wide.replace(wide.find("__launch_bounds__(256)"), 22, "__launch_bounds__(512)");
  StaticVerdict ok = judge(cc, GetParam(), wide);
  EXPECT_TRUE(ok.passed) << ok.reason;
}

TEST_P(Hipcc, ClockReadsHiddenInAHeaderAreSeenInTheIsa) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, GetParam(), with("if (app_stamp() % 7 == 0) return; " + kPlain));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.evidence.value("rule", ""), "clock") << v.reason;
  EXPECT_EQ(v.evidence.value("source", ""), "ISA");
  v = judge(cc, GetParam(), with("if (app_wall() % 7 == 0) return; " + kPlain));
  EXPECT_EQ(v.evidence.value("rule", ""), "clock") << v.reason;
}

TEST_P(Hipcc, PrintfAndNewGlobalsAreSeen) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, GetParam(), with(kPlain + " if (i == 0) app_log(n);"));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.evidence.value("rule", ""), "print") << v.reason;
  v = judge(cc, GetParam(), with("if (g_done) return; " + kPlain + " if (i == 0) g_done = 1;", "__device__ int g_done;\n"));
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.reason.find("g_done"), std::string::npos) << v.reason;
}

// A local table indexed at run time: the AMD compiler places its values in .rodata (`__const.<kernel>.kTaps`, or
// `_ZZ...E5kTaps.const` when static), a section the code object declares read-only, where a __constant__ or
// __device__ variable is in .data or .bss. Refused as new device data before (a wrong reject); a mutable __device__
// table is still refused. Whether the GPU enforces .rodata's read-only mapping is not checked here (no AMD GPU).
TEST_P(Hipcc, ALocalTableInReadOnlyDataIsNoState) {
  REQUIRE(cc);
  for (const std::string decl : {"constexpr", "static constexpr"}) {
    const std::string table = decl + " float kTaps[4] = {0.125f, 0.25f, 0.25f, 0.375f}; float w = 0.0f;\n"
                              "#pragma unroll 1\nfor (int k = 0; k < (n & 3) + 1; ++k) w += kTaps[k];\n";
    StaticVerdict v = judge(cc, GetParam(), with(table + "if (i < n) y[i] = a * w * x[i];"));
    EXPECT_TRUE(v.passed) << decl << ": " << v.reason << " " << v.evidence.dump();
    EXPECT_NE(v.evidence.value("read_only_data_allowed", nlohmann::json::array()).dump().find("kTaps"), std::string::npos)
        << decl << ": " << v.evidence.dump();
  }
  StaticVerdict mutable_table = judge(cc, GetParam(), with("if (i < n) y[i] = a * g_taps[i & 3] * x[i]; if (i == 0) g_taps[0] += 1.0f;",
                                                           "__device__ float g_taps[4] = {1, 2, 3, 4};\n"));
  EXPECT_FALSE(mutable_table.passed);
  EXPECT_NE(mutable_table.reason.find("g_taps"), std::string::npos) << mutable_table.reason;
}

TEST_P(Hipcc, AFasterBodyPasses) {
  REQUIRE(cc);
  StaticVerdict v = judge(cc, GetParam(), with("for (int k = i; k < n; k += gridDim.x * blockDim.x) y[k] = a * x[k];"));
  EXPECT_TRUE(v.passed) << v.reason;
}

INSTANTIATE_TEST_SUITE_P(Gfx, Hipcc, ::testing::Values("gfx90a", "gfx940"));

TEST(CodeFindings, SassLinesOfClockAndTimerReads) {
  // cuobjdump -sass prints "Function : NAME" headers and instructions like these (format of CUDA 12/13)
  const std::string sass = "\tcode for sm_90\n\t\tFunction : _Z4spinPi\n"
                           "        /*0010*/                   S2R R0, SR_CLOCKLO ;                       /* 0x0000000000007919 */\n"
                           "        /*0020*/                   CS2R R2, SR_CLOCKLO ;                      /* 0x0000000000027805 */\n"
                           "        /*0030*/                   S2UR UR4, SR_GLOBALTIMERLO ;               /* 0x00000000000479c3 */\n"
                           "        /*0040*/                   BPT.TRAP 0x1 ;                             /* 0x000000040000795c */\n"
                           "\t\tFunction : _Z5otherPi\n        /*0010*/                   EXIT ;\n";
  auto f = collectors::sass_findings(sass);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].function, "_Z4spinPi");
  EXPECT_EQ(f[0].rule, "clock");
  EXPECT_EQ(f[2].rule, "clock");
  EXPECT_EQ(f[3].rule, "trap");
}

// The PTX scanner for read-only data on recorded PTX (nvcc 13's form): an address derived from the symbol followed
// through moves, conversions and offsets to loads only; a store, an atomic, a call parameter or another object's
// initialiser that takes it; a pointer loaded from a table of pointers and stored through.
TEST(CodeFindings, PtxReadOnlySymbols) {
  const std::string head = ".version 8.8\n.target sm_90\n.address_size 64\n"
                           ".global .align 4 .b8 _ZZ1kPfE1t[16] = {0, 0, 128, 62, 0, 0, 128, 62, 0, 0, 128, 62, 0, 0, 128, 62};\n"
                           ".visible .entry _Z1kPf(\n\t.param .u64 _Z1kPf_param_0\n)\n{\n\t.reg .b64 %rd<12>;\n\t.reg .f32 %f<10>;\n"
                           "\t.reg .b32 %r<4>;\n\t.reg .pred %p<2>;\n\tld.param.u64 %rd4, [_Z1kPf_param_0];\n"
                           "\tmov.u64 %rd11, _ZZ1kPfE1t;\n$L__BB0_1:\n\t.pragma \"nounroll\";\n";
  const std::string tail = "\tret;\n\n}\n";
  const std::vector<std::string> sym = {"_ZZ1kPfE1t"};
  auto read_only = [&](const std::string& body, const std::string& more = "") {
    return collectors::ptx_read_only_symbols(more + head + body + tail, sym) == sym;
  };
  EXPECT_TRUE(read_only("\tld.global.nc.f32 %f5, [%rd11];\n\tadd.s64 %rd11, %rd11, 4; // next tap\n"
                        "\tcvta.to.global.u64 %rd1, %rd4;\n\t@%p1 bra $L__BB0_1;\n\tld.global.v2.f32 {%f1, %f2}, [%rd11+8];\n"
                        "\tst.global.f32 [%rd1], %f5;\n"));
  EXPECT_TRUE(read_only("\tld.global.f32 %f5, [_ZZ1kPfE1t+4];\n"));
  EXPECT_FALSE(read_only("\tadd.s64 %rd2, %rd11, 4;\n\tcvta.global.u64 %rd3, %rd2;\n\tst.f32 [%rd3], %f5;\n"));
  EXPECT_FALSE(read_only("\tst.global.f32 [_ZZ1kPfE1t+8], %f5;\n"));
  EXPECT_FALSE(read_only("\tatom.global.add.f32 %f1, [%rd11], %f5;\n"));
  EXPECT_FALSE(read_only("\tcvta.to.global.u64 %rd1, %rd4;\n\tst.global.u64 [%rd1], %rd11;\n"));  // its address stored
  EXPECT_FALSE(read_only("\tst.param.b64 [param0], %rd11;\n\tcall.uni helper, (param0);\n"));
  EXPECT_FALSE(read_only("\tld.global.u64 %rd5, [%rd11];\n\tst.global.f32 [%rd5], %f5;\n"));  // a loaded pointer
  EXPECT_FALSE(read_only("", ".global .align 8 .u64 keep[1] = {generic(_ZZ1kPfE1t)};\n"));
  EXPECT_FALSE(read_only("\t@%p1 red.global.add.f32 [%rd11], %f5;\n"));
  EXPECT_TRUE(collectors::ptx_read_only_symbols(head + tail, {"_ZZ1kPfE1other"}).size() == 1);  // never used: read-only
}

TEST(CodeFindings, PtxAtomicsOnConstInputs) {
  const std::string ptx = ".visible .entry _Z1kPKfPf(\n\t.param .u64 _Z1kPKfPf_param_0,\n\t.param .u64 _Z1kPKfPf_param_1\n)\n{\n"
                          "\t.reg .b64 %rd<9>;\n\t.reg .f32 %f<3>;\n\tld.param.u64 %rd1, [_Z1kPKfPf_param_0];\n"
                          "\tld.param.u64 %rd2, [_Z1kPKfPf_param_1];\n\tcvta.to.global.u64 %rd3, %rd1;\n"
                          "\tcvta.to.global.u64 %rd4, %rd2;\n\tld.global.nc.f32 %f1, [%rd3];\n"
                          "\tatom.global.add.f32 %f2, [%rd4], %f1;\n\tadd.s64 %rd5, %rd3, 16;\n"
                          "\tred.global.add.f32 [%rd5], %f1;\n\tret;\n}\n";
  auto f = collectors::ptx_atomics_on_const_inputs(ptx);
  ASSERT_EQ(f.size(), 1u);  // the reduction through the input, not the atomic on the output
  EXPECT_EQ(f[0].function, "_Z1kPKfPf");
  EXPECT_EQ(f[0].rule, "atomic_on_input");
  EXPECT_NE(f[0].evidence.find("red.global.add.f32"), std::string::npos) << f[0].evidence;
}

// Probe 3: an atomic through a pointer the kernel kept in shared memory, and a bulk reduction into the input; a
// pointer to the output kept the same way, or the input's kept while only the output is updated, is no atomic on it.
TEST(CodeFindings, PtxAtomicsOnConstInputsThroughMemory) {
  const std::string head = ".visible .entry _Z1kPKfPf(\n\t.param .u64 _Z1kPKfPf_param_0,\n\t.param .u64 _Z1kPKfPf_param_1\n)\n{\n"
                           "\t.reg .b64 %rd<12>;\n\t.reg .b32 %r<4>;\n\t.shared .align 8 .u64 _ZZ1kPKfPfE1p;\n"
                           "\tld.param.u64 %rd1, [_Z1kPKfPf_param_0];\n\tld.param.u64 %rd2, [_Z1kPKfPf_param_1];\n"
                           "\tmov.u64 %rd3, _ZZ1kPKfPfE1p;\n";
  const std::string tail = "\tret;\n}\n";
  auto count = [&](const std::string& body) { return collectors::ptx_atomics_on_const_inputs(head + body + tail).size(); };
  EXPECT_EQ(count("\tst.shared.u64 [%rd3], %rd1;\n\tbar.sync 0;\n\tld.shared.u64 %rd8, [%rd3];\n"
                  "\tatom.add.u32 %r1, [%rd8], 1;\n"), 1u);
  EXPECT_EQ(count("\tst.shared.u64 [%rd3], %rd2;\n\tbar.sync 0;\n\tld.shared.u64 %rd8, [%rd3];\n"
                  "\tatom.add.u32 %r1, [%rd8], 1;\n"), 0u);
  EXPECT_EQ(count("\tst.shared.u64 [%rd3], %rd1;\n\tcvta.to.global.u64 %rd9, %rd2;\n\tatom.global.add.u32 %r1, [%rd9], 1;\n"), 0u);
  EXPECT_EQ(count("\tst.param.b64 [param0], %rd1;\n\tld.param.u64 %rd9, [_Z1kPKfPf_param_1];\n"
                  "\tatom.global.add.u32 %r1, [%rd9], 1;\n"), 0u);  // a call's argument is not memory kept
  EXPECT_EQ(count("\tcvta.to.global.u64 %rd4, %rd1;\n"
                  "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd4], [%r2], 16;\n"), 1u);
  // a state space with a qualifier (`shared::cta`) is no label
  EXPECT_EQ(count("\tst.shared::cta.u64 [%rd3], %rd1;\n\tld.shared::cta.u64 %rd8, [%rd3];\n\tred.add.u32 [%rd8], 1;\n"), 1u);
}

// Traps and exits are instructions wherever they stand: behind a comment, in braces, under a guard; a `ret` that an
// asm statement wrote ends the thread as `exit` does, while the function's own `ret` is not counted.
TEST(CodeFindings, PtxTrapsAndExitsBehindCommentsAndInAsm) {
  const std::string ptx = ".visible .entry _Z1kPf(\n\t.param .u64 _Z1kPf_param_0\n)\n{\n\t.reg .pred %p<2>;\n"
                          "\t// begin inline asm\n\t/**/ exit;\n\t// end inline asm\n"
                          "\t// begin inline asm\n\t{ @%p1 trap; }\n\t// end inline asm\n"
                          "\t/* spans\n\t lines */ brkpt;\n"
                          "\t// begin inline asm\n\tret;\n\t// end inline asm\n"
                          "\t// exit; in a comment\n\tret;\n}\n";
  std::vector<std::string> rules;
  for (const auto& f : collectors::ptx_findings(ptx)) rules.push_back(f.rule);
  EXPECT_EQ(rules, (std::vector<std::string>{"exit", "trap", "trap", "exit"}));
}

TEST(CodeFindings, AmdIsaClockReads) {
  const std::string isa = "0000000000001c00 <_Z4spinPi>:\n\ts_memtime s[8:9]\n\ts_memrealtime s[6:7]\n"
                          "\ts_getreg_b32 s0, hwreg(HW_REG_SHADER_CYCLES, 0, 20)\n\ts_waitcnt lgkmcnt(0)\n\ts_trap 2\n";
  auto f = collectors::amdgcn_findings(isa);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].function, "_Z4spinPi");
  EXPECT_EQ(f[2].rule, "clock");
  EXPECT_EQ(f[3].rule, "trap");
}

}  // namespace
}  // namespace rpl::optimize
