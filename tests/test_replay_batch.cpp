// Replays in one runner process (the optimizer's gates): the runner's batch form (jobs file, status lines, when
// a batch goes on after a failed job) and rocm-perf's side of it (app::run_replay_batch), with a stand-in runner:
// which job is done, failed, or left for a fresh process, in every way a batch can end.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <span>
#include <sstream>
#include <string_view>

#include "app/replay_batch.hpp"
#include "capture/blob.hpp"
#include "capture/manifest.hpp"
#include "capture/replay_runner.hpp"
#include "support/errors.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {
namespace fs = std::filesystem;
using Status = app::ReplayJobOutcome::Status;

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A small valid capture of one kernel with one 64-byte region.
void write_capture(const fs::path& dir, const std::string& platform, uint64_t address = 0x10000) {
  fs::create_directories(dir);
  capture::Manifest m;
  m.platform = platform;
  m.device_name = "NVIDIA H200";
  m.device_arch = "sm_90";
  m.kernel = {"_Z4fillPfi", "fill(float*, int)", "fill", 1};
  m.code_object = capture::write_blob(dir, "code_object.zst", std::as_bytes(std::span(std::string_view("cubin"))));
  m.code_object_format = "cubin";
  std::vector<std::byte> args(12, std::byte{0});
  m.arguments = capture::write_blob(dir, "arguments.zst", args);
  m.parameters = {{0, 8}, {8, 4}};
  capture::Region r{1, address, 64, "device", "", {}, {}};
  r.before = capture::write_blob(dir, capture::region_blob_file(1, false), std::vector<std::byte>(64, std::byte{1}));
  m.regions = {r};
  capture::write_manifest(dir, m);
}

// A stand-in CUDA runner's batch form: job i ends with the i-th code of FAKE_PLAN (a document is written for
// 0, 12 and 13), "kill" kills the runner in that job; it stops after a code the real runner stops after.
std::string fake_batch_runner(const test::TempDir& tmp) {
  std::string path = tmp.file("fake_batch_runner.py");
  std::ofstream(path) << R"(#!/usr/bin/env python3
import json, os, signal, sys
a = sys.argv
if "--jobs" not in a:
    sys.exit(2)
jobs = json.load(open(a[a.index("--jobs") + 1]))["jobs"]
status = open(a[a.index("--status") + 1], "w")
plan = os.environ["FAKE_PLAN"].split(",")
for i, job in enumerate(jobs):
    code = plan[i]
    if code == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    code = int(code)
    if code in (0, 12, 13):
        json.dump({"schema_version": "1.0", "job": i, "capture": job["capture_dir"], "gpu_time_ns": {"median": 100.0 + i}},
                  open(job["result"], "w"))
    status.write(json.dumps({"job": i, "exit": code}) + "\n")
    status.flush()
    if code not in (0, 3, 7, 12, 13):
        break
)";
  chmod(path.c_str(), 0755);
  return path;
}

std::vector<app::ReplayOptions> jobs_on(const std::string& capture_dir, int n) {
  std::vector<app::ReplayOptions> jobs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) jobs[std::size_t(i)].capture_dir = capture_dir, jobs[std::size_t(i)].iterations = unsigned(i + 1);
  return jobs;
}

struct BatchTest : ::testing::Test {
  test::TempDir tmp;
  std::string capture;
  void SetUp() override {
    capture = tmp.file("cap");
    write_capture(capture, "cuda");
    setenv("RPL_REPLAY_RUNNER", fake_batch_runner(tmp).c_str(), 1);
    setenv("TMPDIR", tmp.path().c_str(), 1);
  }
  void TearDown() override {
    unsetenv("RPL_REPLAY_RUNNER");
    unsetenv("FAKE_PLAN");
    unsetenv("TMPDIR");
  }
  // Nothing of the batch is left under TMPDIR (jobs, status and result files).
  void expect_no_temporaries() {
    for (const auto& e : fs::directory_iterator(tmp.path()))
      EXPECT_EQ(e.path().filename().string().rfind("rocm-perf-replay", 0), std::string::npos) << e.path();
  }
};

