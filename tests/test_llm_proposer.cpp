// The LLM proposer end to end against a local OpenAI-compatible server the test starts (127.0.0.1, ephemeral
// port) with scripted replies: a genuine improvement, a syntax error and its repair, a signature change, garbage
// and empty replies, a reply cut off mid-code, 429 then success, a 500 storm, a timeout, a 10 MB reply, 401/404
// and an unreachable host, the token budget, the verdict history, prompt overrides, and the API key kept out of
// every output.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "optimize/llm/chat_client.hpp"
#include "optimize/llm/llm_proposer.hpp"
#include "testing/cli.hpp"
#include "testing/mock_model_server.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl::optimize;
using namespace rpl::optimize::llm;
using rpl::test::MockModelServer;
using rpl::test::ScriptedReply;

namespace {

const char* kSecret = "sk-test-SECRET-4f9c2a77e1";

const std::string kSource = R"(#include <cuda_runtime.h>

__global__ void scale(const float* __restrict__ x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

int main() { return 0; }
)";

const std::string kImproved = R"(__global__ void scale(const float* __restrict__ x, float* y, float a, int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = a * __ldg(&x[i]);
})";

const std::string kBroken = R"(__global__ void scale(const float* __restrict__ x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x
  if (i < n) y[i] = a * x[i];
})";

std::string fenced(const std::string& code, const std::string& prose = "Grid-stride loop with read-only loads.") {
  return prose + "\n\n```cuda\n" + code + "\n```\n";
}

// The stand-in compiler: a statement line without its semicolon is an error, as nvcc would say.
std::string fake_compile(const std::string& source) {
  if (source.find("threadIdx.x\n") != std::string::npos)
    return "kernel.cu(4): error: expected a \";\"\n1 error detected in the compilation of \"kernel.cu\".";
  return "";
}

ProposalRequest request(int round = 0) {
  ProposalRequest r;
  r.source_path = "kernel.cu";
  r.source_text = kSource;
  r.kernel_name = "scale";
  r.language = "cuda";
  r.round = round;
  r.analysis = {
      {"total_ns", 123456},
      {"count", 10},
      {"bottleneck",
       {{"primary",
         {{"label", "memory-bandwidth bound"},
          {"rule", "M1"},
          {"fallback", false},
          {"evidence", {{{"metric", "hbm_fraction_of_peak"}, {"value", 0.41}, {"comparison", ">="}, {"threshold", 0.6},
                         {"required", true}, {"passed", false}}}}}},
        {"secondary", nullptr},
        {"notes", nlohmann::json::array()}}},
      {"roofline", {{"bound", "memory"}, {"gflops", 12.5}, {"hbm_gbps", 1370.0}, {"arithmetic_intensity", 0.083},
                    {"fraction_of_roof", 0.41}, {"status", "ok"}}},
      {"occupancy", 0.75},
      {"occupancy_limiter", "registers"},
      {"deep_analysis", {{"source", "ncu"}, {"stall_breakdown", {{{"name", "long_scoreboard"}, {"fraction", 0.62}}}}}},
      {"resources", {{"registers", 32}, {"shared_bytes", 0}}},
      {"launch", {{"grid", {4096, 1, 1}}, {"block", {256, 1, 1}}}},
      {"sm_clock_mhz", 1755}};
  r.constraints = {"The kernel's signature (parameters, types, qualifiers, template arguments, launch bounds) must not change.",
                   "No printf, no clock or timer reads."};
  return r;
}

LlmOptions options(const MockModelServer& server) {
  LlmOptions o;
  o.url = server.url();
  o.model = "test-model";
  o.candidates = 1;
  o.timeout_s = 5;
  o.max_retries = 2;
  o.backoff_initial_s = 0.01;
  o.backoff_max_s = 0.05;
  return o;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// Every line of the transcript against schemas/llm-transcript-line.schema.json, the summary against
// schemas/llm-summary.schema.json.
void expect_valid_transcript(const std::string& path, const nlohmann::json& summary) {
  rpl::test::TempDir scratch;
  int k = 0;
  for (const auto& line : read_lines(path)) {
    std::string file = scratch.file("line" + std::to_string(k++) + ".json");
    std::ofstream(file) << line.dump();
    EXPECT_EQ(rpl::test::validate_against_schema("llm-transcript-line", file), "") << line.dump().substr(0, 400);
  }
  std::string file = scratch.file("summary.json");
  std::ofstream(file) << summary.dump();
  EXPECT_EQ(rpl::test::validate_against_schema("llm-summary", file), "") << summary.dump();
}

class LlmProposerTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv(kApiKeyEnv, kSecret, 1); }
  void TearDown() override { unsetenv(kApiKeyEnv); }
  rpl::test::TempDir dir;
  MockModelServer server;
  std::string transcript_path() const { return dir.file("llm-transcript.jsonl"); }
};

}  // namespace

