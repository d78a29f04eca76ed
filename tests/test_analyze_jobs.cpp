// `analyze --jobs N` (issue 32): several databases read at once and merged in order, the independent analyses
// side by side. Whatever N, the trace, the outputs, the log lines and the errors are those of --jobs 1; invalid
// values are refused.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/trace_append.hpp"
#include "store/rocpd_collective_calls.hpp"
#include "store/rocpd_device_metrics.hpp"
#include "store/rocpd_reader.hpp"
#include "store/synthetic_job.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/ordered_parallel.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

// Every record of a trace as text, every field, in table order: two traces are the same when their texts are.
std::string dump(const Trace& t) {
  std::string out;
  auto line = [&](const std::string& s) { out += s, out += '\n'; };
  for (Index s = 0; s < t.strings.size(); ++s) line(fmt::format("string {} {}", s, t.strings.at(s)));
  for (const Process& p : t.processes)
    line(fmt::format("process {} {} {} {} {} {} {} {} {}", p.guid, p.source_file, p.pid, p.ppid, p.hostname, p.command,
                     p.start, p.end, p.rank.rank));
  for (const Agent& a : t.agents)
    line(fmt::format("agent {} {} {} {} {} {} {} {} {}", a.process, a.rocpd_id, a.is_gpu, a.name, a.product_name,
                     a.absolute_index, a.logical_index, a.cu_count, a.uuid));
  for (const Queue& q : t.queues) line(fmt::format("queue {} {} {}", q.process, q.rocpd_id, q.name));
  for (const Stream& s : t.streams) line(fmt::format("stream {} {} {}", s.process, s.rocpd_id, s.name));
  for (const KernelSymbol& k : t.symbols)
    line(fmt::format("symbol {} {} {} {} {} {}", k.process, k.rocpd_id, k.mangled_name, k.display_name,
                     k.static_lds_bytes, k.arch_vgpr_count));
  for (std::size_t i = 0; i < t.dispatches.size(); ++i) {
    const Dispatch d = t.dispatches[i];
    line(fmt::format("dispatch {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} launch {}", d.start, d.end, d.dispatch_id,
                     d.correlation_id, d.process, d.symbol, d.agent, d.queue, d.stream, d.thread, d.grid[0], d.grid[1],
                     d.block[0], d.block[2], d.lds_bytes, d.scratch_bytes, t.dispatches.launch_of(i)));
  }
  for (const MemoryCopy& c : t.copies)
    line(fmt::format("copy {} {} {} {} {} {} {} {} {} {} {} {}", c.start, c.end, c.copy_id, c.correlation_id, c.process,
                     c.kind, c.stream, c.queue, c.src_agent, c.dst_agent, c.thread, c.bytes));
  for (const ApiCall& a : t.api_calls)
    line(fmt::format("api {} {} {} {} {} {} {}", a.start, a.end, a.correlation_id, a.process, a.thread, a.name,
                     a.category));
  for (const SyncOp& s : t.sync_ops)
    line(fmt::format("sync {} {} {} {} {} {} {} {} {}", static_cast<int>(s.kind), static_cast<int>(s.source), s.process,
                     s.thread, s.stream, s.event, s.correlation_id, s.start, s.end));
  for (const CounterSample& c : t.counters) line(fmt::format("counter {} {} {}", c.dispatch, c.counter, c.value));
  for (const DeviceMetricSeries& m : t.device_metrics)
    line(fmt::format("metric {} {} {} {}", m.device, m.metric, m.times.size(), m.values.size()));
  for (const CollectiveCall& c : t.collective_calls)
    line(fmt::format("collective {} {} {} {} {}", c.process, c.comm_id, c.comm_rank, c.sequence, c.operation));
  for (const GpuLink& l : t.gpu_links) line(fmt::format("link {} {} {}", l.process, l.gpu_uuid, l.peer_uuid));
  return out;
}

Trace read_with(const std::vector<std::string>& paths, unsigned jobs) {
  rocpd::ReadOptions o;
  o.jobs = jobs;
  return rocpd::read_databases(paths, o);
}

