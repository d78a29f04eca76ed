// One candidate's gates in the optimize loop (optimize_loop_internal.hpp): static, compile (ahead, in parallel),
// the reproducible-build check, binary, equivalence and performance.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <future>

#include <fmt/ranges.h>

#include "optimize/binary_gates.hpp"
#include "optimize/optimize_loop_internal.hpp"
#include "optimize/static_gates.hpp"
#include "optimize/stats.hpp"
#include "optimize/validation_hook.hpp"
#include "support/demangle.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::optimize::loop_detail {
namespace {

// One verdict of a signature check followed by a structure check, as the two gates' entries: the structure gate is
// recorded only when the signature holds.
bool record_gate_pair(json& entry, const StaticVerdict& v, const char* signature, const char* structure) {
  const bool sig_ok = v.passed || v.gate != signature;
  entry["gates"].push_back({{"gate", signature}, {"passed", sig_ok}, {"reason", sig_ok ? "unchanged" : v.reason},
                            {"evidence", sig_ok ? json::object() : v.evidence}});
  if (!sig_ok) return false;
  entry["gates"].push_back({{"gate", structure}, {"passed", v.passed}, {"reason", v.passed ? "unchanged" : v.reason},
                            {"evidence", v.evidence}});
  return v.passed;
}

// Sequential stop that cannot change the decision: even if every remaining round put the candidate ahead of every
// original sample (the best case), Mann-Whitney would leave p >= alpha or the medians would stay below
// min_speedup, so the full gate would reject it too.
bool cannot_become_significant(const std::vector<double>& orig, const std::vector<double>& cand, unsigned rounds,
                               double alpha, double min_speedup) {
  std::vector<double> best_o = orig, best_c = cand;
  for (std::size_t k = orig.size(); k < rounds; ++k) best_o.push_back(1e300), best_c.push_back(0);
  if (mann_whitney_less(best_o, best_c).p_value >= alpha) return true;
  const double mc = median(best_c);
  return mc > 0 && median(best_o) / mc < min_speedup;
}

}  // namespace

// The fewest rounds after which a candidate slower in every round is already rejected: the first stage of a
// candidate's replays, the rest run only when the gate needs them.
unsigned Loop::rounds_before_a_slower_candidate_stops() const {
  for (unsigned r = 1; r < o_.perf_rounds; ++r)
    if (cannot_become_significant(std::vector<double>(r, 1.0), std::vector<double>(r, 2.0), o_.perf_rounds, o_.alpha,
                                  o_.min_speedup))
      return r;
  return o_.perf_rounds;
}

bool Loop::static_gates(const Candidate& c, json& entry) {
  SourceModel cand;
  if (auto it = parsed_.find(c.id); it != parsed_.end() && it->second.first == c.source_text) {
    auto parsed = std::move(it->second.second);
    parsed_.erase(it);
    cand = parsed.get();  // rethrows what parse_source threw
  } else {
    cand = parse_source(o_.source, c.source_text, parser_flags_);
  }
  return record_gate_pair(entry, check_static_gates(original_, cand, kernel_), "signature", "structure");
}

