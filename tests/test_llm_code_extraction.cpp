// Taking a candidate kernel out of a model's reply: fences of every kind, several blocks, prose, whole file or
// kernel only (spliced), truncated replies, replies for the wrong kernel, and the lexer under them.
#include <gtest/gtest.h>

#include "optimize/llm/code_extraction.hpp"
#include "optimize/llm/cuda_lexer.hpp"

using namespace rpl::optimize::llm;

namespace {

const std::string kOriginal = R"(#include <cstdio>
#include <cuda_runtime.h>

// y = a * x; a brace in a comment: {
__global__ void scale(const float* __restrict__ x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const char* s = "}";  // a brace in a string
  if (i < n) { y[i] = a * x[i]; }
}

int main() {
  float *x = nullptr, *y = nullptr;
  scale<<<1, 256>>>(x, y, 2.0f, 256);
  std::printf("done\n");
  return 0;
}
)";

const std::string kNewKernel = R"(__global__ void scale(const float* __restrict__ x, float* y, float a, int n) {
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i + 3 < n) {
    float4 v = reinterpret_cast<const float4*>(x)[i / 4];
    reinterpret_cast<float4*>(y)[i / 4] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
  } else {
    for (; i < n; ++i) y[i] = a * x[i];
  }
})";

}  // namespace

TEST(LlmLexer, FindsKernelExtentIgnoringBracesInCommentsAndStrings) {
  KernelExtent e;
  ASSERT_EQ(find_kernel(kOriginal, "scale", e), KernelSearch::Found);
  std::string def = kOriginal.substr(e.begin, e.end - e.begin);
  EXPECT_EQ(def.rfind("__global__ void scale(", 0), 0u) << def;
  EXPECT_EQ(def.back(), '}');
  EXPECT_NE(def.find("y[i] = a * x[i]; }"), std::string::npos);
  EXPECT_EQ(def.find("int main"), std::string::npos);
  EXPECT_EQ(e.signature, "__global__ void scale ( const float * __restrict__ x , float * y , float a , int n )");
  EXPECT_EQ(find_kernel(kOriginal, "main", e), KernelSearch::NotFound);  // not __global__
  EXPECT_EQ(find_kernel(kOriginal, "absent", e), KernelSearch::NotFound);
}

TEST(LlmLexer, TemplateAndLaunchBoundsBelongToTheDeclaration) {
  std::string src = "#define N 4\ntemplate <int B>\n__global__ void __launch_bounds__(256, 2) k(float* p) { p[0] = B; }\n"
                    "void host() { k<4><<<1, 1>>>(nullptr); }\n";
  KernelExtent e;
  ASSERT_EQ(find_kernel(src, "k", e), KernelSearch::Found);
  EXPECT_EQ(src.substr(e.begin, 8), "template");
  EXPECT_EQ(src.substr(e.end - 1, 1), "}");
  EXPECT_EQ(defined_functions(src), (std::vector<std::string>{"k", "host"}));
  EXPECT_EQ(kernel_names(src), (std::vector<std::string>{"k"}));
}

TEST(LlmLexer, UnterminatedBodyIsUnbalanced) {
  KernelExtent e;
  EXPECT_EQ(find_kernel("__global__ void k(float* p) {\n  if (p) {\n    p[0] = 1;\n", "k", e), KernelSearch::Unbalanced);
}

TEST(LlmFences, EveryFenceKindAndLanguageTag) {
  auto blocks = fenced_blocks("a\n```cuda\nA\n```\nb\n```cpp\nB\n```\n~~~\nC\n~~~\n  ```c++ title=k.cu\nD\n  ```\n````\nE\n```\nstill E\n````\n");
  ASSERT_EQ(blocks.size(), 5u);
  EXPECT_EQ(blocks[0].language, "cuda");
  EXPECT_EQ(blocks[0].code, "A\n");
  EXPECT_EQ(blocks[1].language, "cpp");
  EXPECT_EQ(blocks[2].language, "");
  EXPECT_EQ(blocks[2].code, "C\n");
  EXPECT_EQ(blocks[3].language, "c++");
  EXPECT_EQ(blocks[4].code, "E\n```\nstill E\n");  // a shorter fence does not close a longer one
  for (const auto& b : blocks) EXPECT_TRUE(b.terminated);
  auto open = fenced_blocks("x\n```cuda\nint a;\n");
  ASSERT_EQ(open.size(), 1u);
  EXPECT_FALSE(open[0].terminated);
}

TEST(LlmExtraction, KernelOnlyBlockIsSplicedIntoTheOriginal) {
  std::string reply = "Vectorised with float4 loads.\n\n```cuda\n" + kNewKernel + "\n```\nThis halves the instructions.";
  auto ex = extract_candidate(reply, "stop", kOriginal, "scale");
  ASSERT_TRUE(ex.ok) << ex.reason;
  EXPECT_EQ(ex.mode, "kernel_spliced");
  EXPECT_FALSE(ex.signature_changed);
  EXPECT_NE(ex.source_text.find("float4 v"), std::string::npos);
  EXPECT_NE(ex.source_text.find("int main() {"), std::string::npos);       // the rest is kept ...
  EXPECT_EQ(ex.source_text.find("const char* s"), std::string::npos);      // ... the old kernel is gone
  EXPECT_EQ(ex.source_text.substr(0, 40), kOriginal.substr(0, 40));
  EXPECT_NE(ex.source_text.find("// y = a * x; a brace in a comment: {\n__global__"), std::string::npos);
}

