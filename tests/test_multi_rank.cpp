// The analysis across the ranks of a distributed job: NCCL kernel names, rank identity, per-rank
// summaries, collective waits, stragglers, clock alignment, the cross-rank critical path and what-if,
// and the split (--rank-summary) / merge (--merge-summaries) path, on synthetic rank databases.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "analysis/collectives.hpp"
#include "analysis/multi_rank.hpp"
#include "analysis/rank_summary.hpp"
#include "app/multi_rank.hpp"
#include "model/rank_identity.hpp"
#include "app/rank_summary_file.hpp"
#include "report/multi_rank_report.hpp"
#include "store/rocpd_reader.hpp"
#include "store/rocpd_writer.hpp"
#include "store/synthetic_job.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/in_memory_trace.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {
using namespace rpl::analysis;

TEST(CollectiveKernels, NewNcclNames) {
  auto k = parse_collective_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->operation, "AllReduce");
  EXPECT_EQ(k->reduce_op, "Sum");
  EXPECT_EQ(k->data_type, "f32");
  EXPECT_EQ(k->algorithm, "RING");
  EXPECT_EQ(k->protocol, "LL");
  EXPECT_EQ(k->key, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  k = parse_collective_kernel("ncclDevKernel_ReduceScatter_Sum_bf16_COLLNET_DIRECT_LL128");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->operation, "ReduceScatter");
  EXPECT_EQ(k->data_type, "bf16");
  EXPECT_EQ(k->algorithm, "COLLNET_DIRECT");
  EXPECT_EQ(k->protocol, "LL128");
  k = parse_collective_kernel("ncclDevKernel_AllGather_RING_LL");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->operation, "AllGather");
  EXPECT_EQ(k->reduce_op, "");
  EXPECT_EQ(k->protocol, "LL");
}

TEST(CollectiveKernels, OldNcclAndRcclNamesAndGeneric) {
  auto k = parse_collective_kernel("ncclKernel_AllReduce_RING_LL_Sum_float");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->operation, "AllReduce");
  EXPECT_EQ(k->data_type, "f32");
  EXPECT_EQ(k->algorithm, "RING");
  k = parse_collective_kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->operation, "SendRecv");
  EXPECT_EQ(k->data_type, "i8");
  EXPECT_EQ(k->protocol, "SIMPLE");
  k = parse_collective_kernel("void ncclKernel_Broadcast_TREE_LL128_Sum_rccl_bfloat16(ncclDevComm*, unsigned long)");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->operation, "Broadcast");
  EXPECT_EQ(k->data_type, "bf16");
  EXPECT_EQ(k->algorithm, "TREE");
  k = parse_collective_kernel("_Z20ncclDevKernel_Generic24ncclDevKernelArgsStorageILm4096EE");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->operation, "Generic");
  EXPECT_FALSE(parse_collective_kernel("gemm(float*)"));
  EXPECT_FALSE(parse_collective_kernel("my_nccl_like_kernel"));
}

TEST(CollectiveKernels, MarkersAndPeerCopies) {
  EXPECT_EQ(nccl_call_of_marker("ncclAllReduce"), "AllReduce");
  EXPECT_EQ(nccl_call_of_marker("ncclGroupEnd"), "GroupEnd");
  EXPECT_EQ(nccl_call_of_marker("nccl"), "");
  EXPECT_EQ(nccl_call_of_marker("forward"), "");
  EXPECT_TRUE(is_peer_copy("MEMORY_COPY_PEER_TO_PEER", false));
  EXPECT_TRUE(is_peer_copy("MEMORY_COPY_DEVICE_TO_DEVICE", true));
  EXPECT_FALSE(is_peer_copy("MEMORY_COPY_DEVICE_TO_DEVICE", false));
  EXPECT_FALSE(is_peer_copy("MEMORY_COPY_HOST_TO_DEVICE", true));
}