// Databases of different processes: fixtures of different shapes (with and without counters, a missing symbol's
// placeholder, strings the others do not have) and a synthetic job's ranks (collective calls).
std::vector<std::string> several_databases(const test::TempDir& dir) {
  std::vector<std::string> paths;
  for (int i = 0; i < 4; ++i) {
    test::FixtureSpec spec;
    spec.file_name = fmt::format("p{}.db", i);
    spec.guid = fmt::format("0198a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a{:02x}", i);
    spec.pid = 100 + i;
    spec.streams = 1 + i;
    spec.event_sync = spec.streams >= 2;
    spec.kernels_per_stream = 3 + 50 * i;
    spec.counters = i % 2 == 0;
    spec.first_dispatch_id = 1 + 1000 * i;
    test::FixtureRows rows = test::fixture_rows(spec);
    if (i == 2) rows.dispatches[1].kernel_id = 77;  // no such symbol: a placeholder, named in a warning
    test::add_marker_range(rows, rows.threads.front().tid, fmt::format("range of process {}", i), spec.t0,
                           spec.t0 + 100000);
    paths.push_back(dir.file(spec.file_name));
    test::write_fixture(rows, paths.back());
    if (i == 1 || i == 3) {  // collective calls, GPU links and device metrics in two of them
      CollectiveCall c;
      c.comm_id = 0xabc0 + static_cast<uint64_t>(i);
      c.comm_size = 2, c.comm_rank = i / 2, c.sequence = 7, c.operation = "AllReduce", c.source = "nccl-profiler";
      GpuLink l;
      l.gpu_uuid = fmt::format("GPU-{}", i), l.kind = "nvlink", l.links = 4, l.gb_per_s = 100;
      rocpd::append_collective_calls(paths.back(), {c, c}, {l});
      DeviceMetricSeries m;
      m.device = i, m.metric = "power", m.unit = "W", m.source = "nvml";
      m.times = {spec.t0, spec.t0 + 1000}, m.values = {100.0, 200.0 + i};
      rocpd::append_device_metrics(paths.back(), {m});
    }
  }
  rocpd::SyntheticJob job;
  job.ranks = 3;
  job.steps = 4;
  job.output_dir = dir.file("job");
  for (const std::string& p : rocpd::write_synthetic_job(job)) paths.push_back(p);
  return paths;
}

TEST(AnalyzeJobs, ParsesJobCountsAndRefusesOthers) {
  EXPECT_EQ(parse_jobs("1"), 1u);
  EXPECT_EQ(parse_jobs("8"), 8u);
  EXPECT_EQ(parse_jobs("0"), 0u);
  EXPECT_GE(resolve_jobs(0), 1u);
  EXPECT_EQ(resolve_jobs(3), 3u);
  for (const char* bad : {"", "-1", "two", "2x", " 2", "1.5", "1025", "99999999999"}) {
    try {
      parse_jobs(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::Usage);
      EXPECT_NE(std::string(e.what()).find(fmt::format("'{}'", bad)), std::string::npos) << e.what();
    }
  }
}

TEST(AnalyzeJobs, OrderedParallelConsumesInOrderWithBoundedResults) {
  for (unsigned jobs : {1u, 2u, 3u, 8u}) {
    std::atomic<int> alive{0}, most{0};
    std::vector<std::size_t> order;
    std::string logs;
    {
      log::Capture capture(logs);
      ordered_parallel<int>(
          20, jobs,
          [&](std::size_t i) {
            const int now = ++alive;
            for (int m = most; now > m && !most.compare_exchange_weak(m, now);) {
            }
            log::warn("item {}", i);
            if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
            return static_cast<int>(i * i);
          },
          [&](std::size_t i, int v) {
            EXPECT_EQ(v, static_cast<int>(i * i));
            order.push_back(i);
            --alive;
          });
    }
    std::vector<std::size_t> expected(20);
    for (std::size_t i = 0; i < 20; ++i) expected[i] = i;
    EXPECT_EQ(order, expected) << jobs;
    // At most `jobs` results produced and not yet consumed, plus the one being consumed.
    EXPECT_LE(most.load(), static_cast<int>(std::max(jobs, 1u)) + 1) << jobs;
    std::string want;
    for (std::size_t i = 0; i < 20; ++i) want += fmt::format("warning: item {}\n", i);
    EXPECT_EQ(logs, want) << jobs;
  }
}