TEST_F(BatchTest, EveryJobDoneWithItsOwnDocumentAndCode) {
  setenv("FAKE_PLAN", "0,0,13", 1);
  auto out = app::run_replay_batch(jobs_on(capture, 3));
  ASSERT_EQ(out.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out[std::size_t(i)].status, Status::Done) << i;
    EXPECT_EQ(out[std::size_t(i)].outcome.document["job"], i);
  }
  EXPECT_EQ(out[2].outcome.exit_code, 13);  // a verification mismatch is documented, not a failure
  expect_no_temporaries();
}

TEST_F(BatchTest, JobsOfOneAddressLayoutRunTogetherAndComeBackInTheCallersOrder) {
  std::string other = tmp.file("other");
  write_capture(other, "cuda", 0x7f0000000000);  // another launch: another layout
  auto jobs = jobs_on(capture, 3);
  jobs[1].capture_dir = other;
  setenv("FAKE_PLAN", "0,0,0", 1);
  auto out = app::run_replay_batch(jobs);
  ASSERT_EQ(out.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(out[i].status, Status::Done) << i;
    EXPECT_EQ(out[i].outcome.document["capture"], jobs[i].capture_dir) << i;
  }
  EXPECT_EQ(out[0].outcome.document["job"], 0);
  EXPECT_EQ(out[2].outcome.document["job"], 1);  // run second, beside the first job's layout
  EXPECT_EQ(out[1].outcome.document["job"], 2);
}

TEST_F(BatchTest, RelocatedJobsAndJobsAfterAFatalFailureAreLeftForAFreshProcess) {
  setenv("FAKE_PLAN", "0,12,8,0", 1);
  auto out = app::run_replay_batch(jobs_on(capture, 4));
  EXPECT_EQ(out[0].status, Status::Done);
  EXPECT_EQ(out[1].status, Status::NotRun);  // a range this process could not have
  EXPECT_EQ(out[2].status, Status::Failed);
  EXPECT_EQ(out[2].error_code, ExitCode::ProfilerFailed);
  EXPECT_NE(out[2].error.find("exited with status 8"), std::string::npos) << out[2].error;
  EXPECT_EQ(out[3].status, Status::NotRun);  // the context may be spoiled: never judged in this process
  expect_no_temporaries();
}

TEST_F(BatchTest, ARunnerKilledMidwayFailsTheJobItWasInAndNoOther) {
  setenv("FAKE_PLAN", "0,kill,0", 1);
  auto out = app::run_replay_batch(jobs_on(capture, 3));
  EXPECT_EQ(out[0].status, Status::Done);
  EXPECT_EQ(out[1].status, Status::Failed);
  EXPECT_NE(out[1].error.find("signal"), std::string::npos) << out[1].error;
  EXPECT_NE(out[1].error.find("job 2 of 3"), std::string::npos) << out[1].error;
  EXPECT_EQ(out[2].status, Status::NotRun);
}

TEST_F(BatchTest, ARunnerWithoutTheBatchFormRunsNothingAndBlamesNoJob) {
  std::string old = tmp.file("old_runner.sh");
  std::ofstream(old) << "#!/bin/sh\necho 'unknown argument --jobs' >&2\nexit 2\n";
  chmod(old.c_str(), 0755);
  setenv("RPL_REPLAY_RUNNER", old.c_str(), 1);
  auto out = app::run_replay_batch(jobs_on(capture, 2));
  for (const auto& o : out) EXPECT_EQ(o.status, Status::NotRun);
}

TEST_F(BatchTest, OtherPlatformsAreNotBatched) {
  std::string amd = tmp.file("amd");
  write_capture(amd, "rocm");
  setenv("FAKE_PLAN", "0,0", 1);
  auto out = app::run_replay_batch(jobs_on(amd, 2));
  for (const auto& o : out) EXPECT_EQ(o.status, Status::NotRun);
}

TEST_F(BatchTest, ACorruptCaptureStopsTheBatchBeforeTheRunner) {
  fs::remove(fs::path(capture) / "arguments.zst");
  setenv("FAKE_PLAN", "0", 1);
  EXPECT_THROW(app::run_replay_batch(jobs_on(capture, 1)), Error);
}

