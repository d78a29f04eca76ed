// rocm-perf optimize: inline assembly in a candidate kernel. Hand-written optimizations use it (non-caching loads,
// cp.async pipelines, tensor-core mma, AMD buffer loads) and are admitted; what the outputs cannot judge (timers,
// performance counters, traps, exits, calls, atomics outside shared memory, a template the gate cannot read) is not.
#include <gtest/gtest.h>

#include "optimize/inline_asm.hpp"
#include "optimize/source_model.hpp"
#include "optimize/static_gates.hpp"

namespace rpl::optimize {
namespace {

const std::string kSource = R"(#include <cuda_runtime.h>
#define BLOCK 256
__global__ void __launch_bounds__(BLOCK) scale(const float* __restrict__ x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0.0f;
  if (i < n) v = x[i];
  if (i < n) y[i] = a * v;
}
int main() {
  float *x, *y;
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaMalloc(&y, 1024 * sizeof(float));
  scale<<<4, BLOCK>>>(x, y, 2.0f, 1024);
  return cudaDeviceSynchronize();
}
)";

std::string with_body(const std::string& from, const std::string& to, const std::string& source = kSource) {
  std::string s = source;
  auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

StaticVerdict check(const std::string& candidate, const std::string& original = kSource) {
  return check_static_gates(parse_source("/tmp/rpl-test-asm.cu", original), parse_source("/tmp/rpl-test-asm.cu", candidate),
                            "scale");
}

std::vector<AsmStatement> statements(const std::string& text) { return asm_statements(text, 0, text.size()); }

}  // namespace

TEST(OptimizeInlineAsm, StatementsAndMnemonicsAreRead) {
  auto s = statements(
      "// asm(\"trap;\") in a comment\n const char* m = \"asm(\\\"exit;\\\")\"; int asm_helper = 1;\n"
      "asm volatile(\"{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %0, 0;\\n\\t@p cp.async.ca.shared.global [%1], [%2], 16;\\n\\t}\\n\""
      " :: \"r\"(1), \"r\"(0u), \"l\"(x));\n"
      "__asm__ __volatile__(\"ld.global.nc.v4.f32 {%0,%1,%2,%3}, \" \"[%4];\" : \"=f\"(a), \"=f\"(b), \"=f\"(c), \"=f\"(d) : \"l\"(p));\n"
      "asm(\"L1: s_waitcnt vmcnt(0)\\n  buffer_load_dword %0, %1, 0 offen\" : \"=v\"(r) : \"v\"(o));\n"
      "asm volatile(ASM_TEXT);\n");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].instructions, (std::vector<std::string>{"setp.ne.b32", "cp.async.ca.shared.global"}));
  EXPECT_EQ(s[1].templ, "ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];");  // adjacent literals joined
  EXPECT_EQ(s[1].instructions, (std::vector<std::string>{"ld.global.nc.v4.f32"}));
  EXPECT_EQ(s[2].instructions, (std::vector<std::string>{"s_waitcnt", "buffer_load_dword"}));
  EXPECT_FALSE(s[3].readable);
  // a raw string literal is a template like any other; comments in a template hide no instruction
  auto raw = statements("asm volatile(R\"x(/* hidden */ exit; // c\n ld.global.nc.f32 %0, [%1];)x\" : \"=f\"(v) : \"l\"(p));");
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_TRUE(raw[0].readable);
  EXPECT_EQ(raw[0].instructions, (std::vector<std::string>{"exit", "ld.global.nc.f32"}));
}