TEST(LlmExtraction, WholeFileIsTakenAsIs) {
  std::string whole = kOriginal;
  whole.replace(whole.find("if (i < n) { y[i] = a * x[i]; }"), 31, "if (i < n) y[i] = x[i] * a;");
  auto ex = extract_candidate("Here is the full file:\n```cpp\n" + whole + "```\n", "stop", kOriginal, "scale");
  ASSERT_TRUE(ex.ok) << ex.reason;
  EXPECT_EQ(ex.mode, "whole_file");
  EXPECT_EQ(ex.source_text, whole);
}

TEST(LlmExtraction, WholeFileWithoutOneIncludeIsStillTheWholeFile) {
  std::string whole = kOriginal;
  whole.erase(0, whole.find('\n') + 1);  // drops #include <cstdio>
  whole.replace(whole.find("if (i < n) { y[i] = a * x[i]; }"), 31, "if (i < n) y[i] = x[i] * a;");
  auto ex = extract_candidate("```cuda\n" + whole + "```\n", "stop", kOriginal, "scale");
  ASSERT_TRUE(ex.ok) << ex.reason;
  EXPECT_EQ(ex.mode, "whole_file");  // not spliced: that would define main twice
  EXPECT_EQ(ex.source_text, whole);
}

TEST(LlmExtraction, SeveralBlocksTheLastDefinitionOfTheKernelWins) {
  std::string reply = "The original:\n```cuda\n" + kOriginal + "```\nA launch:\n```bash\nnvcc -O3 k.cu\n```\nThe new one:\n```\n" +
                      kNewKernel + "\n```\n";
  auto ex = extract_candidate(reply, "stop", kOriginal, "scale");
  ASSERT_TRUE(ex.ok) << ex.reason;
  EXPECT_EQ(ex.block_index, 2);
  EXPECT_NE(ex.source_text.find("float4 v"), std::string::npos);
}

TEST(LlmExtraction, BareCodeWithProseTakesOnlyTheKernel) {
  std::string reply = "Sure! Replace the kernel with\n\n" + kNewKernel + "\n\nand it will be faster.";
  auto ex = extract_candidate(reply, "stop", kOriginal, "scale");
  ASSERT_TRUE(ex.ok) << ex.reason;
  EXPECT_EQ(ex.block_index, -1);
  EXPECT_EQ(ex.source_text.find("Sure!"), std::string::npos);
  EXPECT_NE(ex.source_text.find("float4 v"), std::string::npos);
}

TEST(LlmExtraction, SignatureChangeIsProducedIntactAndLabelled) {
  std::string changed = kNewKernel;
  changed.replace(changed.find("const float* __restrict__ x"), 27, "float* x");
  auto ex = extract_candidate("```cuda\n" + changed + "\n```", "stop", kOriginal, "scale");
  ASSERT_TRUE(ex.ok) << ex.reason;  // the guard, not the proposer, rejects it
  EXPECT_TRUE(ex.signature_changed);
  EXPECT_NE(ex.candidate_signature.find("float * x"), std::string::npos);
  EXPECT_NE(ex.original_signature.find("const float * __restrict__ x"), std::string::npos);
  EXPECT_NE(ex.source_text.find("__global__ void scale(float* x"), std::string::npos);
}

TEST(LlmExtraction, FailuresSayWhy) {
  auto empty = extract_candidate("  \n", "stop", kOriginal, "scale");
  EXPECT_FALSE(empty.ok);
  EXPECT_NE(empty.reason.find("empty"), std::string::npos);

  auto prose = extract_candidate("I cannot make this faster; it is already optimal.", "stop", kOriginal, "scale");
  EXPECT_FALSE(prose.ok);
  EXPECT_NE(prose.reason.find("no code block"), std::string::npos) << prose.reason;

  auto cut = extract_candidate("```cuda\n" + kNewKernel.substr(0, 120), "length", kOriginal, "scale");
  EXPECT_FALSE(cut.ok);
  EXPECT_NE(cut.reason.find("cut off"), std::string::npos) << cut.reason;

  // Closed fence but the kernel body never closes (the model itself lost track): also cut off.
  auto unbalanced = extract_candidate("```cuda\n" + kNewKernel.substr(0, 120) + "\n```", "stop", kOriginal, "scale");
  EXPECT_FALSE(unbalanced.ok);
  EXPECT_NE(unbalanced.reason.find("cut off"), std::string::npos) << unbalanced.reason;

  auto other = extract_candidate("```cuda\n__global__ void scale_v2(float* y) { y[0] = 0; }\n```", "stop", kOriginal, "scale");
  EXPECT_FALSE(other.ok);
  EXPECT_NE(other.reason.find("scale_v2"), std::string::npos) << other.reason;

  auto same = extract_candidate("```cuda\n" + kOriginal + "```", "stop", kOriginal, "scale");
  EXPECT_FALSE(same.ok);
  EXPECT_NE(same.reason.find("unchanged"), std::string::npos) << same.reason;

  auto shell = extract_candidate("```bash\n__global__ void scale(float* y) { }\n```", "stop", kOriginal, "scale");
  EXPECT_FALSE(shell.ok);
}
