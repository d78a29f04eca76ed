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
  EXPECT_NE(facts.find("- time: 2 launches, 5000 ns in all (median 2500 ns per launch), 80.0% of GPU time"),
            std::string::npos) << facts;
  EXPECT_NE(facts.find("the application runs 2 kernel(s) in all"), std::string::npos) << facts;
  EXPECT_EQ(facts.find("9 launches"), std::string::npos) << facts;  // "rescale" is another kernel
  nlohmann::json ranking = {{"ranking", {{"kernels", {{{"name", "void scale<4>(float*)"}, {"occupancy", 0.5},
                                                      {"occupancy_limiter", "shared memory"}}}}}}};
  EXPECT_NE(render_measured_facts(ranking, "scale").find("50.0%, limited by shared memory"), std::string::npos);
  EXPECT_NE(render_measured_facts(app, "absent").find("none named absent"), std::string::npos);
  EXPECT_NE(render_measured_facts(nlohmann::json(), "scale").find("No measurements"), std::string::npos);
}
