// rocm-perf optimize's loop without a GPU: a scripted Environment simulates the application (saxpy: y = 2x from
// whatever the replayed state holds), so poisoned and randomised inputs, compile failures, wrong results, timing
// and end-to-end regressions are all exercised; the source is checked after every outcome, and after a SIGKILL at
// every step of the source replacement.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "capture/manifest.hpp"
#include "collectors/code_object_facts.hpp"
#include "optimize/equivalence.hpp"
#include "optimize/optimize_loop.hpp"
#include "optimize/stats.hpp"
#include "optimize/unroll_proposer.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::optimize {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const std::string kSource = R"(#include <cuda_runtime.h>
template <typename T>
__global__ void saxpy(const T* __restrict__ x, T* y, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T acc = 0;
  for (int k = 0; k < 4; ++k) acc += a;
  if (i < n) y[i] = acc * x[i] / 4 * 0 + 2 * x[i];
}
int main() {
  float *x, *y;
  cudaMalloc(&x, 64);
  cudaMalloc(&y, 64);
  saxpy<float><<<1, 16>>>(x, y, 2.0f, 16);
  return 0;
}
)";

constexpr int kN = 16;

std::vector<std::byte> bytes_of(const std::vector<float>& v) {
  std::vector<std::byte> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Writes a capture of saxpy<float>(x, y, 2, 16): x at 0x10000, y at 0x20000.
void write_capture(const fs::path& dir, int dispatch) {
  fs::create_directories(dir);
  capture::Manifest m;
  m.platform = "cuda";
  m.device_name = "NVIDIA H100 80GB HBM3";
  m.device_arch = "sm_90";
  m.kernel = {"_Z5saxpyIfEvPKT_PS0_S0_i", "void saxpy<float>(float const*, float*, float, int)", "saxpy", uint64_t(dispatch)};
  m.code_object = capture::write_blob(dir, "code_object.zst", std::as_bytes(std::span(std::string_view("fake"))));
  m.code_object_format = "cubin";
  std::vector<std::byte> args(24);
  uint64_t xa = 0x10000, ya = 0x20000;
  float a = 2;
  int n = kN;
  std::memcpy(args.data(), &xa, 8), std::memcpy(args.data() + 8, &ya, 8), std::memcpy(args.data() + 16, &a, 4),
      std::memcpy(args.data() + 20, &n, 4);
  m.arguments = capture::write_blob(dir, "arguments.zst", args);
  m.parameters = {{0, 8}, {8, 8}, {16, 4}, {20, 4}};
  std::vector<float> x(kN), y0(kN, 0.f), y1(kN);
  for (int i = 0; i < kN; ++i) x[i] = float(i + dispatch) * 0.25f, y1[i] = 2 * x[i];
  if (dispatch == 2) y0 = y1;  // the stale-output trap: the answer is already there
  capture::Region rx{1, xa, 64, "device", "", {}, {}}, ry{2, ya, 64, "device", "", {}, {}};
  rx.before = capture::write_blob(dir, capture::region_blob_file(1, false), bytes_of(x));
  rx.after = capture::write_blob(dir, capture::region_blob_file(1, true), bytes_of(x));
  ry.before = capture::write_blob(dir, capture::region_blob_file(2, false), bytes_of(y0));
  ry.after = capture::write_blob(dir, capture::region_blob_file(2, true), bytes_of(y1));
  m.regions = {rx, ry};
  capture::write_manifest(dir, m);
}

struct FakeEnv : Environment {
  std::string source;
  bool build_fails = false, app_fails = false, e2e_slower = false;
  std::string original_fails_on;  // an input (capture folder name) the original kernel itself faults on
  bool nondeterministic = false;  // results 1 ULP apart from replay to replay (float atomics), see replay()
  int replays = 0, builds = 0, compiles = 0;
  bool unstable_builds = false;  // every compile writes different bytes (a timestamp in the object, say)
  std::vector<std::string> log;

  CommandOutcome build(const std::string& cmd) override {
    ++builds;
    log.push_back("build " + cmd);
    return build_fails ? CommandOutcome{false, "exited with status 1", "make: *** error"} : CommandOutcome{true, "ok", ""};
  }
  double flops_sol_ns = 0;  // > 0: the baseline's counter pass gives the kernel this compute speed of light
  uint64_t most_threads = 0;  // > 0: the baseline profiled a launch of saxpy with this many threads per block
  std::vector<bool> profiled_with_counters;
  ProfileOutcome profile(unsigned runs, const std::string& dir, bool roofline_counters) override {
    profiled_with_counters.push_back(roofline_counters);
    if (app_fails) throw Error(ExitCode::ApplicationFailed, "the application exited with status 3 in run 1");
    std::ifstream in(source);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bool fast = text.find("#pragma unroll 4") != std::string::npos;
    ProfileOutcome p;
    for (unsigned r = 0; r < runs; ++r) p.runtime_per_run_ns.push_back((fast ? (e2e_slower ? 1100 : 900) : 1000) + r);
    p.ranking = json::array({{{"name", "void other_kernel(int)"}, {"time_on_path_ns", 2000}},
                             {{"name", "void saxpy<float>(float const*, float*, float, int)"}, {"time_on_path_ns", 1000}}});
    p.output_dir = dir;
    if (roofline_counters && flops_sol_ns > 0)
      p.analysis = {{"kernels", json::array({{{"name", "void saxpy<float>(float const*, float*, float, int)"},
                                              {"flops_per_launch", flops_sol_ns * 60000.0}, {"peak_gflops", 60000.0},
                                              {"speed_of_light_compute_ns", flops_sol_ns}}})}};
    if (most_threads > 0)
      p.analysis = {{"kernels", json::array({{{"name", "void saxpy<float>(float const*, float*, float, int)"},
                                              {"most_threads_per_block_launched", most_threads}}})}};
    return p;
  }
  bool capture(const std::string& regex, uint64_t dispatch, const std::string& dir, std::string&) override {
    log.push_back("capture " + regex);
    write_capture(dir, int(dispatch));
    return true;
  }
  CommandOutcome compile(const std::string& src, const std::string& out, const std::string&) override {
    std::ifstream in(src);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("COMPILE_ERROR") != std::string::npos) return {false, "exited with status 1", "error: expected ';'"};
    std::string co = text.find("WRONG") != std::string::npos        ? "WRONG"
                     : text.find("LAUNCHFAIL") != std::string::npos ? "LAUNCHFAIL"
                     : text.find("y[i] =") == std::string::npos     ? "STALE"  // does no work
                                                                    : "OK";
    if (text.find("#pragma unroll 4") != std::string::npos) co += " FAST";
    if (text.find("SLOWER") != std::string::npos) co += " SLOW";
    for (const char* mark : {"HIDDEN_CLOCK", "UNREADABLE", "BOUNDS64", "BOUNDS512"})  // what InspectingEnv finds in the code object
      if (text.find(mark) != std::string::npos) co += std::string(" ") + mark;
    ++compiles;
    if (unstable_builds) co += " built " + std::to_string(compiles);
    std::ofstream(out) << co;
    return {true, "ok", ""};
  }
  ReplayOutcome replay(const std::string& cap, const std::string& co_path, const std::string& dump, unsigned) override {
    ++replays;
    std::ifstream in(co_path);
    std::string co((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (co.rfind("LAUNCHFAIL", 0) == 0) return {false, "cuLaunchKernelEx failed: too many resources requested", 0, ""};
    if (!original_fails_on.empty() && fs::path(cap).filename() == original_fails_on)
      return {false, "cuEventSynchronize failed: an illegal memory access", 0, ""};
    capture::Manifest m = capture::read_manifest(cap);
    std::vector<std::byte> xb = capture::read_blob(cap, *m.regions[0].before), yb = capture::read_blob(cap, *m.regions[1].before);
    std::vector<float> x(kN), y(kN);
    std::memcpy(x.data(), xb.data(), 64), std::memcpy(y.data(), yb.data(), 64);
    if (co.rfind("STALE", 0) != 0)
      for (int i = 0; i < kN; ++i) y[i] = 2 * x[i] + (co.rfind("WRONG", 0) == 0 && i == 5 ? 1.f : 0.f);
    // The original's second replay and every candidate replay round differently from the original's first.
    const bool again = dump.find("original-again") != std::string::npos, candidate = dump.find("candidates") != std::string::npos;
    if (nondeterministic && again != candidate)
      for (float& v : y) v = std::nextafter(v, INFINITY);
    if (!dump.empty()) {
      fs::create_directories(dump);
      std::ofstream(fs::path(dump) / "r000001.bin", std::ios::binary).write(reinterpret_cast<const char*>(x.data()), 64);
      std::ofstream(fs::path(dump) / "r000002.bin", std::ios::binary).write(reinterpret_cast<const char*>(y.data()), 64);
    }
    double t = co.find("FAST") != std::string::npos ? 80 : co.find("SLOW") != std::string::npos ? 130 : 100;
    return {true, "", t + (replays % 3) * 0.1, ""};
  }
  double peak_bandwidth_gbps(const std::string&) override { return 3350; }
};

struct Fixture {
  test::TempDir tmp;
  std::string source = tmp.file("saxpy.cu");
  FakeEnv env;
  OptimizeOptions o;
  Fixture() {
    std::ofstream(source) << kSource;
    env.source = source;
    o.source = source;
    o.build_command = "make";
    o.output_dir = tmp.file("out");
    o.runs = 3;
    o.perf_rounds = 5;
    o.app = {"./saxpy"};
  }
  std::string text() const { return read_text_file(source); }
};

std::vector<std::unique_ptr<Proposer>> unroll() {
  std::vector<std::unique_ptr<Proposer>> p;
  p.push_back(std::make_unique<DeterministicProposer>());
  return p;
}

std::vector<std::unique_ptr<Proposer>> files(const std::vector<std::string>& f) {
  std::vector<std::unique_ptr<Proposer>> p;
  p.push_back(std::make_unique<FileProposer>(f));
  return p;
}

std::string with(std::string s, const std::string& from, const std::string& to) { return s.replace(s.find(from), from.size(), to); }

TEST(OptimizeLoop, AcceptsTheFasterEquivalentCandidateAndKeepsTheOriginal) {
  Fixture f;
  f.o.max_candidates = 3;
  auto proposers = unroll();
  OptimizeResult r = run_optimize(f.o, f.env, proposers);
  const json& d = r.document;
  EXPECT_EQ(d["decision"]["status"], "accepted") << d["decision"].dump();
  EXPECT_EQ(d["decision"]["candidate"], "unroll-L6-x4");
  EXPECT_EQ(d["kernel"]["name"], "saxpy");
  ASSERT_EQ(d["inputs"].size(), 4u);
  EXPECT_EQ(d["inputs"][3]["name"], "launch1-captured");
  EXPECT_EQ(d["inputs"][3]["derivation"], (json{{"note", "the captured state as it was (in-place kernels)"}}))
      << "once lost to a braced list that bound it to a path member";
  ASSERT_EQ(d["candidates"].size(), 3u);
  EXPECT_EQ(d["candidates"][1]["decision"], "rejected");  // x2: equivalent but not faster
  EXPECT_EQ(d["candidates"][1]["gates"].back()["gate"], "performance");
  EXPECT_NE(f.text().find("#pragma unroll 4"), std::string::npos);
  EXPECT_EQ(read_text_file(f.source + ".orig"), kSource);
  EXPECT_FALSE(fs::exists(f.source + ".rocm-perf-journal"));
  EXPECT_EQ(test::validate_against_schema("optimize", f.o.output_dir + "/optimize.json"), "");
  EXPECT_NE(optimize_summary_text(d).find("accepted"), std::string::npos);
}

// One candidate (unroll x4 of the only loop) through the whole loop.
OptimizeResult run_first_candidate(Fixture& f) {
  f.o.max_candidates = 1;
  auto proposers = unroll();
  return run_optimize(f.o, f.env, proposers);
}

// The first round is asked for once the original is compiled and before any replay, so its candidates compile
// while the inputs are derived and the original replayed; the decisions are those of asking later.
struct WhenAsked : Proposer {
  FakeEnv& env;
  DeterministicProposer inner;
  std::vector<std::pair<int, int>> asked;  // (round, replays the environment had run by then)
  int compiles_before_first = -1;
  explicit WhenAsked(FakeEnv& e) : env(e) {}
  std::string name() const override { return inner.name(); }
  std::vector<Candidate> propose(const ProposalRequest& r) override {
    if (asked.empty()) compiles_before_first = env.compiles;
    asked.emplace_back(r.round, env.replays);
    return inner.propose(r);
  }
  void observe(const GateVerdict& v) override { inner.observe(v); }
};

TEST(OptimizeLoop, TheFirstRoundIsProposedBeforeTheInputsAreReplayed) {
  Fixture f;
  f.o.max_candidates = 3;
  std::vector<std::unique_ptr<Proposer>> proposers;
  proposers.push_back(std::make_unique<WhenAsked>(f.env));
  auto& asked = static_cast<WhenAsked&>(*proposers.front());
  OptimizeResult r = run_optimize(f.o, f.env, proposers);
  ASSERT_FALSE(asked.asked.empty());
  EXPECT_EQ(asked.asked.front(), (std::pair<int, int>{0, 0})) << "round 0, before the original's first replay";
  EXPECT_EQ(asked.compiles_before_first, 2) << "the original's code object and its build check, nothing else";
  EXPECT_EQ(std::count_if(asked.asked.begin(), asked.asked.end(), [](auto& a) { return a.first == 0; }), 1)
      << "round 0 is asked for once";
  EXPECT_EQ(r.document["decision"]["status"], "accepted");
  EXPECT_EQ(r.document["decision"]["candidate"], "unroll-L6-x4");
}

TEST(OptimizeLoop, ACandidateFasterThanTheOriginalsFlopsAllowIsRejectedAsSuspicious) {
  // The baseline's counter pass says the original executes FLOPs that take at least 90 ns at peak: the x4
  // candidate's 80 ns is impossible for the same work, however equivalent its outputs look.
  Fixture f;
  f.env.flops_sol_ns = 90;
  OptimizeResult r = run_first_candidate(f);
  const json& d = r.document;
  EXPECT_EQ(d["speed_of_light"]["flops"]["min_time_ns"], 90.0) << d["speed_of_light"].dump();
  EXPECT_EQ(d["speed_of_light"]["min_time_ns"], 90.0);
  ASSERT_EQ(d["candidates"].size(), 1u);
  EXPECT_EQ(d["candidates"][0]["decision"], "rejected");
  EXPECT_NE(d["candidates"][0]["gates"].back()["reason"].get<std::string>().find("suspicious"), std::string::npos)
      << d["candidates"][0]["gates"].back().dump();
  EXPECT_EQ(f.text(), kSource);
  // only the baseline pays for the counter pass
  ASSERT_FALSE(f.env.profiled_with_counters.empty());
  EXPECT_TRUE(f.env.profiled_with_counters.front());
  EXPECT_EQ(test::validate_against_schema("optimize", f.o.output_dir + "/optimize.json"), "");
  // below the candidate's time, the bound lets the real speedup through
  Fixture g;
  g.env.flops_sol_ns = 50;
  EXPECT_EQ(run_first_candidate(g).document["decision"]["status"], "accepted");
}

TEST(OptimizeLoop, DryRunNeverTouchesTheSource) {
  Fixture f;
  f.o.dry_run = true;
  OptimizeResult r = run_first_candidate(f);
  EXPECT_EQ(r.document["decision"]["status"], "proposed");
  EXPECT_EQ(f.text(), kSource);
  EXPECT_FALSE(fs::exists(f.source + ".orig"));
  EXPECT_NE(read_text_file(f.o.output_dir + "/proposed.diff").find("+  #pragma unroll 4"), std::string::npos);
  EXPECT_EQ(test::validate_against_schema("optimize", f.o.output_dir + "/optimize.json"), "");
}

// Deterministic build verification (issue 33): the original and each candidate are built twice and compared.
TEST(OptimizeLoop, EveryBuildIsCheckedForReproducibility) {
  {
    Fixture f;
    f.o.dry_run = true;
    OptimizeResult r = run_first_candidate(f);
    const json& d = r.document;
    EXPECT_EQ(d["baseline"]["build_check"]["reproducible"], true) << d["baseline"].dump();
    for (const auto& c : d["candidates"])
      if (c.contains("compile")) {
        EXPECT_EQ(c["compile"]["build_check"]["reproducible"], true) << c["compile"].dump();
      }
    EXPECT_EQ(d["notes"].dump().find("not reproducible"), std::string::npos);
    EXPECT_EQ(d["decision"]["status"], "proposed");
    EXPECT_EQ(test::validate_against_schema("optimize", f.o.output_dir + "/optimize.json"), "");
  }
  {
    Fixture f;  // a compiler that never writes the same bytes twice: reported, and the first object is still judged
    f.o.dry_run = true;
    f.env.unstable_builds = true;
    OptimizeResult r = run_first_candidate(f);
    const json& d = r.document;
    EXPECT_EQ(d["baseline"]["build_check"]["reproducible"], false);
    EXPECT_NE(d["baseline"]["build_check"]["reason"].get<std::string>().find("first difference at byte"), std::string::npos);
    EXPECT_NE(d["notes"].dump().find("build not reproducible"), std::string::npos);
    EXPECT_EQ(d["decision"]["status"], "proposed") << "the gates judge the first build";
    EXPECT_EQ(test::validate_against_schema("optimize", f.o.output_dir + "/optimize.json"), "");
  }
  {
    Fixture f, g;  // --no-build-check: one build each
    f.o.dry_run = g.o.dry_run = true;
    g.o.build_check = false;
    run_first_candidate(f);
    OptimizeResult r = run_first_candidate(g);
    EXPECT_EQ(r.document["baseline"]["build_check"]["checked"], false);
    EXPECT_GT(f.env.compiles, g.env.compiles);
  }
}

TEST(OptimizeLoop, WithoutABuildCommandNothingIsWrittenAndTheDiffIsReported) {
  // the seeds' form `rocm-perf optimize ./app`: no way to rebuild, so no end-to-end trial on an unchanged binary
  Fixture f;
  f.o.build_command.clear();
  OptimizeResult r = run_first_candidate(f);
  const json& d = r.document["decision"];
  EXPECT_EQ(d["status"], "proposed") << d.dump();
  EXPECT_NE(d["reason"].get<std::string>().find("no --build given"), std::string::npos);
  EXPECT_NE(d["how_to_apply"].get<std::string>().find("patch " + f.source), std::string::npos);
  EXPECT_EQ(f.text(), kSource);
  EXPECT_FALSE(fs::exists(f.source + ".orig"));
  EXPECT_NE(optimize_summary_text(r.document).find("apply it with"), std::string::npos);
  EXPECT_EQ(test::validate_against_schema("optimize", f.o.output_dir + "/optimize.json"), "");
  // an application that compiles the source at run time can still be verified end to end
  Fixture g;
  g.o.build_command.clear();
  g.o.runtime_compiled = true;
  EXPECT_EQ(run_first_candidate(g).document["decision"]["status"], "accepted");
}

TEST(OptimizeLoop, AClearlySlowerCandidateStopsTheTimingRoundsEarlyWithTheSameDecision) {
  Fixture f;
  std::string slow = f.tmp.file("slow.cu");
  std::ofstream(slow) << with(kSource, "T acc = 0;", "T acc = 0;  // SLOWER");
  auto proposers = files({slow});
  const int before = f.env.replays;
  OptimizeResult r = run_optimize(f.o, f.env, proposers);
  const json& perf = r.document["candidates"][0]["gates"].back();
  ASSERT_EQ(perf["gate"], "performance") << r.document["candidates"][0].dump();
  EXPECT_FALSE(perf["passed"]);
  // 5 rounds: after 3 lost rounds no completion can reach p < 0.05, so the last 2 are not run
  EXPECT_EQ(perf["evidence"]["rounds_run"], 3);
  EXPECT_TRUE(perf["evidence"]["stopped_early"]);
  EXPECT_NE(perf["reason"].get<std::string>().find("cannot pass"), std::string::npos) << perf["reason"];
  EXPECT_GT(f.env.replays - before, 0);
}

// The cases' sources as files, proposed in order (at most as many candidates as cases).
template <typename Case>
std::vector<std::unique_ptr<Proposer>> candidate_files(Fixture& f, const std::vector<Case>& cases) {
  std::vector<std::string> paths;
  for (const auto& c : cases) {
    paths.push_back(f.tmp.file(c.name + ".cu"));
    std::ofstream(paths.back()) << c.text;
  }
  f.o.max_candidates = int(cases.size());
  return files(paths);
}

// An environment that replays in batches: it runs every other job of a batch at once and leaves the rest
// for the loop to replay alone (as the real one does with ranges a batch process cannot have).
struct BatchingEnv : FakeEnv {
  int batches = 0, batched_jobs = 0;
  std::vector<ReplayOutcome> replay_batch(const std::vector<ReplayJob>& jobs) override {
    ++batches;
    std::vector<ReplayOutcome> out(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (i % 2) {
        out[i].ran = false;
        continue;
      }
      out[i] = replay(jobs[i].capture_dir, jobs[i].code_object, jobs[i].dump_dir, jobs[i].iterations);
      ++batched_jobs;
    }
    return out;
  }
};

TEST(OptimizeLoop, BatchedReplaysGiveTheDecisionsOfReplaysOneByOne) {
  auto decisions = [](Environment& env, Fixture& f, const std::vector<std::string>& paths) {
    f.o.max_candidates = int(paths.size());
    auto proposers = files(paths);
    json d = run_optimize(f.o, env, proposers).document;
    std::vector<std::string> out;
    for (const auto& c : d["candidates"])
      out.push_back(c["decision"].get<std::string>() + " at " + c["gates"].back()["gate"].get<std::string>() + ": " +
                    c["gates"].back()["reason"].get<std::string>().substr(0, 40));
    out.push_back(d["decision"]["status"]);
    return out;
  };
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"wrong", with(kSource, "T acc = 0;", "T acc = 0;  // WRONG")},
      {"nolaunch", with(kSource, "T acc = 0;", "T acc = 0;  // LAUNCHFAIL")},
      {"slow", with(kSource, "T acc = 0;", "T acc = 0;  // SLOWER")},
      {"fast", with(kSource, "  for (int k", "  #pragma unroll 4\n  for (int k")}};
  Fixture one, batched;
  BatchingEnv env;
  env.source = batched.source;
  std::vector<std::string> p1, p2;
  for (const auto& [name, text] : texts) {
    p1.push_back(one.tmp.file(name + ".cu"));
    std::ofstream(p1.back()) << text;
    p2.push_back(batched.tmp.file(name + ".cu"));
    std::ofstream(p2.back()) << text;
  }
  const auto expected = decisions(one.env, one, p1);
  const auto got = decisions(env, batched, p2);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(expected.back(), "accepted") << ::testing::PrintToString(expected);
  EXPECT_EQ(env.batches, 1 + 4 + 1) << "one batch for the original's replays, one per candidate past the binary gates, "
                                      "and the later timing rounds' batch for the one candidate that needs them (fast)";
  EXPECT_GT(env.batched_jobs, 0);
  EXPECT_EQ(batched.text(), one.text());
}

