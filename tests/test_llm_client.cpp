// The pieces under the LLM proposer on their own: the chat client's retry schedule (Retry-After, exponential
// backoff) against a local server, the transcript writer, and the measured facts of a whole-application analysis.
#include <gtest/gtest.h>

#include <fstream>

#include "optimize/llm/chat_client.hpp"
#include "optimize/llm/prompt_builder.hpp"
#include "optimize/llm/transcript.hpp"
#include "testing/mock_model_server.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl::optimize::llm;
using rpl::test::MockModelServer;

namespace {

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

}  // namespace

TEST(LlmChatClient, HonoursRetryAfterAndBacksOffExponentially) {
  MockModelServer server;
  server.push({429, "{}", {{"Retry-After", "7"}}, 0});
  server.push({503, "{}", {}, 0});
  server.push({502, "{}", {}, 0});
  server.push({200, rpl::test::chat_reply("hi"), {}, 0});
  ClientSettings s;
  s.url = server.url() + "/chat/completions/";  // a full endpoint is used as given
  s.max_retries = 3;
  s.backoff_initial = std::chrono::milliseconds(100);
  s.backoff_max = std::chrono::milliseconds(60000);
  ChatClient client(s);
  EXPECT_EQ(client.endpoint(), server.url() + "/chat/completions");
  std::vector<long> waits;
  client.set_sleeper([&](std::chrono::milliseconds d) { waits.push_back(d.count()); });
  testing::internal::CaptureStderr();
  auto r = client.complete({"m", {{"user", "hello"}}, 10, 0.0});
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.content, "hi");
  EXPECT_EQ(r.attempts, 4);
  EXPECT_EQ(waits, (std::vector<long>{7000, 200, 400}));
  EXPECT_TRUE(server.received()[0].authorization.empty());  // no key, no header
}