TEST_F(LlmProposerTest, GenuineImprovementBecomesACandidateLinkedToItsTranscriptLines) {
  server.push_content(fenced(kImproved));
  TranscriptWriter transcript(transcript_path());
  auto proposer = make_llm_proposer(options(server), transcript);
  EXPECT_TRUE(server.received().empty());  // nothing is sent before propose()
  EXPECT_EQ(proposer->name(), "llm");

  auto candidates = proposer->propose(request());
  ASSERT_EQ(candidates.size(), 1u);
  const Candidate& c = candidates[0];
  EXPECT_EQ(c.id, "llm-r0-c1");
  EXPECT_EQ(c.proposer, "llm");
  EXPECT_EQ(c.round, 0);
  EXPECT_EQ(c.description, "Grid-stride loop with read-only loads");
  EXPECT_NE(c.source_text.find("__ldg(&x[i])"), std::string::npos);
  EXPECT_NE(c.source_text.find("int main() { return 0; }"), std::string::npos);
  EXPECT_EQ(c.details["extraction"]["mode"], "kernel_spliced");
  EXPECT_EQ(c.details["signature_changed"], false);
  EXPECT_EQ(c.details["model"], "test-model");

  // The prompt carries what was measured and the guard's rules, not only the source.
  auto got = server.received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].authorization, std::string("Bearer ") + kSecret);
  auto body = got[0].json();
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["messages"][0]["role"], "system");
  std::string prompt = got[0].last_message();
  for (const char* fact : {"memory-bandwidth bound", "hbm_fraction_of_peak = 0.41 (threshold >= 0.6; not met)",
                           "41.0% of the roof", "long_scoreboard 62.0%", "75.0%, limited by registers", "32 registers per thread",
                           "grid 4096x1x1, block 256x1x1", "must not change", "No printf", "None yet",
                           "if (i < n) y[i] = a * x[i];"})
    EXPECT_NE(prompt.find(fact), std::string::npos) << "missing: " << fact << "\n" << prompt;
  for (const char* raw : {"sm_clock_mhz", "unknown", "occupancy_limiter"})  // no raw key, nothing unknown
    EXPECT_EQ(prompt.find(raw), std::string::npos) << "printed: " << raw << "\n" << prompt;

  // Transcript: request then response, in order; the candidate points at them.
  auto lines = read_lines(transcript_path());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["kind"], "header");
  EXPECT_EQ(lines[0]["model"], "test-model");
  EXPECT_EQ(lines[1]["kind"], "request");
  EXPECT_EQ(lines[1]["seq"], 1);
  EXPECT_EQ(lines[1]["body"]["messages"][1]["content"], prompt);
  EXPECT_EQ(lines[2]["kind"], "response");
  EXPECT_EQ(lines[2]["request_seq"], 1);
  EXPECT_EQ(lines[2]["outcome"], "candidate");
  EXPECT_EQ(c.details["request_seq"], 1);
  EXPECT_EQ(c.details["response_seq"], 2);
  expect_valid_transcript(transcript_path(), transcript.summary());
  EXPECT_EQ(c.details["transcript"], transcript_path());

  // Usage is reported against the budget.
  const auto& s = transcript.summary();
  EXPECT_EQ(s["usage"]["total_tokens"], 150);
  EXPECT_EQ(s["usage"]["estimated"], false);
  EXPECT_EQ(s["requests"], 1);
  EXPECT_EQ(s["candidates"][0]["id"], "llm-r0-c1");
}