// An environment whose batches replay every job but those on the second launch's capture (its own address
// layout: the real runner needs a fresh process for it), as the CUDA runner does. A candidate marked
// LAUNCH2_BAD is wrong on that input only.
struct LayoutBatchingEnv : FakeEnv {
  std::vector<std::size_t> batch_sizes;
  int lone_launch2_candidate_replays = 0;
  std::vector<ReplayOutcome> replay_batch(const std::vector<ReplayJob>& jobs) override {
    batch_sizes.push_back(jobs.size());
    std::vector<ReplayOutcome> out(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (jobs[i].capture_dir.find("launch2") != std::string::npos) out[i].ran = false;
      else out[i] = replay(jobs[i].capture_dir, jobs[i].code_object, jobs[i].dump_dir, jobs[i].iterations);
    }
    return out;
  }
  CommandOutcome compile(const std::string& src, const std::string& out, const std::string& capture) override {
    CommandOutcome r = FakeEnv::compile(src, out, capture);
    if (read_text_file(src).find("LAUNCH2_BAD") != std::string::npos) std::ofstream(out, std::ios::app) << " LAUNCH2_BAD";
    return r;
  }
  ReplayOutcome replay(const std::string& cap, const std::string& co_path, const std::string& dump, unsigned it) override {
    ReplayOutcome r = FakeEnv::replay(cap, co_path, dump, it);
    const bool launch2 = cap.find("launch2") != std::string::npos;
    if (launch2 && co_path.find("candidates") != std::string::npos) ++lone_launch2_candidate_replays;
    if (launch2 && !dump.empty() && read_text_file(co_path).find("LAUNCH2_BAD") != std::string::npos) {
      const float bad[1] = {-1.f};
      std::fstream(fs::path(dump) / "r000002.bin", std::ios::in | std::ios::out | std::ios::binary)
          .write(reinterpret_cast<const char*>(bad), sizeof bad);
    }
    return r;
  }
};