TEST(RankIdentity, LauncherPrecedenceAndJson) {
  std::map<std::string, std::string> env = {{"SLURM_PROCID", "7"}, {"SLURM_LOCALID", "3"}, {"SLURM_NTASKS", "16"},
                                            {"CUDA_VISIBLE_DEVICES", "3"}};
  auto get = [&](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  RankIdentity id = rank_identity_from_env(get);
  EXPECT_EQ(id.rank, 7);
  EXPECT_EQ(id.local_rank, 3);
  EXPECT_EQ(id.world_size, 16);
  EXPECT_EQ(id.source, "SLURM_PROCID");
  EXPECT_EQ(id.visible_devices, "3");
  // torchrun inside an allocation: its variables describe the process.
  env["RANK"] = "1";
  env["LOCAL_RANK"] = "1";
  env["WORLD_SIZE"] = "2";
  id = rank_identity_from_env(get);
  EXPECT_EQ(id.rank, 1);
  EXPECT_EQ(id.world_size, 2);
  EXPECT_EQ(id.source, "RANK");
  env["OMPI_COMM_WORLD_RANK"] = "5";
  env.erase("RANK");
  EXPECT_EQ(rank_identity_from_env(get).source, "OMPI_COMM_WORLD_RANK");
  env["OMPI_COMM_WORLD_RANK"] = "x5";  // not a number: the next launcher
  EXPECT_EQ(rank_identity_from_env(get).source, "SLURM_PROCID");

  RankIdentity back = rank_identity_from_json(rank_identity_json(id));
  EXPECT_EQ(back.rank, id.rank);
  EXPECT_EQ(back.local_rank, id.local_rank);
  EXPECT_EQ(back.world_size, id.world_size);
  EXPECT_EQ(back.source, id.source);
  EXPECT_FALSE(rank_identity_from_json("{}").known());
  EXPECT_FALSE(rank_identity_from_json("not json").known());
  EXPECT_EQ(rank_identity_json(RankIdentity{}), "{}");
}

TEST(RankSummary, ComputeCommunicationAndOverlap) {
  test::InMemoryTrace t;
  t.add_process(10);
  Index gemm = t.add_symbol("gemm(float*)");
  Index ar = t.add_symbol("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  t.add_dispatch(gemm, 0, 100);
  t.add_dispatch(gemm, 50, 150);   // overlaps the first: compute union 0..150
  t.add_dispatch(ar, 120, 220);    // communication 120..220, overlapping compute 120..150
  t.add_dispatch(gemm, 300, 400);  // after the collective
  auto s = summarize_ranks(t.trace);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].compute_ns, 250);
  EXPECT_EQ(s[0].communication_ns, 100);
  EXPECT_EQ(s[0].overlap_ns, 30);
  EXPECT_EQ(s[0].dispatches, 4u);
  ASSERT_EQ(s[0].collectives.size(), 1u);
  ASSERT_EQ(s[0].segments.size(), 2u);
  EXPECT_EQ(s[0].segments[0].busy_ns, 200);
  EXPECT_EQ(s[0].segments[1].busy_ns, 100);
  EXPECT_EQ(s[0].names[s[0].segments[0].top_kernel], "gemm(float*)");
}

std::vector<RankSummary> summaries_of(const std::vector<std::string>& dbs, std::vector<WhatIf> what_if = {}) {
  app::RankSummaryRead read;
  read.what_if = std::move(what_if);
  return app::summarize_databases(dbs, read);
}

rocpd::SyntheticJob straggler_job(const std::string& dir) {
  rocpd::SyntheticJob job;
  job.ranks = 4;
  job.ranks_per_node = 4;
  job.steps = 40;
  job.straggler_rank = 2;
  job.straggler_delay_ns = 300000;  // 0.3 ms before each AllGather
  job.output_dir = dir;
  return job;
}

TEST(MultiRank, RankIdentityRoundTripsThroughTheDatabase) {
  test::TempDir dir;
  auto job = straggler_job(dir.path().string());
  job.steps = 2;
  auto dbs = rocpd::write_synthetic_job(job);
  Trace t;
  rocpd::read_database(t, dbs[3]);
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].rank.rank, 3);
  EXPECT_EQ(t.processes[0].rank.world_size, 4);
  EXPECT_EQ(t.processes[0].hostname, "node0");
  ASSERT_FALSE(t.agents.empty());
  EXPECT_EQ(t.agents[0].uuid, "GPU-synthetic-0003");
}

