// Collectives by communicator (issue 31): the library's calls linked to kernels, instances matched per
// communicator (and why name-and-order matching is wrong with several communicators), bus bandwidth against
// the link peak, stragglers per communicator, refusal of inconsistent traces, the plugin's file, the
// topology parse, the store round trip, and the plugin itself driven through NCCL's interface.
#include <dlfcn.h>
#include <fmt/core.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>

#include "analysis/collective_calls.hpp"
#include "analysis/multi_rank.hpp"
#include "analysis/rank_summary.hpp"
#include "collectors/nvidia/nccl_profile_file.hpp"
#include "collectors/nvidia/nccl_profiler/nccl_profiler_abi.hpp"
#include "store/rocpd_collective_calls.hpp"
#include "store/rocpd_reader.hpp"
#include "store/rocpd_writer.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/in_memory_trace.hpp"
#include "testing/tmpdir.hpp"
#include "testing/tp_dp_job.hpp"

namespace rpl {
namespace {
using namespace rpl::analysis;

MultiRankResult analyze(const Trace& t, std::vector<WhatIf> what_if = {}) {
  RankSummaryOptions o;
  o.what_if = std::move(what_if);
  auto s = summarize_ranks(t, o);
  return analyze_ranks(s);
}

const CommunicatorReport& comm(const MultiRankResult& r, uint64_t id) {
  for (const auto& c : r.communicators)
    if (c.id == fmt::format("0x{:016x}", id)) return c;
  throw std::runtime_error("no communicator " + std::to_string(id));
}

TEST(CollectiveCalls, LinksCallGroupsToKernelsInLaunchOrder) {
  test::InMemoryTrace t;
  t.add_process(1);
  Index ar = t.add_symbol("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  Index ag = t.add_symbol("ncclDevKernel_AllGather_RING_LL");
  std::vector<Index> kernels;
  for (auto [sym, at] : {std::pair{ar, 100}, {ag, 200}, {ar, 300}}) {
    t.add_dispatch(sym, at, at + 50);
    kernels.push_back(static_cast<Index>(t.trace.dispatches.size() - 1));
  }
  auto call = [&](const char* op, TimeNs at, int size, uint64_t group, uint64_t bytes = 1024) {
    CollectiveCall c;
    c.process = 0, c.comm_id = 7, c.comm_size = size, c.comm_rank = 0, c.operation = op;
    c.bytes = bytes, c.start = at, c.group = group;
    t.trace.collective_calls.push_back(c);
  };
  call("AllReduce", 90, 2, 0);
  call("AllReduce", 95, 1, 0);       // a communicator of one rank launches no kernel
  call("AllGather", 190, 2, 5);      // two calls of one group on one communicator: one kernel
  call("AllGather", 191, 2, 5);
  call("AllReduce", 290, 2, 0);
  call("AllReduce", 390, 2, 0);      // no kernel was traced for it
  CallLinks l = link_collective_calls(t.trace, 0, kernels);
  ASSERT_EQ(l.calls_of_kernel.size(), 3u);
  EXPECT_EQ(l.calls_of_kernel[0], (std::vector<Index>{0}));
  EXPECT_EQ(l.calls_of_kernel[1], (std::vector<Index>{2, 3}));
  EXPECT_EQ(l.calls_of_kernel[2], (std::vector<Index>{4}));
  EXPECT_EQ(l.unlinked_calls, 1u);
  EXPECT_EQ(l.unlinked_kernels, 0u);
  // A call whose kernel is missing in the middle: skipped, the rest still pair up by operation.
  t.trace.collective_calls.erase(t.trace.collective_calls.begin() + 5);
  t.trace.collective_calls[0].operation = "Broadcast";  // the first kernel ran no broadcast
  l = link_collective_calls(t.trace, 0, kernels);
  EXPECT_TRUE(l.calls_of_kernel[0].empty());
  EXPECT_EQ(l.calls_of_kernel[1], (std::vector<Index>{2, 3}));
  EXPECT_EQ(l.unlinked_kernels, 1u);
}

TEST(CollectiveCalls, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("AllReduce", 4), 1.5);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("AllReduce", 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("AllGather", 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("ReduceScatter", 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("Broadcast", 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("Send", 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor("Mystery", 2), 0.0);
  EXPECT_EQ(algorithm_bytes("AllGather", 1000, 4), 4000u);
  EXPECT_EQ(algorithm_bytes("ReduceScatter", 1000, 4), 4000u);
  EXPECT_EQ(algorithm_bytes("AllReduce", 1000, 4), 1000u);
}

TEST(Communicators, TensorByDataParallelJobIsMatchedPerCommunicator) {
  test::TpDpJob job;
  job.slow_group_extra_gemms = 2;  // group {2,3} is slower
  const Trace t = test::make_tp_dp_job(job);
  const MultiRankResult r = analyze(t);
  EXPECT_EQ(r.matching, "communicator");
  ASSERT_EQ(r.communicators.size(), 4u);
  // Each instance joins only its communicator's members.
  for (const auto& c : r.collectives) {
    EXPECT_EQ(c.ranks, 2u) << c.key;
    EXPECT_EQ(c.instances, static_cast<std::size_t>(job.steps)) << c.key;
    EXPECT_FALSE(c.communicator.empty());
  }
  // Bus bandwidth (AllReduce over 2 ranks: factor 1): bytes / transfer time, against the 450 GB/s NVLink peak.
  const auto& tp0 = comm(r, test::tp_comm_id(0));
  ASSERT_EQ(tp0.operations.size(), 1u);
  EXPECT_EQ(tp0.ranks, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(tp0.link_kind, "nvlink");
  EXPECT_DOUBLE_EQ(tp0.link_peak_gb_per_s, 450);
  EXPECT_EQ(tp0.operations[0].bytes_min, job.tp_bytes);
  EXPECT_NEAR(tp0.operations[0].busbw_gb_per_s, double(job.tp_bytes) / double(job.tp_real_ns), 1e-9);
  EXPECT_NEAR(tp0.operations[0].busbw_median_gb_per_s, double(job.tp_bytes) / double(job.tp_real_ns), 1e-9);
  EXPECT_EQ(tp0.operations[0].algorithm, "RING");
  // 8 MiB in 40 us = 209.7 GB/s, 47% of 450: below the 50% share, a finding; 32 MiB in 100 us = 75%: none.
  ASSERT_EQ(tp0.findings.size(), 1u);
  EXPECT_NE(tp0.findings[0].find("bus bandwidth 209.7 GB/s is 47% of the nvlink peak"), std::string::npos)
      << tp0.findings[0];
  const auto& dp0 = comm(r, test::dp_comm_id(0));
  EXPECT_NEAR(dp0.operations[0].link_share, double(job.dp_bytes) / double(job.dp_real_ns) / 450, 1e-9);
  // The straggler: inside the data-parallel communicators the slow group's member; none inside a group.
  EXPECT_EQ(tp0.straggler, -1);
  EXPECT_EQ(tp0.wait_ns, 500 * job.steps);  // only the 0.5 us skew inside the group
  EXPECT_EQ(comm(r, test::tp_comm_id(1)).straggler, -1);
  EXPECT_EQ(dp0.straggler, 2);
  EXPECT_EQ(comm(r, test::dp_comm_id(1)).straggler, 3);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].find("ranks 2, 3, all the members of communicator 0x0000000000001001"), std::string::npos)
      << r.findings[0];
  // The job-wide stragglers are the slow group's members, and the evidence looks past their group's own
  // all-reduce to the GEMMs before it (their time since their previous data-parallel call).
  ASSERT_EQ(r.stragglers.size(), 2u);
  for (const auto& st : r.stragglers) {
    EXPECT_TRUE(st.rank == 2 || st.rank == 3) << st.rank;
    EXPECT_EQ(st.communicator, fmt::format("0x{:016x}", test::dp_comm_id(static_cast<int>(st.rank % 2))));
    EXPECT_EQ(st.top_kernel, "gemm_bf16");
    EXPECT_NE(st.evidence.find("the extra time is GPU work"), std::string::npos) << st.evidence;
    EXPECT_NEAR(double(st.own_busy_ns - 4 * job.gemm_ns), double(2 * job.gemm_ns), 1.0) << st.evidence;
  }
  // The join model with per-communicator joins reproduces the job.
  EXPECT_NEAR(double(r.critical_path.modeled_ns), double(r.critical_path.measured_ns),
              1e-3 * double(r.critical_path.measured_ns));
}

TEST(Communicators, NameAndOrderPairsTheWrongInstancesPerCommunicatorDoesNot) {
  // Group {2,3} runs two tensor-parallel all-reduces per step (uneven stages), group {0,1} one; every
  // all-reduce has the same kernel name.
  test::TpDpJob job;
  job.group1_tp_calls = 2;
  job.record_calls = false;
  const Trace by_name = test::make_tp_dp_job(job);
  const MultiRankResult wrong = analyze(by_name);
  EXPECT_EQ(wrong.matching, "name and order");
  ASSERT_EQ(wrong.collectives.size(), 1u);
  // The k-th AllReduce of rank 0 (alternately its group's and its data-parallel one) is joined with the k-th
  // of ranks 2 and 3 (mostly their group's): four ranks at a two-rank collective, counts that differ.
  EXPECT_EQ(wrong.collectives[0].ranks, 4u);
  EXPECT_TRUE(wrong.collectives[0].counts_differ);
  const double wrong_error = std::abs(double(wrong.critical_path.modeled_ns - wrong.critical_path.measured_ns)) /
                             double(wrong.critical_path.measured_ns);

  job.record_calls = true;
  const Trace by_comm = test::make_tp_dp_job(job);
  const MultiRankResult right = analyze(by_comm);
  EXPECT_EQ(right.matching, "communicator");
  for (const auto& c : right.collectives) EXPECT_EQ(c.ranks, 2u) << c.key;
  EXPECT_EQ(comm(right, test::tp_comm_id(1)).instances, 2u * job.steps);
  EXPECT_EQ(comm(right, test::tp_comm_id(0)).instances, 1u * job.steps);
  const double right_error = std::abs(double(right.critical_path.modeled_ns - right.critical_path.measured_ns)) /
                             double(right.critical_path.measured_ns);
  EXPECT_LT(right_error, 1e-3);
  EXPECT_GT(wrong_error, 10 * right_error + 0.01) << "name-and-order modelled the job within " << wrong_error;
}

TEST(Communicators, WhatIfJoinsOnlyTheCommunicator) {
  test::TpDpJob job;
  job.slow_group_extra_gemms = 2;
  const MultiRankResult r = analyze(test::make_tp_dp_job(job), {{"gemm", 0.5}});
  ASSERT_EQ(r.what_if.size(), 1u);
  job.gemm_factor = 0.5;  // the rerun
  const TimeNs rerun = test::tp_dp_job_span(test::make_tp_dp_job(job));
  EXPECT_NEAR(double(r.what_if[0].predicted_ns), double(rerun), 0.01 * double(rerun));
}

TEST(Communicators, InconsistentTracesAreRefused) {
  test::TpDpJob job;
  auto expect_refused = [](Trace t, const std::string& words) {
    auto s = summarize_ranks(t);
    try {
      analyze_ranks(s);
      ADD_FAILURE() << "accepted; expected: " << words;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::InputInvalid);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  {  // two processes claiming the same rank of a communicator
    Trace t = test::make_tp_dp_job(job);
    for (auto& c : t.collective_calls)
      if (c.process == 1 && c.comm_id == test::tp_comm_id(0)) c.comm_rank = 0;
    expect_refused(t, "both say they are its rank 0");
  }
  {  // members disagreeing on a call's count
    Trace t = test::make_tp_dp_job(job);
    for (auto& c : t.collective_calls)
      if (c.process == 3 && c.comm_id == test::dp_comm_id(1) && c.sequence == 4) c.count += 1;
    expect_refused(t, "its call #4 is AllReduce of");
  }
  {  // members disagreeing on the communicator's size
    Trace t = test::make_tp_dp_job(job);
    for (auto& c : t.collective_calls)
      if (c.process == 2 && c.comm_id == test::tp_comm_id(1)) c.comm_size = 3, c.comm_rank = 0;
    expect_refused(t, "says it has 3 ranks");
  }
}

TEST(NcclProfileFile, ParsesCallsAndRefusesBadLines) {
  const std::string good =
      "rpl-nccl-profile\t1\tv4\n"
      "C\t0x00000000000000ab\t2\t1\t1\n"
      "E\t0x00000000000000ab\t2\t1\t1\tc\t7\tAllReduce\t1048576\tncclBfloat16\t0\t-1\tRing\tSimple\t16\t3\t100\t200\n"
      "E\t0x00000000000000ab\t2\t1\t1\tp\t0\tSend\t256\tncclFloat32\t-1\t0\t\t\t2\t4\t300\t400\n"
      "E\t0x00000000000000ab\t2\t1\t1\tc\t8\tAllRe";  // cut short by a crash
  auto calls = collectors::parse_nccl_profile(good, "x.rplnccl");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].comm_id, 0xabu);
  EXPECT_EQ(calls[0].comm_size, 2);
  EXPECT_EQ(calls[0].comm_rank, 1);
  EXPECT_EQ(calls[0].sequence, 7u);
  EXPECT_EQ(calls[0].data_type, "bf16");
  EXPECT_EQ(calls[0].bytes, 2u * 1048576);
  EXPECT_EQ(calls[0].root, -1);  // NCCL passes 0 for collectives without a root; only Broadcast/Reduce keep it
  EXPECT_EQ(calls[0].algorithm, "RING");
  EXPECT_EQ(calls[0].protocol, "SIMPLE");
  EXPECT_EQ(calls[0].group, 3u);
  EXPECT_EQ(calls[1].operation, "Send");
  EXPECT_EQ(calls[1].peer, 0);
  EXPECT_EQ(calls[1].bytes, 1024u);
  EXPECT_THROW(collectors::parse_nccl_profile("something else\n", "x"), Error);
  try {
    collectors::parse_nccl_profile("rpl-nccl-profile\t1\tv4\nE\tzz\t2\t1\t1\tc\t7\tAllReduce\t1\tncclInt8\t0\t-1\tRing\t"
                                   "LL\t1\t0\t1\t2\n",
                                   "bad.rplnccl");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.rplnccl:2"), std::string::npos) << e.what();
  }
}

TEST(NcclProfileFile, ParsesNvidiaSmiTopology) {
  const std::string text =
      "== nvidia-smi -L\n"
      "GPU 0: NVIDIA H200 (UUID: GPU-aaaa)\nGPU 1: NVIDIA H200 (UUID: GPU-bbbb)\n"
      "== nvidia-smi topo -m\n"
      "\t\x1b[4mGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
      "GPU0\t X \tNV18\tSYS\t0-15\t0\t\tN/A\n"
      "GPU1\tNV18\t X \tSYS\t0-15\t0\t\tN/A\n"
      "NIC0\tSYS\tSYS\t X \t\t\t\t\n"
      "== nvidia-smi nvlink -s\n"
      "GPU 0: NVIDIA H200 (UUID: GPU-aaaa)\n\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n\t Link 2: <inactive>\n"
      "GPU 1: NVIDIA H200 (UUID: GPU-bbbb)\n\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n"
      "== nvidia-smi --query-gpu=uuid,pcie.link.gen.max,pcie.link.width.max --format=csv,noheader\n"
      "GPU-aaaa, 5, 16\nGPU-bbbb, 5, 16\n";
  auto links = collectors::parse_nvidia_topology(text);
  int own_nvlink = 0, pair = 0, pcie = 0;
  for (const auto& l : links) {
    if (l.kind == "nvlink" && l.peer_uuid.empty()) {
      ++own_nvlink;
      EXPECT_EQ(l.links, 2u);
      EXPECT_NEAR(l.gb_per_s, 53.124, 1e-9);
    } else if (l.kind == "nvlink") {
      ++pair;
      EXPECT_EQ(l.links, 18u);
      EXPECT_NEAR(l.gb_per_s, 18 * 26.562, 1e-9);
    } else if (l.kind == "pcie") {
      ++pcie;
      EXPECT_NEAR(l.gb_per_s, 16 * 3.938, 1e-9);
    }
  }
  EXPECT_EQ(own_nvlink, 2);
  EXPECT_EQ(pair, 2);
  EXPECT_EQ(pcie, 2);
}

TEST(NcclProfileFile, CallsAndLinksRoundTripThroughTheDatabase) {
  test::TempDir dir;
  test::TpDpJob job;
  job.steps = 3;
  const Trace t = test::make_tp_dp_job(job);
  const std::string db = dir.file("rank1.db");
  rocpd::write_process(t, 1, db);
  Trace back;
  rocpd::read_database(back, db);
  std::vector<CollectiveCall> want;
  for (const auto& c : t.collective_calls)
    if (c.process == 1) want.push_back(c);
  ASSERT_EQ(back.collective_calls.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(back.collective_calls[i].comm_id, want[i].comm_id);
    EXPECT_EQ(back.collective_calls[i].sequence, want[i].sequence);
    EXPECT_EQ(back.collective_calls[i].bytes, want[i].bytes);
    EXPECT_EQ(back.collective_calls[i].operation, want[i].operation);
  }
  EXPECT_EQ(back.gpu_links.size(), 4u);
}

TEST(NcclProfilerPlugin, RecordsCallsThroughNcclsInterface) {
  const std::string so = std::string(RPL_BUILD_DIR) + "/src/cli/librpl_nccl_profiler.so";
  void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  test::TempDir dir;
  setenv("RPL_TRACE_DIR", dir.path().c_str(), 1);
  using Descr = nccl_abi::DescrV4;
  using V4 = nccl_abi::ProfilerV4;
  auto* v4 = static_cast<V4*>(dlsym(h, "ncclProfiler_v4"));
  ASSERT_NE(v4, nullptr);
  ASSERT_NE(dlsym(h, "ncclProfiler_v5"), nullptr);
  void* ctx = nullptr;
  int mask = 0;
  ASSERT_EQ(v4->init(&ctx, &mask, "tp", 0x1234, 1, 2, 1, nullptr), 0);
  EXPECT_EQ(mask & 7, 7);  // groups, collectives, point-to-point
  Descr group{};
  group.type = nccl_abi::kGroup;
  void* g = nullptr;
  v4->startEvent(ctx, &g, &group);
  Descr d{};
  d.type = nccl_abi::kColl;
  d.parentObj = g;
  d.coll = {5, "AllReduce", nullptr, nullptr, 4096, 0, "ncclFloat32", 8, 16, "Ring", "LL"};
  void* e = nullptr;
  v4->startEvent(ctx, &e, &d);
  EXPECT_EQ(e, nullptr);  // calls are written when they start and need no handle
  v4->stopEvent(g);
  v4->finalize(ctx);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::ifstream in(dir.file(std::string(host) + "/" + std::to_string(getpid()) + ".rplnccl"));
  std::stringstream text;
  text << in.rdbuf();
  auto calls = collectors::parse_nccl_profile(text.str(), "plugin output");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].comm_id, 0x1234u);
  EXPECT_EQ(calls[0].comm_size, 2);
  EXPECT_EQ(calls[0].comm_rank, 1);
  EXPECT_EQ(calls[0].sequence, 5u);
  EXPECT_EQ(calls[0].bytes, 4u * 4096);
  EXPECT_EQ(calls[0].algorithm, "RING");
  EXPECT_NE(calls[0].group, 0u);
  EXPECT_GT(calls[0].start, 0);
  EXPECT_EQ(calls[0].end, 0);  // written when the call starts
}

}  // namespace
}  // namespace rpl