TEST(OptimizeLoop, ASlowerCandidateIsRejectedWithoutTheReplaysItDoesNotNeed) {
  Fixture f;
  LayoutBatchingEnv env;
  env.source = f.source;
  struct Case { std::string name, text; };
  auto p = candidate_files(f, std::vector<Case>{{"slow", with(kSource, "T acc = 0;", "T acc = 0;  // SLOWER")}});
  json d = run_optimize(f.o, env, p).document;
  const json& c = d["candidates"][0];
  ASSERT_EQ(c["gates"].back()["gate"], "performance") << c.dump();
  EXPECT_FALSE(c["gates"].back()["passed"]);
  EXPECT_EQ(c["gates"].back()["evidence"]["rounds_run"], 3);
  // Four inputs and three rounds of two replays: the last two rounds and the second launch's lone replay are skipped.
  EXPECT_EQ(c["replay_jobs_started"], 4 + 2 * 3) << c.dump();
  EXPECT_EQ(env.lone_launch2_candidate_replays, 0);
  const json& eq = c["gates"][c["gates"].size() - 2];
  ASSERT_EQ(eq["gate"], "equivalence");
  EXPECT_TRUE(eq["passed"]);
  EXPECT_EQ(eq["evidence"]["deferred_inputs"], json::array({"launch2-poisoned"})) << eq.dump();
  EXPECT_EQ(f.text(), kSource);
}