TEST(LlmTranscript, LinesAreWholeJsonInOrderAndScrubbed) {
  rpl::test::TempDir dir;
  {
    TranscriptWriter t(dir.file("t.jsonl"), "k3y");
    EXPECT_EQ(t.append({{"kind", "request"}, {"text", "the k3y is here"}}), 0);
    EXPECT_EQ(t.append({{"kind", "response"}, {"bytes", std::string("\xff\xfe bad utf8")}}), 1);
  }
  auto lines = read_lines(dir.file("t.jsonl"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["text"], "the [REDACTED] is here");
  EXPECT_EQ(lines[1]["seq"], 1);
  EXPECT_THROW(TranscriptWriter(dir.file("missing/dir/t.jsonl"), ""), rpl::Error);
}

TEST(LlmPromptFacts, AWholeApplicationDocumentIsReducedToTheKernelsOwnEntry) {
  nlohmann::json app = {{"kernels",
                         {{{"name", "rescale(float*, int)"}, {"launches", 9}, {"total_ns", 1}},
                          {{"name", "scale(float const*, float*, float, int)"}, {"launches", 2}, {"total_ns", 5000},
                           {"median_ns", 2500}, {"share_of_gpu_time", 0.8}}}}};
  std::string facts = render_measured_facts(app, "scale");
  EXPECT_NE(facts.find("- time: 2 launches, 5 us in all, median 2.5 us per launch, 80.0% of GPU time"),
            std::string::npos) << facts;
  EXPECT_NE(facts.find("the application runs 2 kernel(s) in all"), std::string::npos) << facts;
  EXPECT_EQ(facts.find("9 launches"), std::string::npos) << facts;  // "rescale" is another kernel
  nlohmann::json ranking = {{"ranking", {{"kernels", {{{"name", "void scale<4>(float*)"}, {"occupancy", 0.5},
                                                      {"occupancy_limiter", "shared memory"}}}}}}};
  EXPECT_NE(render_measured_facts(ranking, "scale").find("50.0%, limited by shared memory"), std::string::npos);
  EXPECT_NE(render_measured_facts(app, "absent").find("none named absent"), std::string::npos);
  EXPECT_NE(render_measured_facts(nlohmann::json(), "scale").find("No measurements"), std::string::npos);
}

// What the optimizer hands the model for a kernel (RealEnvironment::profile + the loop): the GPU, geometry,
// resources, occupancy, achieved rates against the peaks and the bound, counters, the speed of light. Each fact
// is said in words; nothing is "unknown" and no key is printed raw.
nlohmann::json kernel_entry(const std::string& name, const std::string& bound, double gflops, double gbps, double ai,
                            double roof) {
  return {{"name", name}, {"count", 2}, {"total_ns", 2.0e6}, {"share_of_gpu_time", 0.62}, {"critical_path_fraction", 0.58},
          {"shapes", {{{"grid", {4096, 1, 1}}, {"block", {128, 1, 1}}, {"blocks", {32, 1, 1}}, {"lds_bytes", 0}}}},
          {"occupancy", 1.0}, {"occupancy_limiter", "warps"}, {"registers", 32}, {"static_shared_bytes", 0},
          {"roofline", {{"status", "ok"}, {"bound", bound}, {"gflops", gflops}, {"hbm_gbps", gbps}, {"arithmetic_intensity", ai},
                        {"fraction_of_roof", roof}, {"above_roof", false}}},
          {"bottleneck", {{"primary", {{"label", bound + "_bound"}, {"rule", bound == "memory" ? "B1" : "B2"},
                                       {"evidence", {{{"metric", "fraction_of_roof"}, {"value", roof}, {"comparison", ">="},
                                                      {"threshold", 0.5}, {"passed", true}}}}}},
                          {"secondary", nullptr}}},
          {"deep_analysis", nullptr}, {"cv", 0.01}, {"stability", "stable"}, {"flops_per_launch", 8.4e6},
          {"peak_gflops", 66900}, {"speed_of_light_compute_ns", 125.0}};
}

TEST(LlmPromptFacts, AMemoryBoundAndAComputeBoundKernelAreDescribedWithTheirEvidence) {
  nlohmann::json gpu = {{"name", "NVIDIA H200"}, {"arch", "sm_90"}, {"vendor", "nvidia"}, {"sm_count", 132},
                        {"peak_bandwidth_gbps", 4800}, {"peak_fp32_gflops", 66900}, {"peak_gflops", {{"FP32", 66900}, {"FP64", 33500}}}};
  nlohmann::json doc = {{"kernels", {kernel_entry("gemv(float const*, float const*, float*, int, int)", "memory", 8.2, 3100, 0.0026, 0.65),
                                     kernel_entry("nbody(float4*, int)", "compute", 41000, 12, 3400, 0.61)}},
                        {"gpu", gpu}};
  std::string mem = render_measured_facts(doc, "gemv");
  for (const char* fact : {"- GPU: NVIDIA H200 (sm_90), 132 SMs, peak device-memory bandwidth 4800 GB/s",
                           "62.0% of GPU time, 58.0% of the critical path", "grid of 32x1x1 blocks, 128x1x1 threads per block",
                           "32 registers per thread", "theoretical occupancy: 100.0%, limited by warps",
                           "3.1e+03 GB/s from device memory (64.6% of peak bandwidth)", "the roofline places it memory-bound",
                           "primary bottleneck: memory_bound (rule B1)", "fraction_of_roof = 0.65 (threshold >= 0.5; met)",
                           "speed of light: no launch can take less than 125 ns"})
    EXPECT_NE(mem.find(fact), std::string::npos) << fact << "\n" << mem;
  std::string cmp = render_measured_facts(doc, "nbody");
  for (const char* fact : {"4.1e+04 GFLOP/s (61.3% of the FP32 peak)", "arithmetic intensity 3.4e+03 FLOP/byte",
                           "the roofline places it compute-bound", "primary bottleneck: compute_bound (rule B2)"})
    EXPECT_NE(cmp.find(fact), std::string::npos) << fact << "\n" << cmp;
  for (const std::string& text : {mem, cmp}) {
    EXPECT_EQ(text.find("unknown"), std::string::npos) << text;
    for (const char* raw : {"speed_of_light_compute_ns", "share_of_gpu_time", "occupancy_limiter", "hbm_gbps", "flops_per_launch", "null"})
      EXPECT_EQ(text.find(raw), std::string::npos) << raw << " printed raw:\n" << text;
  }
}