TEST(OptimizeInlineAsm, HandWrittenOptimizationsAreAdmitted) {
  const std::vector<std::string> bodies = {
      // a non-caching, read-only load
      "if (i < n) asm volatile(\"ld.global.nc.f32 %0, [%1];\" : \"=f\"(v) : \"l\"(x + i));",
      // a cp.async copy into shared memory with its commit and wait, under a predicate
      "__shared__ float tile[BLOCK];\n  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&tile[threadIdx.x]));\n"
      "  asm volatile(\"{\\n\\t.reg .pred p;\\n\\tsetp.lt.s32 p, %2, %3;\\n\\t@p cp.async.ca.shared.global [%0], [%1], 4;\\n\\t}\\n\""
      " :: \"r\"(dst), \"l\"(x + i), \"r\"(i), \"r\"(n));\n  asm volatile(\"cp.async.commit_group;\\n\" ::);\n"
      "  asm volatile(\"cp.async.wait_group 0;\\n\" ::);\n  __syncthreads();\n  if (i < n) v = tile[threadIdx.x];",
      // an L2 prefetch and a shared-memory atomic (block-local)
      "__shared__ unsigned hits;\n  if (i < n) asm volatile(\"prefetch.global.L2 [%0];\" :: \"l\"(x + i));\n"
      "  asm volatile(\"atom.shared.add.u32 %0, [%1], 1;\" : \"=r\"(*(unsigned*)&v) : \"r\"((unsigned)__cvta_generic_to_shared(&hits)));\n"
      "  if (i < n) v = x[i];",
      // a raw string template (probe 3) and a commented one
      "if (i < n) asm volatile(R\"(ld.global.nc.f32 %0, [%1];)\" : \"=f\"(v) : \"l\"(x + i));",
      "if (i < n) asm volatile(\"// non-caching\\n\\tld.global.nc.f32 %0, [%1]; /* read-only */\" : \"=f\"(v) : \"l\"(x + i));",
  };
  for (const std::string& body : bodies) {
    StaticVerdict v = check(with_body("if (i < n) v = x[i];", body));
    EXPECT_TRUE(v.passed) << body << "\n" << v.reason;
    EXPECT_EQ(v.gate, "structure");
    EXPECT_TRUE(v.evidence.contains("added_inline_asm")) << v.evidence.dump();
  }
}

TEST(OptimizeInlineAsm, WhatTheOutputsCannotJudgeIsRefused) {
  struct Case {
    std::string body, expect;
  };
  const std::vector<Case> cases = {
      {"unsigned t; asm volatile(\"mov.u32 %0, %%clock;\" : \"=r\"(t)); if (t == 7u) return;", "timer"},
      {"unsigned long long t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));", "globaltimer"},
      {"unsigned c; asm volatile(\"mov.u32 %0, %%pm0;\" : \"=r\"(c));", "performance counter"},
      {"if (i >= n / 2) asm volatile(\"exit;\");", "exit"},
      {"if (i == 0) asm volatile(\"trap;\");", "trap"},
      {"asm volatile(\"red.global.add.f32 [%0], %1;\" :: \"l\"(x), \"f\"(1.0f));", "atomic"},
      {"unsigned o; asm volatile(\"atom.add.u32 %0, [%1], 1;\" : \"=r\"(o) : \"l\"(x));", "atomic"},
      {"unsigned long long t; asm volatile(\"s_memtime %0\" : \"=s\"(t));", "s_memtime"},
      {"asm volatile(\"global_atomic_add_f32 %0, %1, off\" :: \"v\"(x), \"v\"(1.0f));", "atomic"},
      {"asm volatile(ASM_TEXT);", "not a string literal"},
      // probe 3: a comment in front of the instruction, `ret` (ends the thread as exit does), a bulk reduction
      {"if (i >= n / 2) asm volatile(\"/**/ exit;\");", "exit"},
      {"if (i == 0) asm volatile(\"/* pad */ trap; // done\");", "trap"},
      {"if (i % 101 != 0) asm volatile(\"ret;\");", "ret"},
      {"asm volatile(\"cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 16;\" :: \"l\"(x), \"r\"(0u));",
       "atomic"},
      {"asm volatile(R\"(/**/ exit;)\");", "exit"},
  };
  for (const Case& c : cases) {
    StaticVerdict v = check(with_body("if (i < n) v = x[i];", "if (i < n) v = x[i];\n  " + c.body));
    EXPECT_FALSE(v.passed) << c.body;
    EXPECT_EQ(v.gate, "structure") << c.body;
    EXPECT_NE(v.reason.find(c.expect), std::string::npos) << c.body << ": " << v.reason;
  }
}

TEST(OptimizeInlineAsm, TheOriginalsOwnStatementsAreTheOriginals) {
  // The original already reads through inline assembly; a candidate that keeps that statement and adds a trap is
  // refused; one that keeps it and changes nothing else in it passes (and lists no added statement).
  const std::string original = with_body("if (i < n) v = x[i];", "if (i < n) asm volatile(\"ld.global.nc.f32 %0, [%1];\" : \"=f\"(v) : \"l\"(x + i));");
  StaticVerdict same = check(with_body("y[i] = a * v;", "y[i] = v * a;", original), original);
  EXPECT_TRUE(same.passed) << same.reason;
  EXPECT_FALSE(same.evidence.contains("added_inline_asm"));
  StaticVerdict trap = check(with_body("if (i < n) y[i]", "if (i == 0) asm volatile(\"trap;\");\n  if (i < n) y[i]", original), original);
  EXPECT_FALSE(trap.passed);
  EXPECT_NE(trap.reason.find("trap"), std::string::npos) << trap.reason;
}

}  // namespace rpl::optimize