// A round's candidates are compiled side by side (the compiler is single-threaded) while the gates judge them in
// order; compile() takes the result when it gets there.
void Loop::precompile(const std::vector<Candidate>& cands, int budget) {
  for (int i = 0; i < int(cands.size()) && i < budget; ++i) {
    const Candidate& c = cands[std::size_t(i)];
    // Each parse has its own libclang index, so parses may run side by side.
    parsed_[c.id] = {c.source_text, std::async(std::launch::async, [this, text = c.source_text] {
                                       return parse_source(o_.source, text, parser_flags_);
                                     })};
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
  return record_gate_pair(entry, check_binary_gates(*original_facts_, *facts, launched_threads_), "binary_signature", "binary_structure");
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

bool Loop::equivalence(const fs::path& code_object, json& entry, BatchedReplays& replays,
                       const std::vector<std::size_t>& inputs, const std::vector<std::size_t>& deferred) {
  json per_input = json::array();
  bool ok = true, any_by_spread = false;
  std::string reason;
  for (std::size_t i : inputs) {
    const auto& s = states_[i];
    fs::path dump = code_object.parent_path() / "dumps" / s.name;
    const ReplayOutcome& r = replays.get(i);
    if (!r.ok) {
      per_input.push_back({{"input", s.name}, {"launched", false}, {"error", r.error}});
      ok = false, reason = fmt::format("the candidate failed to launch or run on input {}: {}", s.name, r.error);
      break;
    }
    bool by_spread = false;
    auto judge = [&](const fs::path& result) {
      DumpComparison c = compare_dumps(manifest_, types_, s.original_dump, result, o_.tolerance);
      if (!c.equivalent && s.original_varies) {
        c = compare_with_spread(manifest_, types_, {s.original_dump, s.original_again_dump}, result);
        by_spread = true;
      }
      return c;
    };
    DumpComparison cmp = judge(dump);
    // A result from a batch that differs is replayed once more alone, in a process of its own, before it can
    // reject: on 2026-11-29 a correct candidate was rejected on a batch's result for an in-place kernel (its dump
    // held two launches' result). The cause, a launch racing the runner's pristine copies, is fixed in the CUDA
    // runner (a415573); this stays as a defence that costs only rejected candidates a replay. A wrong candidate is
    // wrong alone too, so it admits nothing wrong; the evidence keeps the batch's comparison.
    json batch_comparison;
    if (!cmp.equivalent && replays.from_batch(i)) {
      fs::path alone = dump;
      alone += "-alone";
      const ReplayOutcome lone = env_.replay(s.capture.string(), code_object.string(), alone.string(), 1);
      if (lone.ok) {
        batch_comparison = cmp.to_json();
        by_spread = false;
        cmp = judge(alone);
        dump = alone;
      }
    }
    any_by_spread = any_by_spread || by_spread;  // the judgement that stands (the lone replay's, if there was one)
    per_input.push_back({{"input", s.name}, {"launched", true}, {"comparison", cmp.to_json()},
                         {"judged_by", by_spread ? "the original's run-to-run spread" : "the original's result"}});
    if (!batch_comparison.is_null()) {
      per_input.back()["batch_comparison"] = batch_comparison;
      per_input.back()["note"] = cmp.equivalent ? "the batch's result differed; a replay of its own matched, and judges"
                                                : "the batch's result differed, and so did a replay of its own";
    }
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
  std::vector<std::string> deferred_names;
  for (std::size_t i : deferred) deferred_names.push_back(states_[i].name);
  const std::string later = deferred.empty() ? ""
                            : fmt::format("; input {} is judged after the performance gate (it needs a replay process "
                                          "of its own, spent only on a candidate that is faster)",
                                          fmt::join(deferred_names, ", "));
  const std::string judged = inputs.size() == states_.size() ? fmt::format("{}", inputs.size())
                                                             : fmt::format("{} of {}", inputs.size(), states_.size());
  entry["gates"].push_back({{"gate", "equivalence"}, {"passed", ok},
                            {"reason", ok ? fmt::format("identical results on {} inputs{}{}{}", judged,
                                                        any_by_spread ? " (within the original's run-to-run spread where "
                                                                        "the original itself varies)"
                                                        : o_.tolerance.exact() ? " (bit-exact)"
                                                                               : " (within tolerance)",
                                                        o_.validate_command.empty() ? "" : ", admitted by --validate-command",
                                                        later)
                                          : reason},
                            {"evidence", {{"inputs", per_input}, {"deferred_inputs", deferred_names}, {"rtol", o_.tolerance.rtol},
                                          {"atol", o_.tolerance.atol}, {"rtol_scale", to_string(o_.tolerance.scale)}}}});
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
    if (error.empty() && r + 1 < o_.perf_rounds)
      hopeless = cannot_become_significant(orig, cand, o_.perf_rounds, o_.alpha, o_.min_speedup);
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
    reason = fmt::format("speedup {:.3f} cannot pass: after {} of {} rounds, even if every remaining round were faster, "
                         "Mann-Whitney p would stay >= {} or the speedup below --min-speedup {:.3f} (stopped early)",
                         speedup, orig.size(), o_.perf_rounds, o_.alpha, o_.min_speedup);
  else if (speedup < o_.min_speedup) reason = fmt::format("speedup {:.3f} is below --min-speedup {:.3f}", speedup, o_.min_speedup);
  else if (mw.p_value >= o_.alpha) reason = fmt::format("speedup {:.3f} is not significant (Mann-Whitney p = {:.3f} >= {})", speedup, mw.p_value, o_.alpha);
  else ok = true, reason = fmt::format("speedup {:.3f} (median {:.0f} -> {:.0f} ns, p = {:.4f})", speedup, mo, mc, mw.p_value);
  entry["gates"].push_back({{"gate", "performance"}, {"passed", ok}, {"reason", reason}, {"evidence", ev}});
  entry["speedup"] = speedup;
  return ok;
}

}  // namespace rpl::optimize::loop_detail