namespace rpl {
namespace {

TEST(NcclProfileFile, AttachStoresThePluginFileAndTopologyInTheDatabase) {
  test::TempDir dir;
  test::TpDpJob job;
  job.steps = 2;
  job.record_calls = false;
  job.record_links = false;
  const Trace t = test::make_tp_dp_job(job);
  const std::string db = dir.file("77_results.db");
  rocpd::write_process(t, 0, db);
  {
    std::ofstream f(dir.file("77.rplnccl"));
    f << "rpl-nccl-profile\t1\tv5\nC\t0x0000000000001000\t2\t0\t1\n"
         "E\t0x0000000000001000\t2\t0\t1\tc\t0\tAllReduce\t4194304\tncclBfloat16\t0\t-1\tRing\tLL\t8\t1\t10\t0\n"
         "E\t0x0000000000001000\t2\t0\t1\tc\t1\tAllReduce\t4194304\tncclBfloat16\t0\t-1\tRing\tLL\t8\t2\t20\t0\n";
    std::ofstream topo(dir.file("gpu_topology.txt"));
    topo << "== nvidia-smi nvlink -s\nGPU 0: NVIDIA H200 (UUID: GPU-test-0)\n\t Link 0: 26.562 GB/s\n";
  }
  EXPECT_EQ(collectors::attach_nccl_records(db, dir.path().string(), 77), 2u);
  EXPECT_FALSE(std::filesystem::exists(dir.file("77.rplnccl")));  // stored: removed
  EXPECT_TRUE(std::filesystem::exists(dir.file("gpu_topology.txt")));  // shared by the processes: kept
  Trace back;
  rocpd::read_database(back, db);
  ASSERT_EQ(back.collective_calls.size(), 2u);
  EXPECT_EQ(back.collective_calls[1].sequence, 1u);
  EXPECT_EQ(back.collective_calls[1].bytes, 8u << 20);
  ASSERT_EQ(back.gpu_links.size(), 1u);
  EXPECT_EQ(back.gpu_links[0].gpu_uuid, "GPU-test-0");
  // Its two AllReduce kernels are linked to the two calls.
  auto s = analysis::summarize_ranks(back);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].calls_recorded, 2u);
  EXPECT_EQ(s[0].calls_unlinked, 0u);
  ASSERT_EQ(s[0].collectives.size(), 4u);
  EXPECT_EQ(s[0].collectives[0].comm, 1u);
  EXPECT_EQ(s[0].collectives[1].comm, 1u);
  EXPECT_EQ(s[0].collectives[2].comm, 0u);  // no call recorded for the others
}

}  // namespace
}  // namespace rpl

