#include "optimize/optimize_loop.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>

#include <fmt/ranges.h>

#include "capture/manifest.hpp"
#include "optimize/batched_replays.hpp"
#include "optimize/binary_gates.hpp"
#include "optimize/source_model.hpp"
#include "optimize/static_gates.hpp"
#include "optimize/stats.hpp"
#include "optimize/validation_hook.hpp"
#include "support/atomic_file.hpp"
#include "support/demangle.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/user_regex.hpp"

namespace rpl::optimize {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kMaxRounds = 4;

struct InputState {
  std::string name;
  fs::path capture;
  fs::path original_dump;
  fs::path original_again_dump;  // a second replay of the original on the same input
  bool original_varies = false;  // the two differ: candidates are judged against that spread
  json summary = json::object();
};

const std::vector<std::string>& guard_constraints() {
  static const std::vector<std::string> c = {
      "return the whole source file; change only the body of the kernel",
      "the kernel's signature is frozen: parameter types and qualifiers, template parameters and defaults, return type, "
      "__launch_bounds__, linkage",
      "no new __device__/__shared__/__constant__ variables outside the kernel, no static variables",
      "no clock(), clock64(), %globaltimer or other timers; no printf; no new atomics on memory the original does not write; no new inline asm",
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

class Loop {
 public:
  Loop(const OptimizeOptions& o, Environment& env, std::vector<std::unique_ptr<Proposer>>& proposers, const StepHook& hook)
      : o_(o), env_(env), proposers_(proposers), hook_(hook), out_(fs::absolute(o.output_dir)) {}
  OptimizeResult run();

 private:
  void choose_kernel(const ProfileOutcome& baseline);
  void prepare_inputs();
  void evaluate(const Candidate& c, Proposer& proposer, int depth);
  bool static_gates(const Candidate& c, json& entry);
  bool compile(const Candidate& c, json& entry, fs::path& code_object);
  void read_original_facts();
  void precompile(const std::vector<Candidate>& cands, int budget);
  bool binary_gates(const fs::path& code_object, json& entry);
  // A candidate's replays: every input of the equivalence gate, then the performance gate's rounds (the
  // original's and the candidate's alternating), in one batch.
  std::vector<ReplayJob> candidate_replays(const fs::path& code_object) const;
  bool equivalence(const fs::path& code_object, json& entry, BatchedReplays& replays);
  bool performance(json& entry, BatchedReplays& replays);
  bool end_to_end(const json& entry, const Candidate& c, json& e2e);
  void write_document();
  json build_check(const fs::path& source, const fs::path& code_object, const std::string& capture);
  void start_document();
  void read_source();
  void profile_baseline();
  void propose_and_evaluate();
  json decide();
  json propose_diff_only(json& entry, const Candidate& c);
  json apply_best(const std::vector<std::size_t>& passing);

  const OptimizeOptions& o_;
  Environment& env_;
  std::vector<std::unique_ptr<Proposer>>& proposers_;
  const StepHook& hook_;
  fs::path out_;
  json doc_;
  std::string original_text_;
  SourceModel original_;
  std::string kernel_;
  std::string language_;
  ProfileOutcome baseline_;
  fs::path original_co_;
  fs::path perf_capture_;
  std::vector<InputState> states_;
  capture::Manifest manifest_;
  std::map<uint64_t, ElementType> types_;
  double sol_ns_ = 0;
  json sol_ = json::object();
  std::vector<std::pair<json, Candidate>> evaluated_;  // every candidate, repaired ones included
  std::optional<collectors::CodeObjectFacts> original_facts_;
  // A candidate compiled ahead, with what the binary gates will read in its code object (read there too, off
  // the gates' path: the disassembler takes about half a second).
  struct Precompiled {
    CommandOutcome built;
    std::optional<collectors::CodeObjectFacts> facts;
    std::optional<std::string> inspect_error;  // set: reading the code object threw (the gate says so)
    bool inspected = false;
  };
  std::map<std::string, std::future<Precompiled>> precompiled_;  // by candidate id
  std::map<std::string, Precompiled> inspected_;                 // by code object path, until its binary gates
};

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
        if (!k.errors.empty())
          throw Error(ExitCode::InputInvalid, fmt::format("{}: kernel {} does not parse: {}", o_.source, k.name, k.errors.front()));
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
  std::vector<std::string> param_types;
  for (const auto& p : original_.find(kernel_)->params) param_types.push_back(p.canonical_type);
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
  const std::string display = doc_["kernel"].value("display_name", "");
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

bool Loop::static_gates(const Candidate& c, json& entry) {
  SourceModel cand = parse_source(o_.source, c.source_text);
  StaticVerdict v = check_static_gates(original_, cand, kernel_);
  bool sig_ok = v.passed || v.gate != "signature";
  entry["gates"].push_back({{"gate", "signature"}, {"passed", sig_ok}, {"reason", sig_ok ? "unchanged" : v.reason},
                            {"evidence", sig_ok ? json::object() : v.evidence}});
  if (!sig_ok) return false;
  entry["gates"].push_back({{"gate", "structure"}, {"passed", v.passed}, {"reason", v.passed ? "unchanged" : v.reason},
                            {"evidence", v.evidence}});
  return v.passed;
}

// A round's candidates are compiled side by side (the compiler is single-threaded) while the gates judge them in
// order; compile() takes the result when it gets there.
void Loop::precompile(const std::vector<Candidate>& cands, int budget) {
  for (int i = 0; i < int(cands.size()) && i < budget; ++i) {
    const Candidate& c = cands[std::size_t(i)];
    fs::path dir = out_ / "candidates" / c.id;
    fs::create_directories(dir);
    fs::path src = dir / fs::path(o_.source).filename();
    write_text_file_atomically(src.string(), c.source_text);
    std::string co = (dir / "kernel.co").string(), capture = perf_capture_.string();
    // The second build of the build check runs here too, off the gates' path; compile() compares the two.
    precompiled_[c.id] = std::async(std::launch::async, [this, s = src.string(), co, capture] {
      Precompiled p;
      p.built = env_.compile(s, co, capture);
      if (p.built.ok && o_.build_check) env_.compile(s, co + ".again", capture);
      if (p.built.ok && original_facts_) {
        p.inspected = true;
        try {
          p.facts = env_.inspect(co);
        } catch (const Error& e) {
          p.inspect_error = e.what();
        }
      }
      return p;
    });
  }
}

bool Loop::compile(const Candidate& c, json& entry, fs::path& code_object) {
  fs::path dir = out_ / "candidates" / c.id;
  fs::create_directories(dir);
  fs::path src = dir / fs::path(o_.source).filename();
  code_object = dir / "kernel.co";
  CommandOutcome r;
  if (auto it = precompiled_.find(c.id); it != precompiled_.end() && read_text_file(src.string()) == c.source_text) {
    Precompiled p = it->second.get();
    precompiled_.erase(it);
    r = p.built;
    if (p.inspected) inspected_[code_object.string()] = std::move(p);
  } else {
    write_text_file_atomically(src.string(), c.source_text);
    r = env_.compile(src.string(), code_object.string(), perf_capture_.string());
  }
  entry["compile"] = {{"source", src.string()}, {"code_object", code_object.string()}, {"status", r.status}};
  entry["compiler_messages"] = r.messages;
  if (r.ok) entry["compile"]["build_check"] = build_check(src, code_object, perf_capture_.string());
  return r.ok;
}

// The same source built twice must give the same code object (byte for byte), or every later gate judges one
// build among several possible ones. A difference is reported, not fatal: the gates keep judging the first
// object, the one that would be installed, so no gate ever compares objects of different builds.
json Loop::build_check(const fs::path& source, const fs::path& code_object, const std::string& capture) {
  if (!o_.build_check) return {{"checked", false}, {"reason", "--no-build-check"}};
  fs::path again = code_object;
  again += ".again";
  if (!fs::exists(again)) {  // not built beside the first (precompile): build it now
    CommandOutcome r = env_.compile(source.string(), again.string(), capture);
    if (!r.ok) return {{"checked", true}, {"reproducible", false}, {"reason", "the second build failed: " + r.status}};
  }
  const std::string first = read_text_file(code_object.string()), second = read_text_file(again.string());
  if (first == second) {
    std::error_code ignored;
    fs::remove(again, ignored);
    return {{"checked", true}, {"reproducible", true}, {"bytes", first.size()}};
  }
  std::size_t at = 0;
  while (at < first.size() && at < second.size() && first[at] == second[at]) ++at;
  const std::string why = fmt::format("two builds of {} differ ({} and {} bytes, first difference at byte {}; the second "
                                      "is kept as {})", source.string(), first.size(), second.size(), at, again.string());
  log::warn("build not reproducible: {}", why);
  doc_["notes"].push_back("build not reproducible: " + why);
  return {{"checked", true}, {"reproducible", false}, {"reason", why}};
}

// The compiled code object against the original's: ABI, symbols, machine-code structure (binary_gates.hpp).
// The original's code object: what the binary gates compare with, and the kernel's registers and static shared
// memory for the proposers' facts.
void Loop::read_original_facts() {
  try {
    original_facts_ = env_.inspect(original_co_.string());
  } catch (const Error& e) {
    doc_["notes"].push_back(fmt::format("the original's code object could not be read ({}): the binary gates are skipped", e.what()));
  }
  if (!original_facts_) return;
  doc_["baseline"]["code_object"] = describe_facts(*original_facts_);
  const std::string display = doc_["kernel"].value("display_name", "");
  const std::string mangled_name = fmt::format("{}{}", kernel_.size(), kernel_);
  const collectors::KernelAbi* abi = nullptr;
  for (const auto& k : original_facts_->kernels)
    if (demangle(k.symbol) == display || (!abi && k.symbol.find(mangled_name) != std::string::npos)) abi = &k;
  if (!abi || !baseline_.analysis.contains("kernels")) return;
  for (auto& k : baseline_.analysis["kernels"])
    if (k.value("name", "") == display) {
      k["registers"] = abi->registers;
      k["static_shared_bytes"] = abi->static_shared_bytes;
    }
}

bool Loop::binary_gates(const fs::path& code_object, json& entry) {
  if (!original_facts_) return true;
  std::optional<collectors::CodeObjectFacts> facts;
  std::optional<std::string> unreadable;
  if (auto it = inspected_.find(code_object.string()); it != inspected_.end()) {
    facts = std::move(it->second.facts);
    unreadable = std::move(it->second.inspect_error);
    inspected_.erase(it);
  } else {
    try {
      facts = env_.inspect(code_object.string());
    } catch (const Error& e) {
      unreadable = e.what();
    }
  }
  if (unreadable) {
    entry["gates"].push_back({{"gate", "binary_signature"}, {"passed", false},
                              {"reason", fmt::format("the candidate's code object cannot be read: {}", *unreadable)},
                              {"evidence", json::object()}});
    return false;
  }
  if (!facts) return true;
  StaticVerdict v = check_binary_gates(*original_facts_, *facts);
  bool sig_ok = v.passed || v.gate != "binary_signature";
  entry["gates"].push_back({{"gate", "binary_signature"}, {"passed", sig_ok}, {"reason", sig_ok ? "unchanged" : v.reason},
                            {"evidence", sig_ok ? json::object() : v.evidence}});
  if (!sig_ok) return false;
  entry["gates"].push_back({{"gate", "binary_structure"}, {"passed", v.passed}, {"reason", v.passed ? "unchanged" : v.reason},
                            {"evidence", v.evidence}});
  return v.passed;
}

std::vector<ReplayJob> Loop::candidate_replays(const fs::path& code_object) const {
  std::vector<ReplayJob> jobs;
  for (const auto& s : states_)
    jobs.push_back({s.capture.string(), code_object.string(), (code_object.parent_path() / "dumps" / s.name).string(), 1});
  for (unsigned r = 0; r < o_.perf_rounds; ++r) {
    // Timing only: the equivalence gate has judged the results, so no verification replays (0)
    jobs.push_back({perf_capture_.string(), original_co_.string(), "", o_.perf_iterations, 0});
    jobs.push_back({perf_capture_.string(), code_object.string(), "", o_.perf_iterations, 0});
  }
  return jobs;
}

bool Loop::equivalence(const fs::path& code_object, json& entry, BatchedReplays& replays) {
  json per_input = json::array();
  bool ok = true, any_by_spread = false;
  std::string reason;
  for (std::size_t i = 0; i < states_.size(); ++i) {
    const auto& s = states_[i];
    fs::path dump = code_object.parent_path() / "dumps" / s.name;
    const ReplayOutcome& r = replays.get(i);
    if (!r.ok) {
      per_input.push_back({{"input", s.name}, {"launched", false}, {"error", r.error}});
      ok = false, reason = fmt::format("the candidate failed to launch or run on input {}: {}", s.name, r.error);
      break;
    }
    DumpComparison cmp = compare_dumps(manifest_, types_, s.original_dump, dump, o_.tolerance);
    bool by_spread = false;
    if (!cmp.equivalent && s.original_varies) {
      cmp = compare_with_spread(manifest_, types_, {s.original_dump, s.original_again_dump}, dump);
      by_spread = any_by_spread = true;
    }
    per_input.push_back({{"input", s.name}, {"launched", true}, {"comparison", cmp.to_json()},
                         {"judged_by", by_spread ? "the original's run-to-run spread" : "the original's result"}});
    if (cmp.equivalent && !o_.validate_command.empty()) {
      const ValidationRun run{s.name, s.original_dump, dump, s.capture, dump.parent_path() / (s.name + "-validate.log")};
      const ValidationOutcome v = run_validation_command(o_.validate_command, run, o_.validate_timeout_s);
      per_input.back()["validation"] = v.to_json(o_.validate_command, run);
      if (!v.passed) {
        reason = fmt::format("on input {}: the validation command rejected the result (it {}): {}", s.name, v.status,
                             v.output_tail);
        ok = false;
        break;
      }
    }
    if (!cmp.equivalent) {
      const RegionComparison* first = nullptr;
      for (const auto& rc : cmp.regions)
        if (!rc.within_tolerance) { first = &rc; break; }
      reason = first ? fmt::format("on input {}: region {} ({}) differs from the original's result in {} of {} bytes{}",
                                   s.name, first->region, first->element, first->bytes_differing, first->bytes,
                                   first->problem.empty() ? "" : " (" + first->problem + ")")
                     : fmt::format("on input {}: results differ", s.name);
      ok = false;
      break;
    }
  }
  entry["gates"].push_back({{"gate", "equivalence"}, {"passed", ok},
                            {"reason", ok ? fmt::format("identical results on {} inputs{}{}", states_.size(),
                                                        any_by_spread ? " (within the original's run-to-run spread where "
                                                                        "the original itself varies)"
                                                        : o_.tolerance.exact() ? " (bit-exact)"
                                                                               : " (within tolerance)",
                                                        o_.validate_command.empty() ? "" : ", admitted by --validate-command")
                                          : reason},
                            {"evidence", {{"inputs", per_input}, {"rtol", o_.tolerance.rtol}, {"atol", o_.tolerance.atol},
                                          {"rtol_scale", to_string(o_.tolerance.scale)}}}});
  return ok;
}

bool Loop::performance(json& entry, BatchedReplays& replays) {
  std::vector<double> orig, cand;
  std::string error;
  bool hopeless = false;
  const std::size_t first = states_.size();  // the rounds follow the equivalence inputs (candidate_replays)
  for (unsigned r = 0; r < o_.perf_rounds && error.empty() && !hopeless; ++r) {
    const ReplayOutcome& a = replays.get(first + 2 * r);
    const ReplayOutcome& b = replays.get(first + 2 * r + 1);
    if (!a.ok || !b.ok) error = !a.ok ? "original: " + a.error : "candidate: " + b.error;
    else orig.push_back(a.median_ns), cand.push_back(b.median_ns);
    // Sequential stop that cannot change the decision: when even the best remaining rounds (every later candidate
    // sample faster than every original one) would leave p >= alpha, the full gate would reject it too.
    if (error.empty() && r + 1 < o_.perf_rounds) {
      std::vector<double> best_o = orig, best_c = cand;
      for (unsigned k = r + 1; k < o_.perf_rounds; ++k) best_o.push_back(1e300), best_c.push_back(0);
      hopeless = mann_whitney_less(best_o, best_c).p_value >= o_.alpha;
    }
  }
  double mo = median(orig), mc = median(cand);
  double speedup = mc > 0 ? mo / mc : 0;
  MannWhitney mw = mann_whitney_less(orig, cand);
  json ev = {{"original_ns", orig}, {"candidate_ns", cand}, {"original_median_ns", mo}, {"candidate_median_ns", mc},
             {"speedup", speedup}, {"mann_whitney_u", mw.u}, {"p_value", mw.p_value}, {"alpha", o_.alpha},
             {"min_speedup", o_.min_speedup}, {"rounds", o_.perf_rounds}, {"rounds_run", orig.size()},
             {"stopped_early", hopeless}, {"iterations_per_round", o_.perf_iterations},
             {"speed_of_light", sol_}};
  std::string reason;
  bool ok = false;
  if (!error.empty()) reason = "a timing replay failed: " + error;
  else if (sol_ns_ > 0 && mc < sol_ns_)
    reason = fmt::format("suspicious: {:.0f} ns is faster than the speed of light for the bytes the original writes ({:.0f} ns)", mc, sol_ns_);
  else if (hopeless)
    reason = fmt::format("speedup {:.3f} cannot become significant: after {} of {} rounds even faster remaining rounds would "
                         "leave Mann-Whitney p >= {} (stopped early)", speedup, orig.size(), o_.perf_rounds, o_.alpha);
  else if (speedup < o_.min_speedup) reason = fmt::format("speedup {:.3f} is below --min-speedup {:.3f}", speedup, o_.min_speedup);
  else if (mw.p_value >= o_.alpha) reason = fmt::format("speedup {:.3f} is not significant (Mann-Whitney p = {:.3f} >= {})", speedup, mw.p_value, o_.alpha);
  else ok = true, reason = fmt::format("speedup {:.3f} (median {:.0f} -> {:.0f} ns, p = {:.4f})", speedup, mo, mc, mw.p_value);
  entry["gates"].push_back({{"gate", "performance"}, {"passed", ok}, {"reason", reason}, {"evidence", ev}});
  entry["speedup"] = speedup;
  return ok;
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
      ProposalRequest req{o_.source, original_text_, kernel_, language_, baseline_.analysis, guard_constraints(), c.round, 1};
      if (auto fixed = proposer.repair(req, c, messages)) evaluate(*fixed, proposer, depth + 1);
    }
    return;
  }
  entry["gates"].push_back({{"gate", "compile"}, {"passed", true}, {"reason", "compiled"}, {"evidence", json::object()}});
  const bool binary_ok = binary_gates(co, entry);
  step("binary_gates");
  if (!binary_ok) return finish("rejected");
  BatchedReplays replays(env_, candidate_replays(co));
  step("replay_batch");
  seconds["replay_batch_jobs"] = replays.batch_job_seconds();  // within replay_batch: the replays themselves
  const bool equivalent = equivalence(co, entry, replays);
  step("equivalence");
  if (!equivalent) return finish("rejected");
  const bool faster = performance(entry, replays);
  step("performance");
  if (!faster) return finish("rejected");
  entry["code_object"] = co.string();
  finish("passed_replay_gates");
}

}  // namespace

namespace {

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
  doc_ = {{"schema_version", "1.0"}, {"source", o_.source}, {"build_command", o_.build_command}, {"command", o_.app},
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
  original_ = parse_source(o_.source, original_text_);
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

void Loop::propose_and_evaluate() {
  int proposed = 0;
  for (int round = 0; round < kMaxRounds && proposed < o_.max_candidates; ++round) {
    bool any = false;
    for (auto& p : proposers_) {
      ProposalRequest req{o_.source, original_text_, kernel_, language_, baseline_.analysis, guard_constraints(), round,
                          o_.max_candidates - proposed};
      std::vector<Candidate> cands = p->propose(req);
      precompile(cands, o_.max_candidates - proposed);
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

}  // namespace

OptimizeResult run_optimize(const OptimizeOptions& options, Environment& env, std::vector<std::unique_ptr<Proposer>>& proposers,
                            const StepHook& hook) {
  Loop loop(options, env, proposers, hook);
  return loop.run();
}

}  // namespace rpl::optimize