TEST(OptimizeLoop, AFasterCandidateIsStillJudgedOnTheDeferredInput) {
  struct Case { std::string name, text; };
  const std::string fast = with(kSource, "  for (int k", "  #pragma unroll 4\n  for (int k");
  for (const bool bad : {false, true}) {
    Fixture f;
    LayoutBatchingEnv env;
    env.source = f.source;
    auto p = candidate_files(f, std::vector<Case>{{"fast", bad ? with(fast, "T acc = 0;", "T acc = 0;  // LAUNCH2_BAD") : fast}});
    json d = run_optimize(f.o, env, p).document;
    const json& c = d["candidates"][0];
    EXPECT_EQ(env.lone_launch2_candidate_replays, 1) << bad;
    EXPECT_EQ(c["replay_jobs_started"], 4 + 2 * 5) << c.dump();
    const json& last = c["gates"].back();
    ASSERT_EQ(last["gate"], bad ? "equivalence" : "end_to_end") << c.dump();
    if (bad) {
      EXPECT_FALSE(last["passed"]);
      EXPECT_NE(last["reason"].get<std::string>().find("launch2-poisoned"), std::string::npos) << last["reason"];
      EXPECT_EQ(c["decision"], "rejected");
      EXPECT_EQ(f.text(), kSource) << "a candidate wrong on the deferred input is never installed";
    } else {
      EXPECT_EQ(c["decision"], "accepted") << c.dump();
    }
  }
}

// A batch whose result for the captured input (launch1) is wrong for every candidate job, as if the runner had
// launched twice there, while a replay of its own is right; BAD_EVERYWHERE marks a candidate wrong alone too.
struct FlakyBatchEnv : LayoutBatchingEnv {
  int lone_captured_replays = 0;
  std::vector<ReplayOutcome> replay_batch(const std::vector<ReplayJob>& jobs) override {
    in_batch = true;
    std::vector<ReplayOutcome> out = LayoutBatchingEnv::replay_batch(jobs);
    in_batch = false;
    return out;
  }
  ReplayOutcome replay(const std::string& cap, const std::string& co_path, const std::string& dump, unsigned it) override {
    ReplayOutcome r = LayoutBatchingEnv::replay(cap, co_path, dump, it);
    const bool captured = fs::path(cap).filename() == "launch1", candidate = co_path.find("candidates") != std::string::npos;
    if (captured && candidate && !in_batch && !dump.empty()) ++lone_captured_replays;
    const bool bad_everywhere = read_text_file(co_path).find("WRONG") != std::string::npos;
    if (captured && candidate && !dump.empty() && (in_batch || bad_everywhere)) {
      const float bad[1] = {12345.f};
      std::fstream(fs::path(dump) / "r000002.bin", std::ios::in | std::ios::out | std::ios::binary)
          .write(reinterpret_cast<const char*>(bad), sizeof bad);
    }
    return r;
  }
  bool in_batch = false;
};

TEST(OptimizeLoop, ABatchResultThatDiffersIsReplayedAloneBeforeItRejects) {
  struct Case { std::string name, text; };
  const std::string fast = with(kSource, "  for (int k", "  #pragma unroll 4\n  for (int k");
  for (const bool wrong : {false, true}) {
    Fixture f;
    FlakyBatchEnv env;
    env.source = f.source;
    auto p = candidate_files(f, std::vector<Case>{{"fast", wrong ? with(fast, "T acc = 0;", "T acc = 0;  // WRONG") : fast}});
    json d = run_optimize(f.o, env, p).document;
    const json& c = d["candidates"][0];
    EXPECT_EQ(env.lone_captured_replays, wrong ? 0 : 1);
    const json* eq = nullptr;
    for (const auto& g : c["gates"])
      if (g["gate"] == "equivalence") { eq = &g; break; }
    ASSERT_NE(eq, nullptr) << c.dump();
    const json* captured = nullptr;
    for (const auto& in : (*eq)["evidence"]["inputs"])
      if (in["input"] == "launch1-captured") captured = &in;
    if (wrong) {
      // Wrong alone too: rejected on the first input, whose batch result was replayed alone and differed again.
      EXPECT_EQ(c["decision"], "rejected") << c.dump();
      EXPECT_FALSE((*eq)["passed"]);
      // A rejection at equivalence still says what the replays cost: the first stage only.
      EXPECT_EQ(c.value("replay_jobs_started", -1), 4 + 2 * 3) << c.dump();
      EXPECT_TRUE(c["seconds"].contains("replay_batch_jobs")) << c.dump();
      const json& first = (*eq)["evidence"]["inputs"][0];
      EXPECT_FALSE(first["comparison"]["equivalent"]) << first.dump();
      EXPECT_NE(first.value("note", ""), "") << first.dump();
      EXPECT_EQ(f.text(), kSource);
      continue;
    }
    ASSERT_NE(captured, nullptr) << eq->dump();
    EXPECT_TRUE((*eq)["passed"]) << eq->dump();
    EXPECT_FALSE((*captured)["batch_comparison"]["equivalent"]) << captured->dump();
    EXPECT_TRUE((*captured)["comparison"]["equivalent"]) << captured->dump();
    EXPECT_EQ(c["decision"], "accepted") << c.dump();
  }
}

