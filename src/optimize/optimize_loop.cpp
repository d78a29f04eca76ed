#include "optimize/optimize_loop.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include <fmt/ranges.h>

#include "capture/manifest.hpp"
#include "optimize/optimize_loop_internal.hpp"
#include "optimize/source_model.hpp"
#include "optimize/stats.hpp"
#include "optimize/validation_hook.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/user_regex.hpp"

namespace rpl::optimize {
namespace fs = std::filesystem;
using nlohmann::json;

namespace loop_detail {

const std::vector<std::string>& guard_constraints() {
  static const std::vector<std::string> c = {
      "return the whole source file; change only the body of the kernel; you may add new __device__ helper functions, "
      "macros (after the #includes), constants, types and namespace aliases under names the file does not use yet",
      "the kernel's signature is frozen: parameter types and qualifiers, template parameters and defaults, return type, "
      "linkage; __launch_bounds__ may be added or changed if they admit every launch's threads per block (most_threads_per_block_launched)",
      "no new __device__/__shared__/__constant__ variables outside the kernel, no static variables",
      "no clock(), clock64(), %globaltimer or other timers; no printf; no new atomics on memory the original does not write; "
      "inline asm only for loads, stores, arithmetic and shared-memory atomics (no timers, traps, exits or calls)",
      "results must be bit-identical to the original's on captured and randomised inputs (unless a tolerance is given)",
      "the candidate must be measurably faster (alternated fresh-process replays, Mann-Whitney U) and speed up the "
      "whole application"};
  return c;
}

std::string kernel_regex_for(const std::string& name) {
  return fmt::format("(^|[^A-Za-z0-9_]){}(<|\\(|$)", name);  // "void k<float>(...)", "k(...)" or a bare "k"
}

bool display_name_is(const std::string& display, const std::string& name) {
  return UserRegex(kernel_regex_for(name), "kernel name").search(display);
}


void Loop::choose_kernel(const ProfileOutcome& baseline) {
  std::optional<UserRegex> user;  // RE2, like every pattern option: linear time on names of any length
  if (!o_.kernel_regex.empty()) user.emplace(o_.kernel_regex, "--kernel");
  std::vector<std::string> source_kernels;
  for (const auto& k : original_.kernels) source_kernels.push_back(k.qualified_name);
  for (const auto& r : baseline.ranking) {
    std::string display = r.value("name", "");
    if (user && !user->search(display)) continue;
    for (const auto& k : original_.kernels)
      if (display_name_is(display, k.name)) {
        // The compiler is the parser of record: a kernel our parser cannot read (a header it cannot find, clang 15
        // against a newer toolkit) is still optimized; its signature and structure are judged on code objects.
        if (!k.errors.empty())
          doc_["notes"].push_back(fmt::format("the source parser could not read kernel {} ({}; first: {}): its candidates' "
                                              "signature is judged on the compiled code objects, and the deterministic "
                                              "proposer finds only the loops it could read. Give the application's header "
                                              "paths and macros with --compile-flags",
                                              k.name, k.errors.size() == 1 ? "1 error" : fmt::format("{} errors", k.errors.size()),
                                              k.errors.front()));
        kernel_ = k.name;
        doc_["kernel"] = {{"name", k.name}, {"display_name", display}, {"line", k.line}, {"loops", k.loops.size()}};
        return;
      }
  }
  std::vector<std::string> ranked;
  for (const auto& r : baseline.ranking) ranked.push_back(r.value("name", ""));
  throw Error(ExitCode::InputInvalid,
              fmt::format("{}: no kernel {}that the application ran is defined in this source (kernels in the source: {}; "
                          "kernels the application ran: {})", o_.source,
                          o_.kernel_regex.empty() ? "" : "matching /" + o_.kernel_regex + "/ ",
                          source_kernels.empty() ? "none" : fmt::format("{}", fmt::join(source_kernels, ", ")),
                          ranked.empty() ? "none" : fmt::format("{}", fmt::join(ranked, ", "))));
}

void Loop::prepare_inputs() {
  std::string regex = kernel_regex_for(kernel_);
  fs::path l1 = out_ / "inputs" / "launch1", l2 = out_ / "inputs" / "launch2";
  std::string why;
  if (!env_.capture(regex, 1, l1.string(), why))
    throw Error(ExitCode::CaptureFailed, fmt::format("capturing the first launch of {} failed: {}", kernel_, why));
  bool second = env_.capture(regex, 2, l2.string(), why);
  perf_capture_ = l1;
  manifest_ = capture::read_manifest(l1);
  // The threads per block of each captured launch: a candidate's new launch bounds must admit them all.
  auto threads = [](const capture::Manifest& m) {
    return uint64_t(m.geometry.block[0]) * m.geometry.block[1] * m.geometry.block[2];
  };
  launched_threads_ = {threads(manifest_)};
  if (second) {
    try {
      launched_threads_.push_back(threads(capture::read_manifest(l2)));
    } catch (const Error&) {
      // the second launch's manifest unreadable: the derivation below reports it
    }
  }
  // And the most of any launch the baseline profiled: a later launch with larger blocks than the captured ones (a
  // final reduction pass, a size-dependent block) would fail under bounds that admit only those.
  const std::string display = doc_["kernel"].value("display_name", "");
  for (const auto& k : baseline_.analysis.value("kernels", json::array()))
    if (k.value("name", "") == display && k.contains("most_threads_per_block_launched"))
      if (uint64_t most = k["most_threads_per_block_launched"].get<uint64_t>();
          std::find(launched_threads_.begin(), launched_threads_.end(), most) == launched_threads_.end())
        launched_threads_.push_back(most);
  std::vector<std::string> param_types;
  // A kernel the parser could not read may carry recovered types (clang makes an unknown type int): none then, and
  // the regions' types come from the mangled name alone.
  if (const KernelInfo* k = original_.find(kernel_); k->errors.empty())
    for (const auto& p : k->params) param_types.push_back(p.canonical_type);
  types_ = region_element_types(l1, manifest_, param_types);
  fs::path original_copy = out_ / "original" / fs::path(o_.source).filename();
  fs::create_directories(original_copy.parent_path());
  write_text_file_atomically(original_copy.string(), original_text_);
  original_co_ = out_ / "original" / "kernel.co";
  CommandOutcome built = env_.compile(original_copy.string(), original_co_.string(), l1.string());
  if (!built.ok)
    throw Error(ExitCode::InputInvalid, fmt::format("the original {} does not compile into a code object ({}): {}", o_.source,
                                                    built.status, built.messages));
  doc_["baseline"]["build_check"] = build_check(original_copy, original_co_, l1.string());
  read_original_facts();
  propose_first_round();  // its compiles overlap the derivations and the original's replays below
  auto derive = [&](const std::string& name, const fs::path& from, DeriveOptions d) {
    d.source_param_types = param_types;
    InputState s{name, out_ / "inputs" / name, {}, {}};
    fs::remove_all(s.capture);
    s.summary = derive_capture(from, s.capture, d).to_json();
    states_.push_back(s);
  };
  derive("launch1-poisoned", l1, {true, false, 1, {}});
  if (second) derive("launch2-poisoned", l2, {true, false, 1, {}});
  else {
    doc_["notes"].push_back(fmt::format("the kernel's second launch could not be captured ({}); a second randomised state "
                                        "stands in for it", why));
    derive("launch1-random-seed2", l1, {true, true, 2, {}});
  }
  derive("launch1-random", l1, {true, true, 1, {}});
  // Named fields: a braced list here once bound the note to a path member (a string built from two unrelated
  // literals as an iterator pair; found by the ASan run).
  InputState captured;
  captured.name = "launch1-captured";
  captured.capture = l1;
  captured.summary = {{"note", "the captured state as it was (in-place kernels)"}};
  states_.push_back(captured);
  json inputs = json::array();
  std::vector<InputState> usable;
  // The original twice on every input, in one batch: the first replays give the reference results, the second
  // ones its run-to-run spread (below).
  std::vector<ReplayJob> jobs;
  for (auto& s : states_) {
    s.original_dump = out_ / "dumps" / s.name / "original";
    s.original_again_dump = out_ / "dumps" / s.name / "original-again";
  }
  for (bool again : {false, true})
    for (const auto& s : states_)
      jobs.push_back({s.capture.string(), original_co_.string(), (again ? s.original_again_dump : s.original_dump).string(), 1});
  BatchedReplays originals(env_, jobs);
  const std::size_t n_states = states_.size();
  std::map<std::string, std::size_t> again_job;
  for (std::size_t i = 0; i < n_states; ++i) again_job[states_[i].name] = n_states + i;
  for (std::size_t i = 0; i < n_states; ++i) {
    auto& s = states_[i];
    const ReplayOutcome& r = originals.get(i);
    if (!r.ok) {
      // e.g. a poisoned value the original itself uses as an index: that input cannot judge candidates
      if (s.name == "launch1-captured")
        throw Error(ExitCode::ProfilerFailed, fmt::format("replaying the original {} on its captured launch failed: {}", kernel_, r.error));
      doc_["notes"].push_back(fmt::format("input {} dropped: the original kernel itself fails on it ({})", s.name, r.error));
      continue;
    }
    inputs.push_back({{"name", s.name}, {"capture", s.capture.string()}, {"derivation", s.summary}});
    usable.push_back(s);
  }
  states_ = usable;
  if (states_.size() < 3)
    throw Error(ExitCode::ProfilerFailed, fmt::format("the original {} runs on only {} of the equivalence gate's inputs (at least 3 "
                                                      "are needed): {}", kernel_, states_.size(), doc_["notes"].dump()));
  // The original against itself, on every input: a kernel whose result varies run to run (split-K, float
  // atomics) cannot be held to bit-exactness; its candidates are judged against the original's own spread.
  bool deterministic = true;
  for (auto& s : states_) {
    const ReplayOutcome& r = originals.get(again_job.at(s.name));
    if (!r.ok)
      throw Error(ExitCode::ProfilerFailed, fmt::format("replaying the original {} a second time on input {} failed: {}",
                                                        kernel_, s.name, r.error));
    s.original_varies = !compare_dumps(manifest_, types_, s.original_dump, s.original_again_dump, Tolerance{}).equivalent;
    deterministic = deterministic && !s.original_varies;
    // The user's validation command must admit the original's own second replay, or it cannot judge anything.
    if (!o_.validate_command.empty()) {
      const ValidationRun run{s.name, s.original_dump, s.original_again_dump, s.capture,
                              out_ / "dumps" / s.name / "validate-original.log"};
      const ValidationOutcome v = run_validation_command(o_.validate_command, run, o_.validate_timeout_s);
      if (!v.passed)
        throw Error(ExitCode::Usage,
                    fmt::format("--validate-command rejects the original kernel's own result on input {} (it {}; log "
                                "{}): it cannot judge candidates. Its output ends with:\n{}",
                                s.name, v.status, run.log_file.string(), v.output_tail));
    }
  }
  doc_["baseline"]["deterministic"] = deterministic;
  if (!deterministic)
    doc_["notes"].push_back("the original kernel's result differs between two replays of the same input: a candidate's "
                            "result may differ only where, or within what, the original's own replays differ (its "
                            "run-to-run spread), or within --rtol/--atol");
  doc_["inputs"] = inputs;
  uint64_t written = states_[0].summary.value("bytes_written_by_original", uint64_t{0});
  double peak = env_.peak_bandwidth_gbps(manifest_.device_name);
  const double bytes_ns = peak > 0 && written > 0 ? double(written) / peak : 0;
  // The compute side, from the baseline's counter pass: the original's FLOPs per launch over their class's peak.
  double flops_ns = 0;
  json flops_entry = nullptr;
  for (const auto& k : baseline_.analysis.value("kernels", json::array()))
    if (k.value("name", "") == display && k.contains("speed_of_light_compute_ns")) {
      flops_ns = k["speed_of_light_compute_ns"].get<double>();
      flops_entry = {{"flops_per_launch", k["flops_per_launch"]}, {"peak_gflops", k["peak_gflops"]}, {"min_time_ns", flops_ns}};
    }
  sol_ns_ = std::max(bytes_ns, flops_ns);
  sol_ = {{"bytes_written_by_original", written}, {"peak_bandwidth_gbps", peak}, {"bytes_min_time_ns", bytes_ns},
          {"flops", flops_entry}, {"min_time_ns", sol_ns_},
          {"rule", "a launch cannot take less than the bytes it must write over the device's peak memory bandwidth, nor "
                   "less than the original's FLOPs (from our counters) over their class's peak"}};
  if (flops_entry.is_null())
    sol_["flops_unavailable"] = baseline_.analysis.value("counter_failure", std::string("no counter data for the kernel"));
}

void Loop::evaluate(const Candidate& c, Proposer& proposer, int depth) {
  json entry = {{"id", c.id}, {"proposer", c.proposer}, {"description", c.description}, {"round", c.round},
                {"details", c.details}, {"diff", unified_diff(original_text_, c.source_text, fs::path(o_.source).filename().string())},
                {"gates", json::array()}};
  log::info("candidate {}: {}", c.id, c.description);
  // Where a candidate's time goes (seconds per step, wall): the search's cost, stated in the document.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point started = Clock::now();
  Clock::time_point mark = started;
  json seconds = json::object();
  auto step = [&](const char* name) {
    const Clock::time_point now = Clock::now();
    seconds[name] = std::chrono::duration<double>(now - mark).count();
    mark = now;
  };
  auto finish = [&](const std::string& decision) {
    seconds["total"] = std::chrono::duration<double>(Clock::now() - started).count();
    entry["seconds"] = seconds;
    entry["decision"] = decision;
    const json& last = entry["gates"].back();
    proposer.observe({c.id, last["gate"], last["passed"], last["reason"], last["evidence"]});
    log::info("  {} -> {} ({}: {})", c.id, decision, last["gate"].get<std::string>(), last["reason"].get<std::string>());
    evaluated_.emplace_back(entry, c);
  };
  const bool static_ok = static_gates(c, entry);
  step("static_gates");
  if (!static_ok) return finish("rejected");
  fs::path co;
  const bool compiled = compile(c, entry, co);
  step("compile");
  if (!compiled) {
    std::string messages = entry["compiler_messages"].get<std::string>();
    entry["gates"].push_back({{"gate", "compile"}, {"passed", false},
                              {"reason", "the candidate does not compile: " + entry["compile"]["status"].get<std::string>()},
                              {"evidence", {{"compiler_messages", messages}}}});
    finish("rejected");
    if (depth < o_.max_repairs) {
      if (auto fixed = proposer.repair(request(c.round, 1), c, messages)) evaluate(*fixed, proposer, depth + 1);
    }
    return;
  }
  entry["gates"].push_back({{"gate", "compile"}, {"passed", true}, {"reason", "compiled"}, {"evidence", json::object()}});
  const bool binary_ok = binary_gates(co, entry);
  step("binary_gates");
  if (!binary_ok) return finish("rejected");
  // First stage: every input and the rounds that can already reject a slower candidate; the later rounds run
  // only if the gate needs them.
  BatchedReplays replays(env_, candidate_replays(co), states_.size() + 2 * rounds_before_a_slower_candidate_stops());
  step("replay_batch");
  // Inputs the batch could not replay (another launch's capture needs a process of its own) are judged after the
  // performance gate: a slower candidate is rejected without that process; every admitted one is judged on all.
  std::vector<std::size_t> now, later;
  for (std::size_t i = 0; i < states_.size(); ++i) (replays.from_batch(i) ? now : later).push_back(i);
  if (now.empty()) now.swap(later);  // no batch (not the CUDA runner): every input first, as one by one
  // Every decision from here on says what the replays cost: the runner's own seconds in the batches (both stages)
  // and how many of candidate_replays(co) were started.
  auto decide = [&](const char* decision) {
    seconds["replay_batch_jobs"] = replays.batch_job_seconds();
    entry["replay_jobs_started"] = replays.jobs_started();
    finish(decision);
  };
  const bool equivalent = equivalence(co, entry, replays, now, later);
  step("equivalence");
  if (!equivalent) return decide("rejected");
  const bool faster = performance(entry, replays);
  step("performance");
  if (!faster) return decide("rejected");
  if (!later.empty()) {
    const bool equivalent_later = equivalence(co, entry, replays, later, {});
    step("equivalence_deferred");
    if (!equivalent_later) return decide("rejected");
  }
  entry["code_object"] = co.string();
  decide("passed_replay_gates");
}


bool Loop::end_to_end(const json& entry, const Candidate& c, json& e2e) {
  SourceTransaction tx(o_.source, hook_);
  tx.begin(original_text_);
  tx.apply(c.source_text);
  e2e = {{"candidate", c.id}, {"backup", tx.backup_path()}};
  std::string reason;
  bool ok = false;
  try {
    CommandOutcome b = o_.build_command.empty() ? CommandOutcome{true, "no build command", ""} : env_.build(o_.build_command);
    if (!b.ok) {
      reason = fmt::format("the application does not build with the candidate ({}): {}", b.status, b.messages);
    } else {
      ProfileOutcome after = env_.profile(o_.runs, (out_ / "profile-candidate" / c.id).string(), false);
      double before_ns = median(baseline_.runtime_per_run_ns), after_ns = median(after.runtime_per_run_ns);
      MannWhitney mw = mann_whitney_less(baseline_.runtime_per_run_ns, after.runtime_per_run_ns);
      e2e["baseline_runtime_ns"] = baseline_.runtime_per_run_ns;
      e2e["candidate_runtime_ns"] = after.runtime_per_run_ns;
      e2e["baseline_median_ns"] = before_ns;
      e2e["candidate_median_ns"] = after_ns;
      e2e["speedup"] = after_ns > 0 ? before_ns / after_ns : 0;
      e2e["mann_whitney_p"] = mw.p_value;
      ok = after_ns > 0 && after_ns < before_ns;
      reason = ok ? fmt::format("application runtime (sum of kernel time, median of {} runs) {:.0f} -> {:.0f} ns", o_.runs, before_ns, after_ns)
                  : fmt::format("application runtime did not improve: {:.0f} -> {:.0f} ns", before_ns, after_ns);
    }
  } catch (const std::exception& e) {  // whatever failed, the original goes back
    reason = std::string("the application failed with the candidate: ") + e.what();
  }
  e2e["passed"] = ok;
  e2e["reason"] = reason;
  (void)entry;
  if (ok) {
    tx.commit();
    return true;
  }
  tx.rollback();
  if (!o_.build_command.empty()) {
    CommandOutcome b = env_.build(o_.build_command);
    e2e["rebuilt_original"] = b.ok;
    if (!b.ok) doc_["notes"].push_back("rebuilding the application with the restored original failed: " + b.status);
  }
  return false;
}

void Loop::write_document() {
  if (o_.annotate) o_.annotate(doc_);
  write_text_file_atomically((out_ / "optimize.json").string(), doc_.dump(1) + "\n");
}

void Loop::start_document() {
  doc_ = {{"schema_version", "1.1"}, {"source", o_.source}, {"build_command", o_.build_command}, {"command", o_.app},
          {"output_dir", out_.string()}, {"notes", json::array()}, {"candidates", json::array()},
          {"options", {{"max_candidates", o_.max_candidates}, {"runs", o_.runs}, {"perf_rounds", o_.perf_rounds},
                       {"perf_iterations", o_.perf_iterations}, {"min_speedup", o_.min_speedup}, {"alpha", o_.alpha},
                       {"rtol", o_.tolerance.rtol}, {"atol", o_.tolerance.atol},
                       {"rtol_scale", to_string(o_.tolerance.scale)},
                       {"validate_command", o_.validate_command.empty() ? json(nullptr) : json(o_.validate_command)},
                       {"dry_run", o_.dry_run},
                       {"keep_going", o_.keep_going}}},
          {"baseline", json::object()}};
  if (auto restored = SourceTransaction::recover(o_.source))
    doc_["notes"].push_back(fmt::format("an earlier optimize run was interrupted during its end-to-end trial; {} was restored "
                                        "from {}", o_.source, *restored));
}

void Loop::read_source() {
  original_text_ = read_text_file(o_.source);
  parser_flags_ = env_.parser_flags();
  original_ = parse_source(o_.source, original_text_, parser_flags_);
  if (original_.kernels.empty())
    throw Error(ExitCode::InputInvalid,
                original_.errors.empty() ? fmt::format("{}: no __global__ kernel is defined in this source", o_.source)
                                         : fmt::format("{}: does not parse and defines no kernel ({} errors; first: {})", o_.source,
                                                       original_.errors.size(), original_.errors.front()));
  std::string ext = fs::path(o_.source).extension().string();
  language_ = ext == ".hip" ? "hip" : "cuda";
}

void Loop::profile_baseline() {
  if (!o_.build_command.empty()) {
    CommandOutcome b = env_.build(o_.build_command);
    if (!b.ok)
      throw Error(ExitCode::ApplicationFailed, fmt::format("the build command failed on the original source ({}); nothing was "
                                                           "changed: {}", b.status, b.messages));
  }
  log::info("profiling the baseline ({} runs)", o_.runs);
  baseline_ = env_.profile(o_.runs, (out_ / "profile-baseline").string(), /*roofline_counters=*/o_.counters);
  if (!o_.counters) baseline_.analysis["counter_failure"] = "the counter pass was skipped (--no-counters)";
  doc_["baseline"]["runtime_per_run_ns"] = baseline_.runtime_per_run_ns;
  doc_["baseline"]["runtime_median_ns"] = median(baseline_.runtime_per_run_ns);
  doc_["baseline"]["profile_dir"] = baseline_.output_dir;
  doc_["ranking"] = baseline_.ranking;
}

// The first proposer's first round needs only the source, the profile and the original's code object facts (the
// request is the one propose_and_evaluate() would make), so it is asked for as soon as those exist: the first
// candidate's parse and compile then run while the inputs are derived and the original replayed, instead of
// before the first candidate's gates (1.6 s of its 4.2 s on an H200, 2026-11-29).
ProposalRequest Loop::request(int round, int budget) const {
  return {o_.source, original_text_, kernel_, language_, baseline_.analysis, guard_constraints(), round, budget, parser_flags_};
}

void Loop::propose_first_round() {
  if (proposers_.empty() || o_.max_candidates <= 0) return;
  first_round_ = proposers_.front()->propose(request(0, o_.max_candidates));
  precompile(*first_round_, o_.max_candidates);
}

void Loop::propose_and_evaluate() {
  int proposed = 0;
  for (int round = 0; round < kMaxRounds && proposed < o_.max_candidates; ++round) {
    bool any = false;
    for (auto& p : proposers_) {
      std::vector<Candidate> cands;
      if (round == 0 && &p == &proposers_.front() && first_round_) {
        cands = std::move(*first_round_);  // asked for and compiled during prepare_inputs()
        first_round_.reset();
      } else {
        cands = p->propose(request(round, o_.max_candidates - proposed));
        precompile(cands, o_.max_candidates - proposed);
      }
      for (const auto& c : cands) {
        if (proposed >= o_.max_candidates) break;
        ++proposed, any = true;
        evaluate(c, *p, 0);
      }
    }
    if (!any) break;
  }
}

json Loop::propose_diff_only(json& entry, const Candidate& c) {
  std::string diff_file = (out_ / "proposed.diff").string();
  write_text_file_atomically(diff_file, entry["diff"].get<std::string>());
  std::string apply = fmt::format("apply it with: patch {} < {} (then rebuild), or rerun with --build \"CMD\" to let "
                                  "rocm-perf rebuild and verify it end to end", o_.source, diff_file);
  return {{"status", "proposed"}, {"candidate", c.id}, {"speedup", entry["speedup"]}, {"diff_file", diff_file},
          {"how_to_apply", apply},
          {"reason", o_.dry_run ? "--dry-run: the source was not touched; the best candidate's diff is in " + diff_file
                                : "no --build given: rocm-perf cannot rebuild the application, so it wrote nothing and "
                                  "did not run the end-to-end gate; the verified candidate's diff is in " + diff_file}};
}

json Loop::apply_best(const std::vector<std::size_t>& passing) {
  json decision;
  for (std::size_t n = 0; n < passing.size(); ++n) {
    auto& [entry, c] = evaluated_[passing[n]];
    json e2e;
    bool ok = end_to_end(entry, c, e2e);
    entry["gates"].push_back({{"gate", "end_to_end"}, {"passed", ok}, {"reason", e2e["reason"]}, {"evidence", e2e}});
    for (auto& p : proposers_)
      if (p->name() == c.proposer || (c.proposer == "deterministic" && p->name() == "deterministic"))
        p->observe({c.id, ok ? "accepted" : "end_to_end", ok, e2e["reason"], e2e});
    if (ok) {
      entry["decision"] = "accepted";
      return {{"status", "accepted"}, {"candidate", c.id}, {"speedup", entry["speedup"]},
              {"end_to_end_speedup", e2e["speedup"]}, {"backup", e2e["backup"]},
              {"reason", fmt::format("{} replaced by candidate {}; the original is in {}", o_.source, c.id,
                                     e2e["backup"].get<std::string>())}};
    }
    entry["decision"] = "rolled_back";
    decision = {{"status", "rolled_back"}, {"candidate", c.id}, {"reason", e2e["reason"]}};
    if (!o_.keep_going) break;
  }
  return decision;
}

json Loop::decide() {
  std::vector<std::size_t> passing;
  for (std::size_t i = 0; i < evaluated_.size(); ++i)
    if (evaluated_[i].first["decision"] == "passed_replay_gates") passing.push_back(i);
  std::stable_sort(passing.begin(), passing.end(), [&](std::size_t a, std::size_t b) {
    return evaluated_[a].first.value("speedup", 0.0) > evaluated_[b].first.value("speedup", 0.0);
  });
  if (passing.empty())
    return {{"status", "no_candidate_passed"}, {"reason", "no candidate passed the signature, structure, compile, "
                                                         "equivalence and performance gates"}};
  // Without a way to rebuild, the end-to-end gate would re-time the unchanged binary and could keep a candidate
  // on noise: then nothing is written, as with --dry-run, and the report says how to apply the verified diff.
  const bool cannot_rebuild = o_.build_command.empty() && !o_.runtime_compiled;
  if (o_.dry_run || cannot_rebuild) {
    auto& [entry, c] = evaluated_[passing.front()];
    return propose_diff_only(entry, c);
  }
  return apply_best(passing);
}

OptimizeResult Loop::run() {
  if (!o_.kernel_regex.empty()) UserRegex check(o_.kernel_regex, "--kernel");  // before the first build or profile
  fs::create_directories(out_);
  start_document();
  read_source();
  profile_baseline();
  choose_kernel(baseline_);
  log::info("optimizing kernel {} ({})", kernel_, o_.source);
  prepare_inputs();
  doc_["speed_of_light"] = sol_;
  propose_and_evaluate();
  json decision = decide();
  for (auto& [entry, c] : evaluated_) doc_["candidates"].push_back(entry);
  doc_["decision"] = decision;
  write_document();
  return {doc_, 0};
}

}  // namespace loop_detail

OptimizeResult run_optimize(const OptimizeOptions& options, Environment& env, std::vector<std::unique_ptr<Proposer>>& proposers,
                            const StepHook& hook) {
  loop_detail::Loop loop(options, env, proposers, hook);
  return loop.run();
}

}  // namespace rpl::optimize