TEST(MultiRank, NamesTheStragglerAndTheCollective) {
  test::TempDir dir;
  auto dbs = rocpd::write_synthetic_job(straggler_job(dir.path().string()));
  auto s = summaries_of(dbs);
  MultiRankResult r = analyze_ranks(s);
  ASSERT_EQ(r.ranks.size(), 4u);
  ASSERT_EQ(r.stragglers.size(), 1u);
  EXPECT_EQ(r.stragglers[0].rank, 2);
  EXPECT_EQ(r.stragglers[0].collective, "ncclDevKernel_AllGather_RING_LL");
  EXPECT_GE(r.stragglers[0].last_arrivals, 8u);  // 40 steps, every 5th an AllGather (and some by chance)
  EXPECT_NEAR(r.stragglers[0].worst_wait_ns, 300000, 50000);
  EXPECT_NE(r.stragglers[0].evidence.find("on the host"), std::string::npos) << r.stragglers[0].evidence;
  // The others waited about 0.3 ms at each of the 8 AllGathers.
  for (const auto& k : r.ranks) {
    if (k.rank != 2) EXPECT_GT(k.collective_wait_ns, 8 * 250000) << k.rank;
  }
  // The straggler's own wait is small by comparison.
  EXPECT_LT(r.ranks[2].collective_wait_ns, r.ranks[0].collective_wait_ns / 2);
  EXPECT_EQ(r.collectives.front().key, "ncclDevKernel_AllGather_RING_LL");
  EXPECT_EQ(r.collectives.front().info.operation, "AllGather");
  // The critical path goes through rank 2 most.
  ASSERT_FALSE(r.critical_path.hotspots.empty());
  EXPECT_EQ(r.critical_path.hotspots.front().rank, 2);
  // Its delay was idle time, not a kernel: the path says so.
  TimeNs idle_on_path = 0;
  for (const auto& h : r.critical_path.hotspots)
    if (h.rank == 2 && h.kernel.empty()) idle_on_path = h.ns;
  EXPECT_GT(idle_on_path, 8 * 250000);
  EXPECT_EQ(r.critical_path.joins, 40u);
  EXPECT_NEAR(static_cast<double>(r.critical_path.modeled_ns), static_cast<double>(r.critical_path.measured_ns),
              0.02 * static_cast<double>(r.critical_path.measured_ns));
}

TEST(MultiRank, BalancedJobHasNoStraggler) {
  test::TempDir dir;
  auto job = straggler_job(dir.path().string());
  job.straggler_rank = -1;
  auto s = summaries_of(rocpd::write_synthetic_job(job));
  MultiRankResult r = analyze_ranks(s);
  EXPECT_TRUE(r.stragglers.empty()) << r.stragglers.front().evidence;
  EXPECT_TRUE(r.warnings.empty());
}

TEST(MultiRank, AlignsSkewedNodeClocks) {
  test::TempDir dir;
  auto job = straggler_job(dir.path().string());
  job.ranks_per_node = 2;  // node0: ranks 0, 1; node1: ranks 2, 3
  job.node_clock_skew_ns = 5'000'000;  // node1's clock is 5 ms ahead
  auto dbs = rocpd::write_synthetic_job(job);
  auto s = summaries_of(dbs);
  MultiRankResult r = analyze_ranks(s);
  ASSERT_EQ(r.clock_offsets.size(), 2u);
  const ClockOffset& node1 = r.clock_offsets[0].host == "node1" ? r.clock_offsets[0] : r.clock_offsets[1];
  EXPECT_TRUE(node1.applied);
  EXPECT_NEAR(node1.offset_ns, -5'000'000, 1000);
  EXPECT_LT(node1.spread_ns, 1000);
  EXPECT_EQ(node1.samples, 80u);  // 2 ranks x 40 collectives
  ASSERT_EQ(r.stragglers.size(), 1u);
  EXPECT_EQ(r.stragglers[0].rank, 2);

  // Without alignment, node1's ranks look 5 ms late at every collective: rank 2 or 3 would be blamed for
  // everything, and rank 0 waits ~40 x 5 ms.
  auto raw = summaries_of(dbs);
  MultiRankOptions o;
  o.align_clocks = false;
  MultiRankResult unaligned = analyze_ranks(raw, o);
  EXPECT_GT(unaligned.ranks[0].collective_wait_ns, 40 * 4'000'000);
  EXPECT_LT(r.ranks[0].collective_wait_ns, 8 * 400000);
}

TEST(MultiRank, RanksWithoutRecordedIdentityAreNumbered) {
  test::TempDir dir;
  auto job = straggler_job(dir.path().string());
  job.record_rank = false;
  auto s = summaries_of(rocpd::write_synthetic_job(job));
  MultiRankResult r = analyze_ranks(s);
  ASSERT_EQ(r.ranks.size(), 4u);
  EXPECT_FALSE(r.ranks[0].rank_recorded);
  EXPECT_EQ(r.ranks[3].rank, 3);
  EXPECT_EQ(r.ranks[2].pid, 50002);  // (host, pid) order
  ASSERT_FALSE(r.warnings.empty());
}

TEST(MultiRank, WhatIfRetimesAcrossRanks) {
  test::TempDir dir;
  auto dbs = rocpd::write_synthetic_job(straggler_job(dir.path().string()));
  auto s = summaries_of(dbs, {parse_what_if("gemm=0.5"), parse_what_if("AllGather=0.001"), parse_what_if("nothing=0.1")});
  MultiRankResult r = analyze_ranks(s);
  ASSERT_EQ(r.what_if.size(), 3u);
  // gemm is ~5 x 50 us of each ~300 us step: about a third of the job.
  EXPECT_LT(r.what_if[0].predicted_ns, r.what_if[0].baseline_ns * 0.8);
  EXPECT_GT(r.what_if[0].predicted_ns, r.what_if[0].baseline_ns * 0.5);
  // Free AllGathers save their real time only (8 x 20 us), not the straggler's delay before them.
  EXPECT_NEAR(static_cast<double>(r.what_if[1].baseline_ns - r.what_if[1].predicted_ns), 8 * 20000.0, 8 * 2000.0);
  EXPECT_EQ(r.what_if[2].predicted_ns, r.what_if[2].baseline_ns);
}