// The first failing item in index order is the error, with the lines before it; later items' lines are not written.
TEST(AnalyzeJobs, OrderedParallelFailsAsOneThreadWould) {
  for (unsigned jobs : {1u, 2u, 4u}) {
    std::string logs;
    std::vector<std::size_t> consumed;
    try {
      log::Capture capture(logs);
      ordered_parallel<int>(
          10, jobs,
          [&](std::size_t i) {
            log::warn("start {}", i);
            if (i == 4 || i == 7) throw Error(ExitCode::InputInvalid, fmt::format("item {} is bad", i));
            return 0;
          },
          [&](std::size_t i, int) { consumed.push_back(i); });
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "item 4 is bad");
    }
    EXPECT_EQ(consumed, (std::vector<std::size_t>{0, 1, 2, 3})) << jobs;
    EXPECT_EQ(logs, "warning: start 0\nwarning: start 1\nwarning: start 2\nwarning: start 3\nwarning: start 4\n")
        << jobs;
  }
}

TEST(AnalyzeJobs, ConcurrentTasksKeepTheirOrderAndFirstError) {
  std::string logs;
  std::vector<int> results(3, 0);
  {
    log::Capture capture(logs);
    run_concurrently({[&] { log::info("a"), results[0] = 1; }, [&] { log::info("b"), results[1] = 2; },
                      [&] { log::info("c"), results[2] = 3; }},
                     3);
  }
  EXPECT_EQ(results, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(logs, "a\nb\nc\n");
  std::atomic<int> third_ran{0};
  EXPECT_THROW(run_concurrently({[] {}, [] { throw Error(ExitCode::InputEmpty, "second"); }, [&] { ++third_ran; }}, 2),
               Error);
}

TEST(AnalyzeJobs, ParallelReadGivesTheSequentialTrace) {
  test::TempDir dir;
  const std::vector<std::string> paths = several_databases(dir);
  const std::string one = dump(read_with(paths, 1));
  ASSERT_NE(one.find("collective"), std::string::npos);
  ASSERT_NE(one.find("counter "), std::string::npos);
  ASSERT_NE(one.find("link "), std::string::npos);
  ASSERT_NE(one.find("metric "), std::string::npos);
  for (unsigned jobs : {2u, 3u, 16u}) EXPECT_EQ(dump(read_with(paths, jobs)), one) << jobs;
  // and in another order, another trace, the same for every N
  const std::vector<std::string> reversed(paths.rbegin(), paths.rend());
  const std::string back = dump(read_with(reversed, 1));
  EXPECT_NE(back, one);
  EXPECT_EQ(dump(read_with(reversed, 4)), back);
}

TEST(AnalyzeJobs, ParallelReadOfTheExampleTraces) {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(std::string(RPL_SOURCE_DIR) + "/examples/traces"))
    paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  ASSERT_GE(paths.size(), 3u);
  const std::string one = dump(read_with(paths, 1));
  EXPECT_EQ(dump(read_with(paths, 2)), one);
  EXPECT_EQ(dump(read_with(paths, 3)), one);
}

TEST(AnalyzeJobs, AppendingEqualsReadingAfter) {
  test::TempDir dir;
  const std::vector<std::string> paths = several_databases(dir);
  Trace both;
  rocpd::read_database(both, paths[0]);
  rocpd::read_database(both, paths[2]);
  Trace first, second;
  rocpd::read_database(first, paths[0]);
  rocpd::read_database(second, paths[2]);
  append_trace(first, std::move(second));
  EXPECT_EQ(dump(first), dump(both));
}

// Errors: the same message for every N (a process given twice, a damaged file among good ones).
TEST(AnalyzeJobs, ParallelReadFailsAsTheSequentialOne) {
  test::TempDir dir;
  std::vector<std::string> paths = several_databases(dir);
  auto error_of = [](const std::vector<std::string>& p, unsigned jobs) -> std::string {
    try {
      read_with(p, jobs);
    } catch (const Error& e) {
      return fmt::format("{}: {}", static_cast<int>(e.code()), e.what());
    }
    return "no error";
  };
  std::vector<std::string> twice = paths;
  twice.insert(twice.begin() + 3, paths[1]);
  const std::string dup = error_of(twice, 1);
  EXPECT_NE(dup.find("already read"), std::string::npos) << dup;
  for (unsigned jobs : {2u, 4u}) EXPECT_EQ(error_of(twice, jobs), dup);

  const std::string damaged = dir.file("damaged.db");
  {
    std::FILE* f = std::fopen(damaged.c_str(), "wb");
    std::fputs("SQLite format 3 but not really a database, only some bytes", f);
    std::fclose(f);
  }
  std::vector<std::string> with_damaged = paths;
  with_damaged.insert(with_damaged.begin() + 2, damaged);
  const std::string bad = error_of(with_damaged, 1);
  EXPECT_NE(bad, "no error");
  for (unsigned jobs : {2u, 4u}) EXPECT_EQ(error_of(with_damaged, jobs), bad);
}