namespace rpl {
namespace {

TEST(CollectivesCli, CommunicatorsInJsonHtmlPerfettoAndTheSummaryMerge) {
  test::TempDir dir;
  test::TpDpJob job;
  job.slow_group_extra_gemms = 2;
  const Trace t = test::make_tp_dp_job(job);
  std::filesystem::create_directories(dir.file("job/node0"));
  std::vector<std::string> merge = {"analyze", "--merge-summaries", "-o", dir.file("merged"), "--json"};
  for (Index r = 0; r < 4; ++r) {
    const std::string db = dir.file("job/node0/rank") + std::to_string(r) + ".db";
    rocpd::write_process(t, r, db);
    const std::string summary = dir.file("rank") + std::to_string(r) + ".summary.json";
    auto one = test::run_cli({"analyze", "--ranks", db, "--rank-summary", summary});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(test::validate_against_schema("rank-summary", summary), "");
    merge.push_back(summary);
  }
  auto direct = test::run_cli({"analyze", dir.file("job"), "-o", dir.file("out"), "--perfetto", "--json"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_EQ(test::validate_against_schema("multi-rank", dir.file("out/multi_rank.json")), "");
  nlohmann::json d = nlohmann::json::parse(direct.out);
  EXPECT_EQ(d["matching"], "communicator");
  ASSERT_EQ(d["communicators"].size(), 4u);
  EXPECT_EQ(d["communicators"][2]["id"], "0x0000000000002000");
  EXPECT_EQ(d["communicators"][2]["straggler"], 2);
  EXPECT_EQ(d["communicators"][2]["operations"][0]["bytes_max"], job.dp_bytes);
  EXPECT_NEAR(d["communicators"][2]["operations"][0]["busbw_gb_per_s"].get<double>(),
              double(job.dp_bytes) / double(job.dp_real_ns), 1e-6);
  ASSERT_EQ(d["findings"].size(), 1u);
  const std::string html = test::read_file(dir.file("out/multi_rank.html"));
  EXPECT_NE(html.find("<h2>Communicators</h2>"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"communicators\">"), std::string::npos);
  EXPECT_NE(html.find("0x0000000000001001"), std::string::npos);
  // Perfetto: one track per communicator per rank, its slices named by operation with the call's bytes.
  nlohmann::json perfetto = nlohmann::json::parse(test::read_file(dir.file("out/multi_rank.perfetto.json")));
  std::set<std::pair<int64_t, std::string>> tracks;
  std::size_t slices = 0;
  for (const auto& e : perfetto["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name")
      tracks.insert({e["pid"].get<int64_t>(), e["args"]["name"].get<std::string>()});
    if (e["ph"] == "X" && e["name"] == "AllReduce" && e.contains("args")) {
      ++slices;
      EXPECT_TRUE(e["args"]["bytes"] == job.tp_bytes || e["args"]["bytes"] == job.dp_bytes);
    }
  }
  EXPECT_EQ(tracks.size(), 8u);  // 4 ranks x (their tensor- and data-parallel communicators)
  EXPECT_TRUE(tracks.count({2, "communicator 0x0000000000002000 (rank 1 of 2)"}));
  EXPECT_EQ(slices, 4u * 2 * job.steps);
  // The summaries carry the calls: the merge gives the same communicators.
  auto merged = test::run_cli(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  nlohmann::json m = nlohmann::json::parse(merged.out);
  EXPECT_EQ(m["communicators"], d["communicators"]);
  EXPECT_EQ(m["matching"], "communicator");
  // The terminal names them too.
  auto terminal = test::run_cli({"analyze", dir.file("job"), "-o", dir.file("terminal")});
  ASSERT_EQ(terminal.exit_code, 0) << terminal.err;
  EXPECT_NE(terminal.out.find("Communicators (instances matched per communicator"), std::string::npos) << terminal.out;
  EXPECT_NE(terminal.out.find("straggler rank 3"), std::string::npos) << terminal.out;
}

}  // namespace
}  // namespace rpl