TEST_F(LlmProposerTest, SyntaxErrorGoesBackWithTheCompilersMessagesAndIsRepaired) {
  server.push_content(fenced(kBroken));
  server.push_content(fenced(kImproved, "Added the missing semicolon."));
  TranscriptWriter transcript(transcript_path());
  auto proposer = make_llm_proposer(options(server), transcript);
  auto candidates = proposer->propose(request());
  ASSERT_EQ(candidates.size(), 1u);
  std::string errors = fake_compile(candidates[0].source_text);
  ASSERT_FALSE(errors.empty());
  proposer->observe({candidates[0].id, "compile", false, "does not compile", errors});

  auto repaired = proposer->repair(request(), candidates[0], errors);
  ASSERT_TRUE(repaired.has_value());
  EXPECT_EQ(repaired->id, "llm-r0-c1-fix1");
  EXPECT_EQ(repaired->details["repair_of"], "llm-r0-c1");
  EXPECT_EQ(repaired->details["repair_attempt"], 1);
  EXPECT_EQ(fake_compile(repaired->source_text), "");

  // The repair request continues the conversation: the model sees its own reply and the compiler's words.
  auto got = server.received();
  ASSERT_EQ(got.size(), 2u);
  auto messages = got[1].json()["messages"];
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[2]["role"], "assistant");
  EXPECT_NE(messages[2]["content"].get<std::string>().find("threadIdx.x\n"), std::string::npos);
  EXPECT_NE(messages[3]["content"].get<std::string>().find("error: expected a \";\""), std::string::npos);
  EXPECT_NE(messages[3]["content"].get<std::string>().find("attempt 1 of 3"), std::string::npos);
}

TEST_F(LlmProposerTest, RepairStopsAfterTheConfiguredRounds) {
  server.push_content(fenced(kBroken));
  server.push_content("I am not sure what is wrong.");  // no code: uses up the attempt
  server.push_content(fenced(kBroken, "Fixed."));      // still broken
  TranscriptWriter transcript(transcript_path());
  auto o = options(server);
  o.repair_rounds = 2;
  auto proposer = make_llm_proposer(o, transcript);
  auto c = proposer->propose(request());
  ASSERT_EQ(c.size(), 1u);
  auto r = proposer->repair(request(), c[0], fake_compile(c[0].source_text));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->id, "llm-r0-c1-fix2");  // fix1 had no code
  EXPECT_NE(server.received()[2].last_message().find("no usable code"), std::string::npos);
  EXPECT_FALSE(fake_compile(r->source_text).empty());
  EXPECT_FALSE(proposer->repair(request(), *r, fake_compile(r->source_text)).has_value());
  EXPECT_EQ(server.received().size(), 3u);  // the exhausted repair sent nothing
}

TEST_F(LlmProposerTest, SignatureChangeIsReturnedIntactAndLabelledForTheGuard) {
  std::string changed = kImproved;
  changed.replace(changed.find("const float* __restrict__ x"), 27, "const float* x, const int* cache");
  server.push_content(fenced(changed));
  TranscriptWriter transcript(transcript_path());
  auto proposer = make_llm_proposer(options(server), transcript);
  auto c = proposer->propose(request());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].details["signature_changed"].get<bool>());
  EXPECT_NE(c[0].source_text.find("const float* x, const int* cache"), std::string::npos);
  EXPECT_NE(c[0].details["extraction"]["signature"]["candidate"].get<std::string>().find("cache"), std::string::npos);
}

TEST_F(LlmProposerTest, GarbageEmptyAndCutOffRepliesAreFailedCandidatesWithReasons) {
  server.push({200, "<html>gateway says hello</html>", {}, 0});
  server.push_content("");
  server.push_content("```cuda\n" + kImproved.substr(0, 90), "length");
  server.push_content("The kernel is already optimal.");
  TranscriptWriter transcript(transcript_path());
  auto o = options(server);
  o.candidates = 4;
  auto proposer = make_llm_proposer(o, transcript);
  auto req = request();
  req.max_candidates = 4;
  EXPECT_TRUE(proposer->propose(req).empty());
  const auto& failed = transcript.summary()["failed_responses"];
  ASSERT_EQ(failed.size(), 4u);
  EXPECT_NE(failed[0]["reason"].get<std::string>().find("not JSON"), std::string::npos) << failed[0];
  EXPECT_NE(failed[1]["reason"].get<std::string>().find("empty"), std::string::npos) << failed[1];
  EXPECT_NE(failed[2]["reason"].get<std::string>().find("cut off"), std::string::npos) << failed[2];
  EXPECT_NE(failed[3]["reason"].get<std::string>().find("no code block"), std::string::npos) << failed[3];
  auto lines = read_lines(transcript_path());
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[6]["outcome"], "no_usable_code");
  EXPECT_EQ(lines[6]["finish_reason"], "length");
  expect_valid_transcript(transcript_path(), transcript.summary());
  // The next round tells the model what went wrong.
  server.push_content(fenced(kImproved));
  req.round = 1;
  req.max_candidates = 1;
  ASSERT_EQ(proposer->propose(req).size(), 1u);
  std::string prompt = server.received().back().last_message();
  EXPECT_NE(prompt.find("llm-r0-c3 (round 0): no usable code: the reply was cut off"), std::string::npos) << prompt;
}