// The runner's side.
TEST(ReplayRunnerBatch, JobsFileReadWithTheSharedOptions) {
  test::TempDir tmp;
  std::ofstream(tmp.file("jobs.json")) << R"({"jobs": [{"capture_dir": "a", "result": "ra", "iterations": 20},
                                                       {"capture_dir": "b", "code_object": "b.co", "dump_dir": "d", "result": "rb"}]})";
  capture::ReplayRunnerOptions base;
  base.jobs_file = tmp.file("jobs.json");
  base.status_file = tmp.file("status");
  base.warmup_ms = 7;
  auto jobs = capture::read_replay_jobs(base);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].capture_dir, "a");
  EXPECT_EQ(jobs[0].iterations, 20u);
  EXPECT_EQ(jobs[1].code_object, "b.co");
  EXPECT_EQ(jobs[1].dump_dir, "d");
  EXPECT_EQ(jobs[1].iterations, 1u);
  for (const auto& j : jobs) {
    EXPECT_TRUE(j.in_batch);
    EXPECT_TRUE(j.jobs_file.empty());
    EXPECT_EQ(j.warmup_ms, 7);
  }
}

TEST(ReplayRunnerBatch, BadJobsFilesAreRefusedNamingTheFile) {
  test::TempDir tmp;
  capture::ReplayRunnerOptions base;
  base.jobs_file = tmp.file("missing.json");
  try {
    capture::read_replay_jobs(base);
    FAIL() << "a missing jobs file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputMissing);
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos);
  }
  for (const char* text : {"not json", R"({"jobs": 3})", R"({"jobs": [{"capture_dir": "a"}]})",
                           R"({"jobs": [{"capture_dir": "a", "result": "r", "iterations": 0}]})"}) {
    std::ofstream(tmp.file("bad.json")) << text;
    base.jobs_file = tmp.file("bad.json");
    try {
      capture::read_replay_jobs(base);
      FAIL() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::InputInvalid) << text;
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
    }
  }
}

TEST(ReplayRunnerBatch, RunsJobsInOrderAndStopsAfterOneThatMaySpoilTheContext) {
  test::TempDir tmp;
  std::ofstream(tmp.file("jobs.json")) << R"({"jobs": [{"capture_dir": "a", "result": "ra"}, {"capture_dir": "b", "result": "rb"},
                                                       {"capture_dir": "c", "result": "rc"}, {"capture_dir": "d", "result": "rd"}]})";
  capture::ReplayRunnerOptions base;
  base.jobs_file = tmp.file("jobs.json");
  base.status_file = tmp.file("status");
  std::vector<std::string> ran;
  ::testing::internal::CaptureStderr();
  int rc = capture::run_replay_batch(base, "test_runner", "test_runner",
                                     [&](const capture::ReplayRunnerOptions& job, capture::ReplayReport&) {
                                       ran.push_back(job.capture_dir);
                                       if (job.capture_dir == "a") throw Error(ExitCode::AddressRelocation, "taken");
                                       if (job.capture_dir == "c") throw Error(ExitCode::ProfilerFailed, "illegal address");
                                     });
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(ran, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_NE(err.find("test_runner (batch job 3 of 4): illegal address"), std::string::npos) << err;
  EXPECT_EQ(read_all(tmp.file("status")), "{\"job\": 0, \"exit\": 12}\n{\"job\": 1, \"exit\": 0}\n{\"job\": 2, \"exit\": 8}\n");
  EXPECT_TRUE(capture::batch_continues_after(0));
  EXPECT_TRUE(capture::batch_continues_after(13));
  EXPECT_FALSE(capture::batch_continues_after(8));
  EXPECT_FALSE(capture::batch_continues_after(1));
}

TEST(ReplayRunnerBatch, ArgumentsOfTheBatchForm) {
  auto parse = [](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return capture::parse_replay_runner_args(int(argv.size()), argv.data(), "test_runner");
  };
  auto o = parse({"runner", "full-vm", "--jobs", "j", "--status", "s", "--warmup-ms", "3"});
  EXPECT_EQ(o.jobs_file, "j");
  EXPECT_EQ(o.status_file, "s");
  EXPECT_FALSE(o.in_batch);
  EXPECT_EXIT(parse({"runner", "full-vm", "--jobs", "j"}), ::testing::ExitedWithCode(2), "--jobs needs --status");
  EXPECT_EXIT(parse({"runner", "reserve-check", "--jobs", "j", "--status", "s"}), ::testing::ExitedWithCode(2), "full-vm");
  EXPECT_EXIT(parse({"runner", "full-vm"}), ::testing::ExitedWithCode(2), "--capture-dir is required");
}

}  // namespace
}  // namespace rpl