TEST(MultiRank, SummariesRoundTripAndMergeGivesTheSameAnswer) {
  test::TempDir dir;
  auto dbs = rocpd::write_synthetic_job(straggler_job(dir.path().string()));
  auto direct = summaries_of(dbs);
  // One summary document per rank, as a job array would write them, merged.
  std::vector<RankSummary> merged;
  for (const auto& db : dbs) {
    nlohmann::json doc = app::rank_summaries_document(summaries_of({db}));
    auto back = app::rank_summaries_from_document(nlohmann::json::parse(doc.dump()), db);
    for (auto& b : back) merged.push_back(std::move(b));
  }
  nlohmann::json a = report::multi_rank_document(analyze_ranks(direct));
  nlohmann::json b = report::multi_rank_document(analyze_ranks(merged));
  EXPECT_EQ(a, b);
  EXPECT_THROW(app::rank_summaries_from_document(nlohmann::json::object(), "x.json"), Error);
}

TEST(MultiRankCli, DirectoryAnalysisSplitMergeAndSchemas) {
  test::TempDir dir;
  auto job = straggler_job(dir.file("job"));
  auto dbs = rocpd::write_synthetic_job(job);
  auto direct = test::run_cli({"analyze", dir.file("job"), "-o", dir.file("out"), "--perfetto", "--json"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  nlohmann::json d = nlohmann::json::parse(direct.out);
  EXPECT_EQ(d["stragglers"][0]["rank"], 2);
  EXPECT_EQ(test::validate_against_schema("multi-rank", dir.file("out/multi_rank.json")), "");
  EXPECT_NE(test::read_file(dir.file("out/multi_rank.html")).find("rank 2"), std::string::npos);
  nlohmann::json perfetto = nlohmann::json::parse(test::read_file(dir.file("out/multi_rank.perfetto.json")));
  std::set<int64_t> pids;
  for (const auto& e : perfetto["traceEvents"]) pids.insert(e["pid"].get<int64_t>());
  EXPECT_EQ(pids, (std::set<int64_t>{0, 1, 2, 3}));

  std::vector<std::string> merge_args = {"analyze", "--merge-summaries", "-o", dir.file("merged"), "--json"};
  for (std::size_t i = 0; i < dbs.size(); ++i) {
    const std::string summary = dir.file("rank" + std::to_string(i) + ".summary.json");
    auto one = test::run_cli({"analyze", "--ranks", dbs[i], "--rank-summary", summary});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(test::validate_against_schema("rank-summary", summary), "");
    merge_args.push_back(summary);
  }
  // the launcher's own database (torchrun's agent: a process that ran no GPU work) in the same job array gives an
  // empty summary, not an error, and the merge is unchanged by it
  {
    test::InMemoryTrace launcher;
    launcher.add_process(4242);
    launcher.trace.processes[0].guid = "0b6e1a52-2f4c-4d7e-9a31-5c2d7e8f9a10";
    rocpd::write_process(launcher.trace, 0, dir.file("launcher.db"));
    const std::string summary = dir.file("launcher.summary.json");
    auto one = test::run_cli({"analyze", "--ranks", dir.file("launcher.db"), "--rank-summary", summary});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_NE(one.err.find("ran no GPU work"), std::string::npos) << one.err;
    EXPECT_EQ(test::validate_against_schema("rank-summary", summary), "");
    merge_args.push_back(summary);
    // alone, it is still no job
    auto alone = test::run_cli({"analyze", "--merge-summaries", summary, "-o", dir.file("alone")});
    EXPECT_NE(alone.exit_code, 0);
    EXPECT_NE(alone.err.find("no rank"), std::string::npos) << alone.err;
  }
  auto merged = test::run_cli(merge_args);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(nlohmann::json::parse(merged.out), d);

  auto terminal = test::run_cli({"analyze", dir.file("job"), "-o", dir.file("out2")});
  ASSERT_EQ(terminal.exit_code, 0) << terminal.err;
  EXPECT_NE(terminal.out.find("rank 2: rank 2 arrived last"), std::string::npos) << terminal.out;

  auto bad = test::run_cli({"analyze", "--merge-summaries", dbs[0]});
  EXPECT_NE(bad.exit_code, 0);
}

}  // namespace
}  // namespace rpl