TEST_F(LlmProposerTest, SeveralCandidatesPerRoundEachItsOwnRequest) {
  for (int i = 0; i < 3; ++i) server.push_content(fenced(kImproved, "Variant " + std::to_string(i) + "."));
  TranscriptWriter transcript(transcript_path());
  auto o = options(server);
  o.candidates = 3;
  auto proposer = make_llm_proposer(o, transcript);
  auto c = proposer->propose(request());
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[2].id, "llm-r0-c3");
  EXPECT_EQ(c[2].details["request_seq"], 5);
  EXPECT_EQ(c[2].details["candidate_index"], 3);
  auto got = server.received();
  EXPECT_EQ(got[0].last_message().find("different approach"), std::string::npos);
  EXPECT_NE(got[1].last_message().find("candidate 2 of 3"), std::string::npos);
  EXPECT_NE(got[1].last_message().find("different approach"), std::string::npos);
}

TEST_F(LlmProposerTest, LaterRoundsCarryEveryVerdictWithItsEvidence) {
  server.push_content(fenced(kImproved));
  server.push_content(fenced(kImproved, "Second try."));
  TranscriptWriter transcript(transcript_path());
  auto proposer = make_llm_proposer(options(server), transcript);
  auto c = proposer->propose(request(0));
  ASSERT_EQ(c.size(), 1u);
  proposer->observe({c[0].id, "signature", true, "unchanged", nullptr});
  proposer->observe({c[0].id, "equivalence", false, "region y differs on the randomised input",
                     {{"region", "y"}, {"mismatched_elements", 17}, {"max_abs_diff", 3.5}}});
  ASSERT_EQ(proposer->propose(request(1)).size(), 1u);
  std::string prompt = server.received()[1].last_message();
  EXPECT_NE(prompt.find("llm-r0-c1 (round 0) Grid-stride loop with read-only loads: REJECTED by the equivalence gate: "
                        "region y differs on the randomised input"),
            std::string::npos)
      << prompt;
  EXPECT_NE(prompt.find("\"max_abs_diff\":3.5"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("round 2"), std::string::npos);
  auto lines = read_lines(transcript_path());
  EXPECT_EQ(lines[4]["kind"], "verdict");
  EXPECT_EQ(lines[4]["gate"], "equivalence");
  expect_valid_transcript(transcript_path(), transcript.summary());
}

TEST_F(LlmProposerTest, RateLimitedThenSuccess) {
  server.push({429, R"({"error":"slow down"})", {{"Retry-After", "0"}}, 0});
  server.push_content(fenced(kImproved));
  TranscriptWriter transcript(transcript_path());
  auto proposer = make_llm_proposer(options(server), transcript);
  auto c = proposer->propose(request());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(server.received().size(), 2u);
  EXPECT_EQ(read_lines(transcript_path())[2]["attempts"], 2);
}

TEST_F(LlmProposerTest, ServerErrorStormGivesUpWithAClearError) {
  server.push({500, R"({"error":"internal"})", {}, 0});
  server.repeat_last(true);
  TranscriptWriter transcript(transcript_path());
  auto proposer = make_llm_proposer(options(server), transcript);
  try {
    proposer->propose(request());
    FAIL() << "expected EndpointError";
  } catch (const EndpointError& e) {
    EXPECT_EQ(e.kind(), EndpointError::Kind::ServerError);
    EXPECT_EQ(e.code(), rpl::ExitCode::ModelEndpointFailed);
    std::string m = e.what();
    EXPECT_NE(m.find("HTTP 500"), std::string::npos) << m;
    EXPECT_NE(m.find("given up after 2 retries"), std::string::npos) << m;
  }
  EXPECT_EQ(server.received().size(), 3u);
  auto lines = read_lines(transcript_path());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["kind"], "error");
  expect_valid_transcript(transcript_path(), transcript.summary());
}