// The CLI: every output file and stdout byte for byte equal across N, on one database, several, and a folder of
// ranks; an invalid --jobs refused with its value named, before any work.
struct Outputs {
  std::vector<std::pair<std::string, std::string>> files;  // (name, bytes); stdout and stderr first
};

Outputs outputs_of(const test::TempDir& dir, std::vector<std::string> args, const std::vector<std::string>& files) {
  std::filesystem::remove_all(dir.file("out"));  // one folder for every run: stderr names it
  args.insert(args.end(), {"-o", dir.file("out")});
  const test::CliResult r = test::run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Outputs o;
  o.files = {{"stdout", r.out}, {"stderr", r.err}};
  for (const std::string& f : files) o.files.emplace_back(f, test::read_file(dir.file("out/" + f)));
  return o;
}

// Which outputs differ (their names), or "" when every one is byte-identical.
std::string differing(const Outputs& a, const Outputs& b) {
  std::string names;
  for (std::size_t i = 0; i < a.files.size(); ++i)
    if (i >= b.files.size() || a.files[i] != b.files[i]) names += a.files[i].first + " ";
  return names;
}

TEST(AnalyzeJobsCli, OutputsAreTheSameForEveryJobCount) {
  test::TempDir dir;
  const std::vector<std::string> paths = several_databases(dir);
  const std::vector<std::string> files = {"profile.json", "dag.json", "analysis.json", "roofline.json", "report.html"};
  std::vector<std::string> examples;
  for (const char* e : {"generated-4streams.db", "multistream-h100.db", "multistream-h100-roofline.db"})
    examples.push_back(std::string(RPL_SOURCE_DIR) + "/examples/traces/" + e);
  const std::vector<std::vector<std::string>> inputs = {
      {examples[0]}, {examples[2]}, examples, {paths[0], paths[1], paths[2], paths[3]}};
  for (const auto& in : inputs) {
    std::vector<std::string> args = {"analyze", "--what-if", "compute=0.5", "--what-if", ".*=0.9"};
    args.insert(args.end(), in.begin(), in.end());
    const Outputs one = outputs_of(dir, args, files);
    ASSERT_NE(one.files[3].second.find("\"path_nodes\""), std::string::npos);  // dag.json
    for (const char* jobs : {"2", "3", "0"}) {
      std::vector<std::string> with = args;
      with.insert(with.begin() + 1, {"--jobs", jobs});
      EXPECT_EQ(differing(outputs_of(dir, with, files), one), "") << "--jobs " << jobs << " " << in.front();
    }
    // --json on stdout
    std::vector<std::string> json = {"analyze", "--json"};
    json.insert(json.end(), in.begin(), in.end());
    const Outputs a = outputs_of(dir, json, {});
    json.insert(json.begin() + 1, {"-j", "2"});
    EXPECT_EQ(differing(outputs_of(dir, json, {}), a), "") << in.front();
  }
  // the folder of a job's ranks (analysis across ranks)
  const std::vector<std::string> rank_files = {"multi_rank.json", "multi_rank.html"};
  const Outputs ranks = outputs_of(dir, {"analyze", dir.file("job")}, rank_files);
  ASSERT_NE(ranks.files[2].second.find("\"ranks\""), std::string::npos);
  for (const char* jobs : {"2", "3"})
    EXPECT_EQ(differing(outputs_of(dir, {"analyze", "--jobs", jobs, dir.file("job")}, rank_files), ranks), "") << jobs;
}

TEST(AnalyzeJobsCli, InvalidJobCountsAreRefused) {
  test::TempDir dir;
  const std::string db = std::string(RPL_SOURCE_DIR) + "/examples/traces/generated-4streams.db";
  for (const char* bad : {"-1", "many", "1.5", "100000"}) {
    const test::CliResult r = test::run_cli({"analyze", "--jobs", bad, db, "-o", dir.file("out")});
    EXPECT_EQ(r.exit_code, to_int(ExitCode::Usage)) << bad << r.err;
    EXPECT_NE(r.err.find(fmt::format("--jobs '{}'", bad)), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out"))) << bad;  // refused before any work
  }
  const test::CliResult ok = test::run_cli({"analyze", "--jobs", "2", db, "-o", dir.file("out"), "--quiet"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

}  // namespace
}  // namespace rpl
