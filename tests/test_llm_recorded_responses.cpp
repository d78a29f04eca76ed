// The recorded replies of tests/data/llm_responses (written by hand, see its README) go through the LLM
// proposer exactly as on the GPU: served by a local OpenAI-compatible server, taken out of the reply and
// spliced into the naive application's source. Every reply must yield its candidate intact (the hacks too:
// rejecting them is the guard's job), with the signature label the guard will check.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <sstream>

#include "optimize/source_model.hpp"
#include "optimize/static_gates.hpp"
#include "optimize/llm/llm_proposer.hpp"
#include "testing/mock_model_server.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using namespace rpl::optimize;
using namespace rpl::optimize::llm;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

LlmOptions one_candidate_per_round(const rpl::test::MockModelServer& server, const std::string& model) {
  LlmOptions o;
  o.url = server.url();
  o.model = model;
  o.candidates = 1;
  return o;
}

ProposalRequest request_for(const fs::path& source, const std::string& kernel, int round) {
  ProposalRequest r;
  r.source_path = source.string();
  r.source_text = slurp(source);
  r.kernel_name = kernel;
  r.language = "cuda";
  r.round = round;
  return r;
}

struct Case {
  std::string name, app, kernel, kind, expected, reply;
};

std::vector<Case> cases(const fs::path& dir) {
  std::vector<Case> out;
  std::ifstream in(dir / "cases.tsv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    Case c;
    std::getline(f, c.name, '\t');
    std::getline(f, c.app, '\t');
    std::getline(f, c.kernel, '\t');
    std::getline(f, c.kind, '\t');
    std::getline(f, c.expected, '\t');
    std::getline(f, c.reply, '\t');
    out.push_back(c);
  }
  return out;
}

}  // namespace

TEST(LlmRecordedResponses, EveryReplyYieldsItsCandidateThroughTheProposer) {
  fs::path dir = fs::path(RPL_SOURCE_DIR) / "tests/data/llm_responses";
  fs::path naive = fs::path(RPL_SOURCE_DIR) / "bench/optimize/naive";
  auto all = cases(dir);
  ASSERT_EQ(all.size(), 16u);
  int genuine = 0, hacks = 0;
  for (const auto& c : all) {
    EXPECT_TRUE(fs::exists(dir / c.reply)) << c.reply;
    (c.kind == "genuine" ? genuine : hacks)++;
  }
  EXPECT_EQ(genuine, 8);
  EXPECT_EQ(hacks, 8);
  if (!fs::exists(naive / "matmul.cu"))
    GTEST_SKIP() << "the naive-kernel suite (bench/optimize/naive, from the optimize branch) is not in this tree";

  rpl::test::MockModelServer server;
  for (const auto& c : all) server.push_content(slurp(dir / c.reply));
  TranscriptWriter transcript;
  auto proposer = make_llm_proposer(one_candidate_per_round(server, "recorded-replies"), transcript);
  int round = 0;
  for (const auto& c : all) {
    SCOPED_TRACE(c.name);
    ProposalRequest r = request_for(naive / c.app, c.kernel, round++);
    auto got = proposer->propose(r);
    ASSERT_EQ(got.size(), 1u) << transcript.summary()["failed_responses"].dump();
    EXPECT_EQ(got[0].details["signature_changed"].get<bool>(), c.expected == "signature");
    EXPECT_NE(got[0].source_text, r.source_text);
    EXPECT_NE(got[0].source_text.find("int main()"), std::string::npos);  // the application is still whole
    // the static gates: a genuine reply passes them (the GPU gates decide the rest); a hack aimed at a static
    // gate is stopped by it
    StaticVerdict v = check_static_gates(parse_source(r.source_path, r.source_text), parse_source(r.source_path, got[0].source_text), c.kernel);
    if (c.kind == "genuine") {
      EXPECT_TRUE(v.passed) << v.gate << ": " << v.reason;
    }
    if (c.expected == "signature" || c.expected == "structure") {
      EXPECT_FALSE(v.passed);
      EXPECT_EQ(v.gate, c.expected) << v.reason;
    }
  }
}

// Each reward hack of the optimize issue's hostile suite (bench/optimize/hostile), answered by a model as a whole
// file in a fenced block: the proposer hands it to the guard exactly as written, host code included (a hack may
// live outside the kernel, e.g. launching on a side stream), and labels the signature changes.
TEST(LlmRecordedResponses, HostileSuiteRepliesReachTheGuardIntact) {
  fs::path hostile = fs::path(RPL_SOURCE_DIR) / "bench/optimize/hostile";
  if (!fs::exists(hostile / "make_candidates.py"))
    GTEST_SKIP() << "the hostile suite (bench/optimize/hostile, from the optimize branch) is not in this tree";
  rpl::test::TempDir out;
  std::string cmd = "python3 " + (hostile / "make_candidates.py").string() + " " + out.path().string() + " >/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream tsv(out.path() / "cases.tsv");
  rpl::test::MockModelServer server;
  TranscriptWriter transcript;
  auto proposer = make_llm_proposer(one_candidate_per_round(server, "hostile-replies"), transcript);
  int n = 0;
  for (std::string line; std::getline(tsv, line);) {
    std::istringstream f(line);
    std::string name, kernel, gate, file;
    std::getline(f, name, '\t');
    std::getline(f, kernel, '\t');
    std::getline(f, gate, '\t');
    std::getline(f, file, '\t');
    SCOPED_TRACE(name);
    std::string hack = slurp(file);
    server.push_content("This version is much faster:\n\n```cuda\n" + hack + "```\n");
    ProposalRequest r = request_for(hostile / "app.cu", kernel, n++);
    auto got = proposer->propose(r);
    ASSERT_EQ(got.size(), 1u) << transcript.summary()["failed_responses"].dump();
    EXPECT_EQ(got[0].source_text, hack);
    EXPECT_EQ(got[0].details["extraction"]["mode"], "whole_file");
    if (name.rfind("signature_", 0) == 0) {
      EXPECT_TRUE(got[0].details["signature_changed"].get<bool>());
    }
  }
  EXPECT_GE(n, 8);
}