// Code objects the environment can read: the binary gates judge them (read ahead, beside the compile).
struct InspectingEnv : FakeEnv {
  std::optional<collectors::CodeObjectFacts> inspect(const std::string& co_path) override {
    std::ifstream in(co_path);
    std::string co((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (co.find("UNREADABLE") != std::string::npos) throw Error(ExitCode::InputInvalid, co_path + ": not an ELF file");
    collectors::CodeObjectFacts f;
    f.vendor = "nvidia";
    f.file = co_path;
    f.kernels = {{"_Z5saxpyIfEvPKT_PS0_S0_i", {{0, 8, 4, ""}, {8, 8, 4, ""}, {16, 4, 0, ""}, {20, 4, 0, ""}}, 24, {}, {}, 16, 0}};
    f.functions = {"_Z5saxpyIfEvPKT_PS0_S0_i"};
    if (co.find("HIDDEN_CLOCK") != std::string::npos) f.findings = {{"_Z5saxpyIfEvPKT_PS0_S0_i", "clock", "PTX", "mov.u64 %rd1, %clock64;"}};
    for (const char* bounds : {"64", "512"})  // a candidate's __launch_bounds__(N), as the cubin states it
      if (co.find(std::string("BOUNDS") + bounds) != std::string::npos)
        f.kernels[0].bounds = {std::string("max_threads ") + bounds + " 1 1"};
    return f;
  }
};

TEST(OptimizeLoop, BinaryGatesJudgeCodeObjectsReadAheadAsWhenReadInTurn) {
  Fixture f;
  InspectingEnv env;
  env.source = f.source;
  struct Case { std::string name, text, gate; };
  std::vector<Case> cases = {
      {"clock", with(kSource, "T acc = 0;", "T acc = 0;  // HIDDEN_CLOCK"), "binary_structure"},
      {"unreadable", with(kSource, "T acc = 0;", "T acc = 0;  // UNREADABLE"), "binary_signature"},
      {"fast", with(kSource, "  for (int k", "  #pragma unroll 4\n  for (int k"), "performance"}};
  auto proposers = candidate_files(f, cases);
  const json d = run_optimize(f.o, env, proposers).document;
  ASSERT_EQ(d["candidates"].size(), cases.size());
  EXPECT_EQ(d["candidates"][0]["gates"].back()["gate"], cases[0].gate) << d["candidates"][0]["gates"].back().dump();
  EXPECT_FALSE(d["candidates"][0]["gates"].back()["passed"]);
  EXPECT_EQ(d["candidates"][1]["gates"].back()["gate"], cases[1].gate);
  EXPECT_NE(d["candidates"][1]["gates"].back()["reason"].get<std::string>().find("not an ELF file"), std::string::npos);
  EXPECT_EQ(d["candidates"][2]["decision"], "accepted") << d["candidates"][2].dump();
  for (const auto& c : d["candidates"]) EXPECT_GE(c["seconds"]["total"].get<double>(), 0) << "each candidate says its time";
}

// New launch bounds are held against every launch the baseline profiled, not only the captured ones: the captures
// hold 1-thread launches, a later launch (not captured) has 256 threads per block.
TEST(OptimizeLoop, NewLaunchBoundsMustAdmitEveryProfiledLaunchNotOnlyTheCapturedOnes) {
  Fixture f;
  InspectingEnv env;
  env.source = f.source;
  env.most_threads = 256;
  struct Case { std::string name, text, gate; };
  std::vector<Case> cases = {{"bounds64", with(kSource, "T acc = 0;", "T acc = 0;  // BOUNDS64"), "binary_signature"},
                             {"bounds512", with(kSource, "  for (int k", "  // BOUNDS512\n  #pragma unroll 4\n  for (int k"), "performance"}};
  auto proposers = candidate_files(f, cases);
  const json d = run_optimize(f.o, env, proposers).document;
  ASSERT_EQ(d["candidates"].size(), cases.size());
  const json& narrow = d["candidates"][0]["gates"].back();
  EXPECT_EQ(narrow["gate"], "binary_signature") << narrow.dump();
  EXPECT_FALSE(narrow["passed"]);
  EXPECT_NE(narrow["reason"].get<std::string>().find("at most 64 threads per block; the application launches it with 256"),
            std::string::npos) << narrow.dump();
  EXPECT_EQ(d["candidates"][1]["decision"], "accepted") << d["candidates"][1].dump();
  bool held = false;
  for (const auto& g : d["candidates"][1]["gates"])
    if (g["gate"] == "binary_structure")
      held = g["evidence"]["launch_bounds_changed"][0]["launched_threads_per_block"] == json::array({1, 1, 256});  // two captures, one profiled
  EXPECT_TRUE(held) << d["candidates"][1]["gates"].dump();

  // Without that profiled launch the same 64-thread bounds admit the captured launches and pass the binary gates.
  Fixture g;
  InspectingEnv captured_only;
  captured_only.source = g.source;
  auto again = candidate_files(g, std::vector<Case>{cases[0]});
  const json e = run_optimize(g.o, captured_only, again).document;
  EXPECT_EQ(e["candidates"][0]["gates"].back()["gate"], "performance") << e["candidates"][0]["gates"].back().dump();
}

TEST(OptimizeLoop, EachBadCandidateIsRejectedByItsGate) {
  Fixture f;
  struct Case { std::string name, text, gate; };
  std::vector<Case> cases = {
      {"wrong", with(kSource, "T acc = 0;", "T acc = 0;  // WRONG"), "equivalence"},
      {"nolaunch", with(kSource, "T acc = 0;", "T acc = 0;  // LAUNCHFAIL"), "equivalence"},
      {"broken", with(kSource, "T acc = 0;", "T acc = 0;  // COMPILE_ERROR"), "compile"},
      {"retyped", with(kSource, "T a, int n)", "T a, long n)"), "signature"},
      {"timer", with(kSource, "T acc = 0;", "T acc = 0; long long t = clock64();"), "structure"},
      {"stale", with(kSource, "if (i < n) y[i] = acc * x[i] / 4 * 0 + 2 * x[i];", ""), "equivalence"},
      {"equal_speed", with(kSource, "T acc = 0;", "T acc = 0;  // same code, same speed"), "performance"},
  };
  auto proposers = candidate_files(f, cases);
  OptimizeResult r = run_optimize(f.o, f.env, proposers);
  const json& d = r.document;
  ASSERT_EQ(d["candidates"].size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(d["candidates"][i]["decision"], "rejected") << cases[i].name;
    EXPECT_EQ(d["candidates"][i]["gates"].back()["gate"], cases[i].gate) << cases[i].name << ": " << d["candidates"][i]["gates"].back().dump();
  }
  // the stale candidate leaves the poison in y on the poisoned first launch
  EXPECT_EQ(d["candidates"][5]["gates"].back()["evidence"]["inputs"][0]["input"], "launch1-poisoned");
  EXPECT_EQ(d["decision"]["status"], "no_candidate_passed");
  EXPECT_EQ(f.text(), kSource);
  EXPECT_EQ(test::validate_against_schema("optimize", f.o.output_dir + "/optimize.json"), "");
}

// --validate-command (the seeds' validation hooks): run on each input's replayed outputs after the built-in
// comparison. One that admits lets the faster candidate through; one that fails rejects it at the equivalence
// gate; one that rejects the original's own result stops before any candidate.
TEST(OptimizeLoop, TheValidationCommandAdmitsOrRejects) {
  Fixture pass;
  pass.o.validate_command = "cmp {ORIGINAL}/r000002.bin \"$RPL_CANDIDATE_DUMP/r000002.bin\" && test -n {INPUT}";
  const json d = run_first_candidate(pass).document;
  EXPECT_EQ(d["decision"]["status"], "accepted") << d["candidates"].dump();
  json eq;
  for (const auto& g : d["candidates"][0]["gates"])
    if (g["gate"] == "equivalence") eq = g;
  EXPECT_NE(eq["reason"].get<std::string>().find("admitted by --validate-command"), std::string::npos) << eq.dump();
  EXPECT_EQ(eq["evidence"]["inputs"][0]["validation"]["passed"], true) << eq.dump();
  EXPECT_EQ(d["options"]["validate_command"], pass.o.validate_command);
  EXPECT_EQ(test::validate_against_schema("optimize", pass.o.output_dir + "/optimize.json"), "");

  Fixture fail;  // admits the original's own second replay, rejects every candidate
  fail.o.validate_command = "case {CANDIDATE} in *original-again*) exit 0;; esac; echo residual too large; exit 3";
  const json r = run_first_candidate(fail).document;
  EXPECT_EQ(r["decision"]["status"], "no_candidate_passed");
  EXPECT_EQ(r["candidates"][0]["gates"].back()["gate"], "equivalence");
  EXPECT_NE(r["candidates"][0]["gates"].back()["reason"].get<std::string>().find("residual too large"), std::string::npos);
  EXPECT_EQ(fail.text(), kSource);

  Fixture broken;
  broken.o.validate_command = "exit 1";
  try {
    run_first_candidate(broken);
    ADD_FAILURE() << "a command that rejects the original must stop the run";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    EXPECT_NE(std::string(e.what()).find("rejects the original kernel's own result"), std::string::npos) << e.what();
  }
  EXPECT_EQ(broken.text(), kSource);
}

TEST(OptimizeLoop, EndToEndRegressionRollsBackAndRebuildsTheOriginal) {
  Fixture f;
  f.env.e2e_slower = true;
  OptimizeResult r = run_first_candidate(f);
  EXPECT_EQ(r.document["decision"]["status"], "rolled_back");
  EXPECT_EQ(f.text(), kSource);
  EXPECT_FALSE(fs::exists(f.source + ".rocm-perf-journal"));
  EXPECT_EQ(f.env.builds, 3);  // original, candidate, original again
}

TEST(OptimizeLoop, ANondeterministicOriginalJudgesCandidatesByItsOwnSpread) {
  // The original's result varies by an ULP between replays: the faster candidate, varying alike, is accepted
  // without --rtol/--atol; a wrong one (1.0 off) is still rejected by the equivalence gate.
  Fixture f;
  f.env.nondeterministic = true;
  f.o.max_candidates = 3;
  auto proposers = unroll();
  OptimizeResult r = run_optimize(f.o, f.env, proposers);
  const json& d = r.document;
  EXPECT_FALSE(d["baseline"]["deterministic"].get<bool>());
  EXPECT_EQ(d["decision"]["status"], "accepted") << d["decision"].dump();
  bool judged_by_spread = false;
  for (const json& c : d["candidates"])
    for (const json& g : c["gates"])
      if (g["gate"] == "equivalence" && g["passed"].get<bool>())
        judged_by_spread = judged_by_spread || g["reason"].get<std::string>().find("run-to-run spread") != std::string::npos;
  EXPECT_TRUE(judged_by_spread) << d["candidates"].dump();
  EXPECT_EQ(test::validate_against_schema("optimize", f.o.output_dir + "/optimize.json"), "");

  Fixture g;
  g.env.nondeterministic = true;
  std::ofstream(g.tmp.file("wrong.cu")) << with(kSource, "T acc = 0;", "T acc = 0;  // WRONG");
  auto wrong = files({g.tmp.file("wrong.cu")});
  const json& w = run_optimize(g.o, g.env, wrong).document;
  ASSERT_EQ(w["candidates"].size(), 1u);
  EXPECT_EQ(w["candidates"][0]["decision"], "rejected");
  EXPECT_EQ(w["candidates"][0]["gates"].back()["gate"], "equivalence");
  EXPECT_NE(w["candidates"][0]["gates"].back()["reason"].get<std::string>().find("differs"), std::string::npos);
  // the message names the tolerance that would admit the difference (the user's call: a reordered float sum moves)
  EXPECT_NE(w["candidates"][0]["gates"].back().dump().find("--atol"), std::string::npos) << w["candidates"][0].dump();
}

TEST(OptimizeLoop, AnInputTheOriginalFailsOnIsDroppedWithANote) {
  Fixture f;
  f.env.original_fails_on = "launch1-random";
  f.o.dry_run = true;
  OptimizeResult r = run_first_candidate(f);
  EXPECT_EQ(r.document["inputs"].size(), 3u);
  EXPECT_NE(r.document["notes"].dump().find("input launch1-random dropped"), std::string::npos);
  EXPECT_EQ(r.document["decision"]["status"], "proposed");
}

// A kernel the source parser cannot read (here a type from a header it is not given) is optimized all the same:
// the compiler is the parser of record, and the document says what the parser could not do.
TEST(OptimizeLoop, AKernelTheParserCannotReadIsStillOptimizedWithANote) {
  Fixture f;
  f.o.max_candidates = 3;
  const std::string source = with(with(kSource, "#include <cuda_runtime.h>\n", "#include <cuda_runtime.h>\n#include \"app/types.cuh\"\n"),
                                   "T acc = 0;", "app::acc_t<T> acc = 0;");
  std::ofstream(f.source) << source;
  const std::string candidate = f.tmp.file("candidate.cu");
  std::ofstream(candidate) << with(source, "  for (int k", "#pragma unroll 4\n  for (int k");
  auto proposers = files({candidate});
  OptimizeResult r = run_optimize(f.o, f.env, proposers);
  const json& d = r.document;
  EXPECT_EQ(d["decision"]["status"], "accepted") << d["decision"].dump();
  bool noted = false;
  for (const auto& n : d["notes"]) noted = noted || n.get<std::string>().find("could not read kernel saxpy") != std::string::npos;
  EXPECT_TRUE(noted) << d["notes"].dump();
  EXPECT_EQ(d["candidates"][0]["gates"][1]["evidence"].value("deferred_to", ""),
            "the compiler and the code object's signature (binary gates)")
      << d["candidates"][0]["gates"][1].dump();
}

TEST(OptimizeLoop, BadInputFailsClearlyWithTheSourceUntouched) {
  auto expect_error = [](Fixture& f, ExitCode code, const std::string& words) {
    auto proposers = unroll();
    try {
      run_optimize(f.o, f.env, proposers);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_text_file(f.source), read_text_file(f.source));
    EXPECT_FALSE(fs::exists(f.source + ".orig"));
  };
  { Fixture f; f.env.build_fails = true; expect_error(f, ExitCode::ApplicationFailed, "build command failed on the original"); EXPECT_EQ(f.text(), kSource); }
  { Fixture f; f.env.app_fails = true; expect_error(f, ExitCode::ApplicationFailed, "exited with status 3"); EXPECT_EQ(f.text(), kSource); }
  { Fixture f; f.o.kernel_regex = "nomatch"; expect_error(f, ExitCode::InputInvalid, "no kernel matching /nomatch/"); EXPECT_EQ(f.text(), kSource); }
  // --kernel is RE2 (as every pattern option): a bad pattern is a usage error before anything is built or profiled.
  { Fixture f; f.o.kernel_regex = "saxpy("; expect_error(f, ExitCode::Usage, "--kernel"); EXPECT_EQ(f.env.builds, 0); EXPECT_EQ(f.text(), kSource); }
  { Fixture f; f.o.kernel_regex = "(a+)+\\1"; expect_error(f, ExitCode::Usage, "--kernel"); EXPECT_EQ(f.env.builds, 0); }  // backreference: not RE2
  { Fixture f; std::ofstream(f.source) << "garbage {{{"; expect_error(f, ExitCode::InputInvalid, "does not parse"); EXPECT_EQ(f.text(), "garbage {{{"); }
  { Fixture f; f.o.source = f.tmp.file("missing.cu"); expect_error(f, ExitCode::InputMissing, "missing.cu"); }
}

// Runs the loop in a child that SIGKILLs itself at the k-th step of the source replacement; returns whether the
// kill happened.
bool run_killed_at(Fixture& f, int k) {
  pid_t pid = fork();
  if (pid == 0) {
    int seen = 0;
    StepHook hook = [&](const std::string&) { if (++seen == k) raise(SIGKILL); };
    auto proposers = unroll();
    try { run_optimize(f.o, f.env, proposers, hook); } catch (...) {}
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

TEST(OptimizeLoop, SigkillAtEveryStepLeavesOriginalOrVerifiedCandidate) {
  for (bool regress : {false, true}) {
    int kills = 0;
    for (int k = 1; k <= 12; ++k) {
      Fixture f;
      f.env.e2e_slower = regress;
      f.o.max_candidates = 1;
      bool killed = run_killed_at(f, k);
      std::string after = f.text();
      std::string candidate = with(kSource, "  for (int k = 0; k < 4; ++k)", "  #pragma unroll 4\n  for (int k = 0; k < 4; ++k)");
      EXPECT_TRUE(after == kSource || after == candidate) << "step " << k << ": partial source:\n" << after;
      if (!killed) break;
      ++kills;
      // the next run restores the original when the trial was cut short
      auto restored = SourceTransaction::recover(f.source);
      if (restored) EXPECT_EQ(f.text(), kSource) << "step " << k;
      else EXPECT_TRUE(f.text() == kSource || (!regress && f.text() == candidate)) << "step " << k;
      EXPECT_FALSE(fs::exists(f.source + ".rocm-perf-journal"));
    }
    EXPECT_GE(kills, regress ? 7 : 6) << (regress ? "rollback path" : "accept path");
  }
}

TEST(OptimizeStats, MannWhitneyExactOneSided) {
  MannWhitney all_less = mann_whitney_less({5, 6, 7, 8, 9}, {1, 2, 3, 4, 4.5});
  EXPECT_DOUBLE_EQ(all_less.u, 25);
  EXPECT_NEAR(all_less.p_value, 1.0 / 252, 1e-12);
  MannWhitney none = mann_whitney_less({1, 2, 3}, {4, 5, 6});
  EXPECT_NEAR(none.p_value, 1.0, 1e-12);
  MannWhitney mixed = mann_whitney_less({1, 3, 5, 7}, {2, 4, 6, 8});
  EXPECT_GT(mixed.p_value, 0.3);
  EXPECT_DOUBLE_EQ(median({3, 1, 2, 10}), 2.5);
}

TEST(OptimizeEquivalence, DerivedCapturesPoisonWrittenElementsAndRandomiseReadOnes) {
  test::TempDir tmp;
  write_capture(tmp.path() / "c", 1);
  DeriveSummary p = derive_capture(tmp.path() / "c", tmp.path() / "p", {true, false, 1, {}});
  EXPECT_EQ(p.elements_poisoned, uint64_t(kN));  // y: 0 -> 2x everywhere (x[0] = 0.25, so 2x != 0)
  EXPECT_EQ(p.bytes_written_by_original, 64u);
  capture::Manifest pm = capture::read_manifest(tmp.path() / "p");
  EXPECT_FALSE(pm.regions[1].after.has_value());
  auto y = capture::read_blob(tmp.path() / "p", *pm.regions[1].before);
  uint32_t bits;
  std::memcpy(&bits, y.data(), 4);
  EXPECT_EQ(bits, 0x7FC5A5A5u);
  DeriveSummary r = derive_capture(tmp.path() / "c", tmp.path() / "r", {true, true, 7, {}});
  EXPECT_EQ(r.regions_randomised, 1u);
  capture::Manifest rm = capture::read_manifest(tmp.path() / "r");
  auto xr = capture::read_blob(tmp.path() / "r", *rm.regions[0].before);
  auto xo = capture::read_blob(tmp.path() / "c", *capture::read_manifest(tmp.path() / "c").regions[0].before);
  EXPECT_NE(std::memcmp(xr.data(), xo.data(), 64), 0);
  float v;
  std::memcpy(&v, xr.data() + 12, 4);
  EXPECT_GE(v, 0.25f);
  EXPECT_LE(v, 4.0f);
  auto types = region_element_types(tmp.path() / "c", capture::read_manifest(tmp.path() / "c"));
  EXPECT_EQ(types[1].name, "f32");
  EXPECT_EQ(types[2].name, "f32");
}

// A sorted integer region is offsets into the others (a CSR row pointer): the randomised input keeps it as captured,
// and shuffles the unsorted ones (column indices), so the structure stays valid while the values change.
TEST(OptimizeEquivalence, RandomisedInputsKeepSortedOffsetsAndShuffleOtherIntegers) {
  test::TempDir tmp;
  const fs::path dir = tmp.path() / "c";
  fs::create_directories(dir);
  capture::Manifest m;
  m.platform = "cuda";
  m.device_name = "NVIDIA H100 80GB HBM3";
  m.device_arch = "sm_90";
  m.kernel = {"_Z3segPKiS0_Pf", "seg(int const*, int const*, float*)", "seg", 1};
  m.code_object = capture::write_blob(dir, "code_object.zst", std::as_bytes(std::span(std::string_view("fake"))));
  m.code_object_format = "cubin";
  std::vector<std::byte> args(24);
  const uint64_t addr[3] = {0x10000, 0x20000, 0x30000};
  std::memcpy(args.data(), addr, 24);
  m.arguments = capture::write_blob(dir, "arguments.zst", args);
  m.parameters = {{0, 8}, {8, 8}, {16, 8}};
  std::vector<int32_t> offsets(kN), indices(kN);
  for (int i = 0; i < kN; ++i) offsets[i] = i * (i + 1) / 2, indices[i] = (i * 7) % kN;
  auto as_bytes = [](const auto& v) {
    std::vector<std::byte> b(v.size() * sizeof(v[0]));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  std::vector<float> y0(kN, 0.f), y1(kN, 1.f);
  capture::Region r1{1, addr[0], 64, "device", "", {}, {}}, r2{2, addr[1], 64, "device", "", {}, {}}, r3{3, addr[2], 64, "device", "", {}, {}};
  r1.before = capture::write_blob(dir, capture::region_blob_file(1, false), as_bytes(offsets));
  r1.after = capture::write_blob(dir, capture::region_blob_file(1, true), as_bytes(offsets));
  r2.before = capture::write_blob(dir, capture::region_blob_file(2, false), as_bytes(indices));
  r2.after = capture::write_blob(dir, capture::region_blob_file(2, true), as_bytes(indices));
  r3.before = capture::write_blob(dir, capture::region_blob_file(3, false), bytes_of(y0));
  r3.after = capture::write_blob(dir, capture::region_blob_file(3, true), bytes_of(y1));
  m.regions = {r1, r2, r3};
  capture::write_manifest(dir, m);
  auto types = region_element_types(dir, capture::read_manifest(dir));
  ASSERT_EQ(types[1].name, "i32");
  ASSERT_EQ(types[2].name, "i32");
  DeriveSummary r = derive_capture(dir, tmp.path() / "r", {true, true, 7, {}});
  EXPECT_EQ(r.regions_kept_sorted, 1u);
  EXPECT_EQ(r.regions_randomised, 1u);
  EXPECT_EQ(r.regions_poisoned, 1u);
  EXPECT_EQ(r.to_json()["regions_kept_sorted"], 1);
  capture::Manifest rm = capture::read_manifest(tmp.path() / "r");
  EXPECT_EQ(capture::read_blob(tmp.path() / "r", *rm.regions[0].before), as_bytes(offsets)) << "the offsets as captured";
  std::vector<std::byte> shuffled = capture::read_blob(tmp.path() / "r", *rm.regions[1].before);
  EXPECT_NE(shuffled, as_bytes(indices));
  std::vector<int32_t> back(kN);
  std::memcpy(back.data(), shuffled.data(), 64);
  std::sort(back.begin(), back.end());
  std::vector<int32_t> expected = indices;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(back, expected) << "the same indices, in another order";
}

TEST(OptimizeEquivalence, DumpComparisonBitExactOrWithinTolerance) {
  test::TempDir tmp;
  write_capture(tmp.path() / "c", 1);
  capture::Manifest m = capture::read_manifest(tmp.path() / "c");
  auto types = region_element_types(tmp.path() / "c", m);
  auto write = [&](const std::string& d, float y5) {
    fs::create_directories(tmp.path() / d);
    std::vector<float> x(kN, 1.f), y(kN, 2.f);
    y[5] = y5;
    std::ofstream(tmp.path() / d / "r000001.bin", std::ios::binary).write(reinterpret_cast<const char*>(x.data()), 64);
    std::ofstream(tmp.path() / d / "r000002.bin", std::ios::binary).write(reinterpret_cast<const char*>(y.data()), 64);
  };
  write("a", 2.f), write("b", std::nextafter(2.f, 3.f)), write("n", NAN);
  EXPECT_TRUE(compare_dumps(m, types, tmp.path() / "a", tmp.path() / "a", {}).equivalent);
  DumpComparison exact = compare_dumps(m, types, tmp.path() / "a", tmp.path() / "b", {});
  EXPECT_FALSE(exact.equivalent);
  EXPECT_EQ(exact.regions[1].max_ulp, 1u);
  EXPECT_EQ(exact.regions[1].elements_differing, 1u);
  EXPECT_EQ(exact.regions[1].first_difference, 20u);
  EXPECT_TRUE(compare_dumps(m, types, tmp.path() / "a", tmp.path() / "b", {1e-6, 0}).equivalent);
  EXPECT_FALSE(compare_dumps(m, types, tmp.path() / "a", tmp.path() / "n", {1e-3, 1e-3}).equivalent);
  // --rtol-scale: a correct reordered sum that cancels near 0 (x = 1e-7 among values near 1, error 2e-7) passes
  // relative to the region's RMS and fails relative to the element alone; a 1e-3 error on every element
  // (a precision downgrade) fails under both.
  {
    auto region = [&](const char* d, const std::vector<float>& v) {
      fs::create_directories(tmp.path() / d);
      std::ofstream(tmp.path() / d / "r000001.bin", std::ios::binary).write(reinterpret_cast<const char*>(v.data()), 64);
      std::ofstream(tmp.path() / d / "r000002.bin", std::ios::binary).write(reinterpret_cast<const char*>(v.data()), 64);
    };
    std::vector<float> orig(kN, 1.f), reordered(kN, 1.f), downgraded(kN);
    orig[3] = 1e-7f, reordered[3] = 3e-7f;
    for (int i = 0; i < kN; ++i) downgraded[i] = orig[i] * (1 + 1e-3f);
    region("sum", orig), region("sum2", reordered), region("low", downgraded);
    const Tolerance by_region{1e-5, 0, ToleranceScale::Region}, by_element{1e-5, 0, ToleranceScale::Element};
    DumpComparison ok = compare_dumps(m, types, tmp.path() / "sum", tmp.path() / "sum2", by_region);
    EXPECT_TRUE(ok.equivalent);
    EXPECT_NEAR(ok.regions[1].rms_magnitude, 0.968, 0.01);  // sqrt(15/16)
    EXPECT_FALSE(compare_dumps(m, types, tmp.path() / "sum", tmp.path() / "sum2", by_element).equivalent);
    EXPECT_FALSE(compare_dumps(m, types, tmp.path() / "sum", tmp.path() / "low", by_region).equivalent);
    EXPECT_FALSE(compare_dumps(m, types, tmp.path() / "sum", tmp.path() / "low", by_element).equivalent);
    EXPECT_FALSE(compare_dumps(m, types, tmp.path() / "sum", tmp.path() / "sum2", Tolerance{}).equivalent) << "exact stays exact";
  }
  // Half and bfloat16 outputs are compared within the tolerance as floats are (probe 3: an RMSNorm in bf16 whose
  // reordered reduction moved last bits was refused at any --rtol); two NaNs of different payloads are both NaN.
  for (const char* format : {"bf16", "f16"}) {
    auto halves = types;
    halves[2] = capture::ElementType{format, 2, 0};
    const bool bf16 = std::string(format) == "bf16";
    const uint16_t one = bf16 ? 0x3f80 : 0x3c00, nan = bf16 ? 0x7fc0 : 0x7e00;
    auto region = [&](const std::string& d, uint16_t e3, uint16_t e7) {
      fs::create_directories(tmp.path() / d);
      std::vector<uint16_t> v(32, one);
      v[3] = e3, v[7] = e7;
      const std::vector<float> x(kN, 1.f);  // region 1 (f32) the same everywhere
      std::ofstream(tmp.path() / d / "r000001.bin", std::ios::binary).write(reinterpret_cast<const char*>(x.data()), 64);
      std::ofstream(tmp.path() / d / "r000002.bin", std::ios::binary).write(reinterpret_cast<const char*>(v.data()), 64);
    };
    const std::string o = std::string(format) + "o", last = std::string(format) + "l", far = std::string(format) + "f";
    region(o, one, nan), region(last, one + 1, nan | 0x8000), region(far, bf16 ? 0x3f9a : 0x3ccd, nan);  // far: 1.2
    const Tolerance loose{1e-2, 0};
    DumpComparison near = compare_dumps(m, halves, tmp.path() / o, tmp.path() / last, loose);
    EXPECT_TRUE(near.equivalent) << format << " " << near.to_json().dump();
    EXPECT_EQ(near.regions[1].max_ulp, 1u) << format;
    EXPECT_FALSE(compare_dumps(m, halves, tmp.path() / o, tmp.path() / last, {}).equivalent) << format << ": exact stays exact";
    EXPECT_FALSE(compare_dumps(m, halves, tmp.path() / o, tmp.path() / far, loose).equivalent) << format << ": 20% off";
  }
  fs::remove(tmp.path() / "b" / "r000002.bin");
  DumpComparison missing = compare_dumps(m, types, tmp.path() / "a", tmp.path() / "b", {});
  EXPECT_FALSE(missing.equivalent);
  EXPECT_NE(missing.to_json().dump().find("missing in the candidate"), std::string::npos);
  EXPECT_EQ(demangled_parameters("void k<float, 2>(float const*, std::pair<int, int>*, int)").size(), 3u);
  EXPECT_EQ(pointee_element_type("__half const*")->name, "f16");
  EXPECT_FALSE(pointee_element_type("int").has_value());
  EXPECT_EQ(pointee_element_type("const float *__restrict")->name, "f32");  // the parser's canonical spelling
  EXPECT_FALSE(pointee_element_type("const type-parameter-0-0 *").has_value());
  // extern "C" kernels carry no types in their name: the source's types stand in
  capture::Manifest c = m;
  c.kernel.demangled_name = "saxpy";
  EXPECT_TRUE(region_element_types(tmp.path() / "c", c).empty());
  auto from_source = region_element_types(tmp.path() / "c", c, {"const float *__restrict", "float *", "float", "int"});
  EXPECT_EQ(from_source[1].name, "f32");
}

}  // namespace
}  // namespace rpl::optimize
