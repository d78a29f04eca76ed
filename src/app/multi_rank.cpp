#include "app/multi_rank.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/collective_calls.hpp"
#include "analysis/collectives.hpp"
#include "app/rank_summary_file.hpp"
#include "store/rocpd_reader.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/ordered_parallel.hpp"
#include "support/progress.hpp"

namespace rpl::app {
namespace fs = std::filesystem;

std::vector<std::string> rank_databases(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      out.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    std::string converted_by;  // ROCm 6.x rocprofv3 output in the folder instead of databases: the command that converts it
    for (auto it = fs::recursive_directory_iterator(in, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.ends_with("results.json")) converted_by = "rocm-perf import rocprofv3-json";
      else if (name.ends_with("kernel_trace.csv") && converted_by.empty()) converted_by = "rocm-perf import rocprofv3-csv";
      // `profile --rank-wrapper`'s counter runs (DIR/rank-counters/) are not ranks: their values are already
      // stored in the rank databases.
      if (it->is_directory() && it->path().filename() == "rank-counters") it.disable_recursion_pending();
      if (it->is_regular_file() && it->path().extension() == ".db") found.push_back(it->path().string());
    }
    if (found.empty())
      throw Error(ExitCode::InputMissing,
                  fmt::format("{}: no rocpd database (*.db) in this directory{}", in,
                              converted_by.empty() ? std::string()
                                                   : fmt::format("; it holds rocprofv3's ROCm 6.x output: convert it "
                                                                 "with {} {} first", converted_by, in)));
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::vector<analysis::RankSummary> summarize_databases(const std::vector<std::string>& databases,
                                                       const RankSummaryRead& options) {
  std::vector<analysis::RankSummary> out;
  analysis::RankSummaryOptions so;
  so.what_if = options.what_if;
  rocpd::ReadOptions read;
  read.lenient = options.lenient;
  Progress progress(options.show_progress);
  const unsigned jobs = options.jobs;
  std::size_t summarized = 0;
  auto summarize = [&](std::size_t i) {
    if (jobs <= 1) progress.update(fmt::format("rank database {}/{}: {}", i + 1, databases.size(), databases[i]));
    rocpd::ReadOptions one = read;
    if (jobs > 1)  // a failed database ahead of this one stops the run: this summary would be discarded
      one.progress = [](std::string_view, std::size_t) {
        if (parallel_stop_requested()) throw Error(ExitCode::Internal, "stopped: another database failed");
      };
    Trace trace;  // freed as soon as it is summarized: `jobs` traces at a time
    rocpd::read_database(trace, databases[i], one);
    return analysis::summarize_ranks(trace, so);
  };
  auto keep = [&](std::size_t i, std::vector<analysis::RankSummary>&& summaries) {
    for (auto& s : summaries) {
      // A launcher (torchrun's agent, mpirun) that touched the GPU API but ran nothing is not a rank.
      if (s.dispatches == 0 && s.last_end == 0) {
        log::info("{}: process {} ran no GPU work; not counted as a rank", databases[i], s.pid);
        continue;
      }
      out.push_back(std::move(s));
    }
    summarized = i + 1;
  };
  ordered_parallel<std::vector<analysis::RankSummary>>(databases.size(), jobs, summarize, keep, [&] {
    progress.update(fmt::format("rank databases: {} of {} summarized, {} at a time", summarized, databases.size(), jobs));
  });
  progress.done();
  if (out.empty() && !options.allow_no_rank)
    throw Error(ExitCode::InputEmpty, "no rank in the given databases (no process ran GPU work)");
  return out;
}

void write_rank_perfetto(const std::string& path, const std::vector<std::string>& databases,
                         const analysis::MultiRankResult& result, bool lenient) {
  std::map<std::pair<std::string, int64_t>, int64_t> rank_of;  // (host, pid) -> rank
  std::map<std::string, TimeNs> offset_of;
  TimeNs origin = 0;
  for (std::size_t i = 0; i < result.ranks.size(); ++i) {
    const auto& r = result.ranks[i];
    rank_of[{r.host, r.pid}] = r.rank;
    origin = i == 0 ? r.start_ns : std::min(origin, r.start_ns);
  }
  for (const auto& o : result.clock_offsets)
    if (o.applied) offset_of[o.host] = o.offset_ns;
  rocpd::ReadOptions read;
  read.lenient = lenient;
  read.load_api_calls = false;
  write_file_atomically(path, [&](std::FILE* f) {
    std::fputs("{\"traceEvents\":[\n", f);
    bool first = true;
    auto event = [&](const nlohmann::json& e) {
      if (!first) std::fputs(",\n", f);
      first = false;
      std::fputs(e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str(), f);
    };
    for (const std::string& db : databases) {
      Trace t;
      rocpd::read_database(t, db, read);
      for (Index p = 0; p < t.processes.size(); ++p) {
        const Process& proc = t.processes[p];
        auto it = rank_of.find({proc.hostname, proc.pid});
        if (it == rank_of.end()) continue;
        const int64_t rank = it->second;
        const TimeNs shift = offset_of.count(proc.hostname) ? offset_of[proc.hostname] : 0;
        event({{"ph", "M"}, {"name", "process_name"}, {"pid", rank}, {"args", {{"name", fmt::format("rank {} ({})", rank, proc.hostname)}}}});
        event({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", rank}, {"args", {{"sort_index", rank}}}});
        auto us = [&](TimeNs ns) { return static_cast<double>(ns + shift - origin) / 1e3; };
        // Collective kernels linked to the library's calls go on one track per communicator.
        std::vector<Index> collective;
        for (Index i = 0; i < t.dispatches.size(); ++i)
          if (t.dispatches[i].process == p && analysis::parse_collective_kernel(t.kernel_name(t.dispatches[i])))
            collective.push_back(i);
        std::stable_sort(collective.begin(), collective.end(), [&](Index a, Index b) {
          return t.dispatches[a].correlation_id < t.dispatches[b].correlation_id;
        });
        const analysis::CallLinks links = analysis::link_collective_calls(t, p, collective);
        std::map<Index, std::size_t> linked;  // dispatch -> position in `collective`
        for (std::size_t k = 0; k < collective.size(); ++k)
          if (!links.calls_of_kernel[k].empty()) linked[collective[k]] = k;
        std::map<uint64_t, int64_t> comm_track;
        for (Index i = 0; i < t.dispatches.size(); ++i) {
          const Dispatch& d = t.dispatches[i];
          if (d.process != p) continue;
          const std::string& name = t.kernel_name(d);
          const bool comm = analysis::parse_collective_kernel(name).has_value();
          const int64_t stream = d.stream == kNoIndex ? 0 : t.streams[d.stream].rocpd_id;
          auto it = linked.find(i);
          if (it == linked.end()) {
            event({{"ph", "X"}, {"pid", rank}, {"tid", stream}, {"ts", us(d.start)}, {"dur", (d.end - d.start) / 1e3},
                   {"name", name}, {"cat", comm ? "communication" : "compute"}});
            continue;
          }
          const auto& calls = links.calls_of_kernel[it->second];
          const CollectiveCall& c = t.collective_calls[calls.front()];
          auto [track, added] = comm_track.try_emplace(c.comm_id, 1'000'000 + static_cast<int64_t>(comm_track.size()));
          if (added)
            event({{"ph", "M"}, {"name", "thread_name"}, {"pid", rank}, {"tid", track->second},
                   {"args", {{"name", fmt::format("communicator 0x{:016x} (rank {} of {})", c.comm_id, c.comm_rank,
                                                  c.comm_size)}}}});
          uint64_t bytes = 0;
          for (Index ci : calls) bytes += t.collective_calls[ci].bytes;
          event({{"ph", "X"}, {"pid", rank}, {"tid", track->second}, {"ts", us(d.start)}, {"dur", (d.end - d.start) / 1e3},
                 {"name", calls.size() == 1 ? c.operation : fmt::format("{} x{}", c.operation, calls.size())},
                 {"cat", "communication"},
                 {"args", {{"kernel", name}, {"stream", stream}, {"sequence", c.sequence}, {"bytes", bytes},
                           {"count", c.count}, {"data_type", c.data_type}, {"algorithm", c.algorithm},
                           {"protocol", c.protocol}, {"calls", calls.size()}}}});
        }
        for (const MemoryCopy& c : t.copies) {
          if (c.process != p) continue;
          event({{"ph", "X"}, {"pid", rank}, {"tid", c.stream == kNoIndex ? 0 : t.streams[c.stream].rocpd_id},
                 {"ts", us(c.start)}, {"dur", (c.end - c.start) / 1e3}, {"name", t.strings.at(c.kind)},
                 {"cat", "copy"}, {"args", {{"bytes", c.bytes}}}});
        }
      }
    }
    std::fputs("\n],\"displayTimeUnit\":\"ns\"}\n", f);
  });
}

AcrossRanksRun run_across_ranks(const AcrossRanksOptions& o) {
  if (o.merge_summaries && (o.rank_summary || o.perfetto))
    throw Error(ExitCode::Usage, "--merge-summaries reads summaries: --rank-summary and --perfetto need databases");
  AcrossRanksRun run;
  std::vector<analysis::RankSummary> summaries;
  if (o.merge_summaries) {
    if (!o.what_if.empty())
      throw Error(ExitCode::Usage, "--what-if applies when the summaries are made (--rank-summary), not at the merge");
    summaries = read_rank_summary_files(o.inputs);
  } else {
    run.databases = rank_databases(o.inputs);
    RankSummaryRead read;
    read.what_if = o.what_if;
    read.lenient = o.lenient;
    read.show_progress = o.show_progress;
    read.jobs = o.jobs;
    read.allow_no_rank = o.rank_summary.has_value();
    summaries = summarize_databases(run.databases, read);
  }
  run.ranks = summaries.size();
  if (o.rank_summary) {
    write_rank_summary_file(*o.rank_summary, summaries);
    return run;
  }
  analysis::MultiRankOptions mo;
  mo.align_clocks = o.align_clocks;
  run.result = analysis::analyze_ranks(summaries, mo);
  return run;
}

}  // namespace rpl::app