TEST_F(LlmProposerTest, TimeoutIsRetriedThenReported) {
  server.push({200, rpl::test::chat_reply(fenced(kImproved)), {}, 1500});
  server.repeat_last(true);
  TranscriptWriter transcript(transcript_path());
  auto o = options(server);
  o.timeout_s = 0.3;
  o.max_retries = 1;
  auto proposer = make_llm_proposer(o, transcript);
  auto start = std::chrono::steady_clock::now();
  try {
    proposer->propose(request());
    FAIL() << "expected EndpointError";
  } catch (const EndpointError& e) {
    EXPECT_EQ(e.kind(), EndpointError::Kind::Timeout);
    EXPECT_NE(std::string(e.what()).find("timed out after 300 ms"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(server.received().size(), 2u);
}

TEST_F(LlmProposerTest, TenMegabyteReplyIsRefusedUnderTheLimitAndParsedAboveIt) {
  std::string huge = std::string(10 << 20, 'x') + "\n\n" + fenced(kImproved);
  server.push_content(huge);
  server.push_content(huge);
  TranscriptWriter transcript(transcript_path());
  auto o = options(server);  // default limit: 8 MiB
  auto proposer = make_llm_proposer(o, transcript);
  EXPECT_TRUE(proposer->propose(request()).empty());
  EXPECT_NE(transcript.summary()["failed_responses"][0]["reason"].get<std::string>().find("larger than 8388608 bytes"),
            std::string::npos);
  // The refused body still counts against the budget (the model spent its tokens).
  EXPECT_EQ(transcript.summary()["usage"]["estimated"], true);

  rpl::test::TempDir dir2;
  TranscriptWriter transcript2(dir2.file("t.jsonl"));
  o.max_response_mb = 16;
  auto proposer2 = make_llm_proposer(o, transcript2);
  auto c = proposer2->propose(request());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(c[0].source_text.find("__ldg"), std::string::npos);
  EXPECT_EQ(c[0].description.size(), 160u);  // the description is bounded too
}

TEST_F(LlmProposerTest, UnauthorizedNotFoundAndUnreachableAreClearAndNeverShowTheKey) {
  // A gateway that echoes the key it was given.
  server.push({401, std::string(R"({"error":"Incorrect API key provided: )") + kSecret + "\"}", {}, 0});
  server.push({404, R"({"error":"model 'test-model' not found"})", {}, 0});
  TranscriptWriter transcript(transcript_path());
  testing::internal::CaptureStderr();
  auto proposer = make_llm_proposer(options(server), transcript);
  try {
    proposer->propose(request());
    FAIL();
  } catch (const EndpointError& e) {
    EXPECT_EQ(e.kind(), EndpointError::Kind::Unauthorized);
    std::string m = e.what();
    EXPECT_NE(m.find("HTTP 401"), std::string::npos);
    EXPECT_NE(m.find("ROCM_PERF_LLM_API_KEY"), std::string::npos);
    EXPECT_EQ(m.find(kSecret), std::string::npos) << m;
    EXPECT_NE(m.find("[REDACTED]"), std::string::npos) << m;
  }
  try {
    proposer->propose(request());
    FAIL();
  } catch (const EndpointError& e) {
    EXPECT_EQ(e.kind(), EndpointError::Kind::NotFound);
    EXPECT_NE(std::string(e.what()).find("--llm-url"), std::string::npos);
  }
  int dead_port;
  {
    MockModelServer gone;
    dead_port = gone.port();
  }
  auto o = options(server);
  o.url = "http://127.0.0.1:" + std::to_string(dead_port) + "/v1";
  auto unreachable = make_llm_proposer(o, transcript);
  try {
    unreachable->propose(request());
    FAIL();
  } catch (const EndpointError& e) {
    EXPECT_EQ(e.kind(), EndpointError::Kind::Unreachable);
    EXPECT_NE(std::string(e.what()).find("cannot reach the model endpoint"), std::string::npos) << e.what();
  }
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find(kSecret), std::string::npos);
  std::string written = read_file(transcript_path());
  EXPECT_NE(written.find("error"), std::string::npos);
  EXPECT_EQ(written.find(kSecret), std::string::npos);
  EXPECT_EQ(transcript.summary().dump().find(kSecret), std::string::npos);
}

TEST_F(LlmProposerTest, KeyNeverAppearsInAnyOutputOfASuccessfulRunEither) {
  // A model that repeats the key back (prompt injection through a gateway, say) still cannot leak it.
  server.push_content(fenced(kImproved, std::string("Your key is ") + kSecret + "."));
  TranscriptWriter transcript(transcript_path());
  testing::internal::CaptureStderr();
  auto proposer = make_llm_proposer(options(server), transcript);
  auto c = proposer->propose(request());
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(server.received()[0].authorization, std::string("Bearer ") + kSecret);  // sent where it belongs
  EXPECT_EQ(read_file(transcript_path()).find(kSecret), std::string::npos);
  EXPECT_EQ(c[0].description.find(kSecret), std::string::npos);
  EXPECT_EQ(c[0].details.dump().find(kSecret), std::string::npos);
  EXPECT_EQ(transcript.summary().dump().find(kSecret), std::string::npos);
  EXPECT_EQ(err.find(kSecret), std::string::npos);
}

TEST_F(LlmProposerTest, TokenBudgetStopsRequestsAndIsReported) {
  server.push({200, rpl::test::chat_reply(fenced(kImproved), "stop", 700, 300), {}, 0});
  TranscriptWriter transcript(transcript_path());
  auto o = options(server);
  o.budget_tokens = 1000;
  o.candidates = 2;
  auto proposer = make_llm_proposer(o, transcript);
  auto req = request();
  req.max_candidates = 2;
  EXPECT_EQ(proposer->propose(req).size(), 1u);  // the first reply spent the budget: no second request
  EXPECT_EQ(server.received().size(), 1u);
  EXPECT_TRUE(proposer->propose(request(1)).empty());
  EXPECT_EQ(server.received().size(), 1u);
  const auto& s = transcript.summary();
  EXPECT_EQ(s["budget_exhausted"], true);
  EXPECT_EQ(s["usage"]["total_tokens"], 1000);
  EXPECT_EQ(s["budget_tokens"], 1000);
}

TEST_F(LlmProposerTest, MaxTokensIsCappedByWhatTheBudgetLeaves) {
  server.push_content(fenced(kImproved));
  TranscriptWriter transcript(transcript_path());
  auto o = options(server);
  o.max_tokens = 100000;
  o.budget_tokens = 5000;
  o.temperature = 0.7;
  auto proposer = make_llm_proposer(o, transcript);
  proposer->propose(request());
  auto body = server.received()[0].json();
  EXPECT_LT(body["max_tokens"].get<int>(), 5000);
  EXPECT_GT(body["max_tokens"].get<int>(), 3000);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.7);
}

TEST_F(LlmProposerTest, PromptTemplatesCanBeOverriddenAndTyposAreCaught) {
  rpl::test::TempDir prompts;
  { std::ofstream(prompts.file("propose.txt")) << "Make {{kernel_name}} fast. Facts:\n{{measured_facts}}"; }
  server.push_content(fenced(kImproved));
  TranscriptWriter transcript(transcript_path());
  auto o = options(server);
  o.prompt_dir = prompts.path().string();
  auto proposer = make_llm_proposer(o, transcript);
  proposer->propose(request());
  auto got = server.received();
  EXPECT_EQ(got[0].last_message().rfind("Make scale fast. Facts:\n- time: 10 launches", 0), 0u) << got[0].last_message();
  EXPECT_NE(got[0].json()["messages"][0]["content"].get<std::string>().find("expert GPU performance engineer"),
            std::string::npos);  // system.txt: the built-in one
  EXPECT_EQ(transcript.summary()["prompts"]["propose"], prompts.file("propose.txt"));

  { std::ofstream(prompts.file("repair.txt")) << "Fix {{kernal_name}}"; }
  try {
    make_llm_proposer(o, transcript);
    FAIL();
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find("repair.txt: unknown placeholder {{kernal_name}}"), std::string::npos) << e.what();
  }
}

TEST_F(LlmProposerTest, BadOptionsAreUsageErrors) {
  TranscriptWriter transcript;
  LlmOptions o;
  EXPECT_THROW(make_llm_proposer(o, transcript), rpl::Error);  // no model
  o.model = "m";
  o.url = "localhost:8000";
  EXPECT_THROW(make_llm_proposer(o, transcript), rpl::Error);
  o.url = "http://localhost:8000/v1";
  o.candidates = 0;
  EXPECT_THROW(make_llm_proposer(o, transcript), rpl::Error);
}
