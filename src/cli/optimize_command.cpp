// rocm-perf optimize --source FILE [--build "CMD"] [--kernel REGEX] [options] -- APP [ARGS...]: the guarded
// optimizer (src/optimize): propose, gate, measure, and replace the kernel source only with a verified, faster
// candidate.
#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include <fmt/ranges.h>

#include "cli/commands.hpp"
#ifdef RPL_HAVE_OPTIMIZE
#include "optimize/optimize_loop.hpp"
#include "optimize/real_environment.hpp"
#include "optimize/unroll_proposer.hpp"
#ifdef RPL_HAVE_OPTIMIZE_LLM
#include "optimize/llm/llm_proposer.hpp"
#endif
#endif
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::cli {
#ifdef RPL_HAVE_OPTIMIZE
namespace {
namespace fs = std::filesystem;

struct OptimizeArgs {
  optimize::OptimizeOptions options;
  std::vector<std::string> command;
  std::vector<std::string> candidates;
  std::string compiler;
  std::string compile_flags;
  double timeout_s = 0;
  CommonOptions common;
  std::string proposer = "deterministic";
#ifdef RPL_HAVE_OPTIMIZE_LLM
  optimize::llm::LlmOptions llm;
#endif
};

// The seeds' form `rocm-perf optimize ./app`: the kernel source is the application's name with .cu, .hip or .cpp,
// beside it or in the current directory.
std::string find_source(const std::string& app) {
  std::vector<std::string> tried;
  fs::path p(app);
  std::vector<fs::path> found;
  for (const fs::path& dir : {p.parent_path().empty() ? fs::path(".") : p.parent_path(), fs::path(".")})
    for (const char* ext : {".cu", ".hip", ".cpp"}) {
      fs::path cand = dir / (p.stem().string() + ext);
      tried.push_back(cand.string());
      if (fs::exists(cand) && std::find(found.begin(), found.end(), fs::canonical(cand)) == found.end())
        found.push_back(fs::canonical(cand));
    }
  if (found.size() == 1) return found.front().string();
  throw Error(ExitCode::Usage, found.empty()
                                   ? fmt::format("no --source given and no kernel source found for {} (looked for {}); pass "
                                                 "--source FILE (and --build \"CMD\" if the application must be rebuilt)",
                                                 app, fmt::format("{}", fmt::join(tried, ", ")))
                                   : fmt::format("no --source given and several candidates for {}; pass --source FILE", app));
}

std::vector<std::string> split_words(const std::string& s) {
  std::stringstream ss(s);
  std::vector<std::string> out;
  for (std::string w; ss >> w;) out.push_back(w);
  return out;
}

int run_optimize_command(OptimizeArgs& a) {
  set_log_level(a.common);
  auto& o = a.options;
  if (a.command.empty()) throw Error(ExitCode::Usage, "no application given: rocm-perf optimize --source FILE -- APP [ARGS...]");
  if (o.source.empty()) o.source = find_source(a.command.front());
  if (!fs::exists(o.source)) throw Error(ExitCode::InputMissing, fmt::format("--source {}: no such file", o.source));
  if (o.min_speedup < 1) throw Error(ExitCode::Usage, fmt::format("--min-speedup {}: must be at least 1", o.min_speedup));
  if (o.tolerance.rtol < 0 || o.tolerance.atol < 0) throw Error(ExitCode::Usage, "--rtol and --atol must not be negative");
  o.app = a.command;
  optimize::RealEnvironmentOptions eo;
  eo.app = a.command;
  eo.compiler = a.compiler;
  eo.compile_flags = split_words(a.compile_flags);
  eo.include_dirs = {fs::absolute(o.source).parent_path().string()};  // candidates are compiled from the output folder
  eo.log_dir = (fs::path(o.output_dir) / "logs").string();
  eo.timeout_s = a.timeout_s;
  optimize::RealEnvironment env(eo);
  std::vector<std::unique_ptr<optimize::Proposer>> proposers;
#ifdef RPL_HAVE_OPTIMIZE_LLM
  // Nothing is sent anywhere unless --proposer llm was given.
  std::unique_ptr<optimize::llm::TranscriptWriter> transcript;
  if (a.proposer == "llm") {
    if (!a.candidates.empty()) throw Error(ExitCode::Usage, "--candidate and --proposer llm exclude each other");
    fs::create_directories(o.output_dir);
    transcript = std::make_unique<optimize::llm::TranscriptWriter>((fs::path(o.output_dir) / "llm-transcript.jsonl").string());
    proposers.push_back(optimize::llm::make_llm_proposer(a.llm, *transcript));
    o.max_repairs = a.llm.repair_rounds;
    o.annotate = [t = transcript.get()](nlohmann::json& doc) { doc["llm"] = t->summary(); };
  }
#else
  if (a.proposer == "llm")
    throw Error(ExitCode::Usage, "this rocm-perf was built without libcurl (libcurl4-openssl-dev): --proposer llm is not available");
#endif
  if (proposers.empty()) {  // the default: the deterministic proposer, or the given whole candidates
    if (a.candidates.empty()) proposers.push_back(std::make_unique<optimize::DeterministicProposer>());
    else proposers.push_back(std::make_unique<optimize::FileProposer>(a.candidates));
  }
  optimize::OptimizeResult r = optimize::run_optimize(o, env, proposers);
  if (a.common.json) fmt::print("{}\n", r.document.dump(1));
  else fmt::print("{}", optimize::optimize_summary_text(r.document));
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return r.exit_code;
}

}  // namespace

Action register_optimize(CLI::App& app) {
  auto a = std::make_shared<OptimizeArgs>();
  auto& o = a->options;
  CLI::App* cmd = app.add_subcommand("optimize", "Guarded kernel optimizer: propose loop unrolling (or check given candidates), "
                                                 "prove equivalence on captured inputs, accept only a measured speedup");
  cmd->add_option("command", a->command, "the application and its arguments (put -- before it)")->required();
  cmd->add_option("--source", o.source, "the kernel source file (.cu, .hip, .cpp); default: APP's name with such an extension");
  cmd->add_option("--build", o.build_command, "shell command that rebuilds the application after the source changes");
  cmd->add_option("--kernel", o.kernel_regex, "REGEX: optimize the top-ranked kernel whose name matches (default: the top-ranked "
                                              "kernel defined in the source)");
  cmd->add_option("--max-candidates", o.max_candidates, "candidates to try at most")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--runs", o.runs, "profile runs of the application, baseline and end to end")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--perf-rounds", o.perf_rounds, "alternated replay processes per code object in the performance gate")
      ->capture_default_str()->check(CLI::Range(2u, 100u));
  cmd->add_option("--perf-iterations", o.perf_iterations, "launches per replay process (median taken)")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  cmd->add_option("--min-speedup", o.min_speedup, "smallest kernel speedup accepted")->capture_default_str();
  cmd->add_option("--alpha", o.alpha, "significance level of the one-sided Mann-Whitney U test")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--rtol", o.tolerance.rtol, "relative tolerance for floating-point results (default 0: bit-exact)");
  cmd->add_option("--atol", o.tolerance.atol, "absolute tolerance for floating-point results (default 0: bit-exact)");
  cmd->add_option("--rtol-scale", o.tolerance.scale,
                  "what --rtol is relative to: region (default: the larger of the element and the RMS of the original's "
                  "values in its region, so that a correct reordered sum that cancels near 0 passes) or element (the "
                  "element alone, as numpy.isclose)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, optimize::ToleranceScale>{
          {"region", optimize::ToleranceScale::Region}, {"element", optimize::ToleranceScale::Element}}));
  cmd->add_option("--validate-command", o.validate_command,
                  "CMD: a numerical validation hook run (/bin/sh -c) on every equivalence input after the --rtol/--atol "
                  "comparison passed: {ORIGINAL} and {CANDIDATE} are the two replays' output dumps (r<ID>.bin per "
                  "region; also $RPL_ORIGINAL_DUMP, $RPL_CANDIDATE_DUMP), {CAPTURE} the input (manifest.json), {INPUT} "
                  "its name; exit 0 admits, anything else rejects the candidate. It must admit the original's own "
                  "second replay (else exit 2). See docs/optimize.md");
  cmd->add_option("--validate-timeout", o.validate_timeout_s, "seconds before one run of --validate-command is killed "
                                                              "(a kill rejects)")
      ->capture_default_str()->check(positive_value());
  cmd->add_flag("--no-build-check{false}", o.build_check,
                "do not build the original and each candidate twice to check that the build is reproducible (byte-equal "
                "code objects); by default a difference is reported in optimize.json and on stderr");
  cmd->add_flag("--dry-run", o.dry_run, "never touch the source: report, and write the best candidate's diff");
  cmd->add_flag("--runtime-compiled", o.runtime_compiled, "the application compiles the kernel source at run time (NVRTC, "
                                                          "hipRTC): without --build, the end-to-end gate reruns it as is");
  cmd->add_flag_function("--no-counters", [a](std::int64_t) { a->options.counters = false; },
                "skip the baseline's counter pass (roofline facts for the proposer and the FLOP speed of light)");
  cmd->add_flag("--keep-going", o.keep_going, "when the best candidate fails end to end, try the next one");
  cmd->add_option("--proposer", a->proposer, "who proposes candidates: deterministic (pragma unroll, invariant-load hoisting) "
                                             "or llm (an OpenAI-compatible model; --llm-* options)")
      ->capture_default_str()->check(CLI::IsMember({"deterministic", "llm"}));
#ifdef RPL_HAVE_OPTIMIZE_LLM
  optimize::llm::add_llm_options(*cmd, a->llm);
#endif
  cmd->add_option("--candidate", a->candidates, "check this whole candidate source instead of proposing (repeatable)");
  cmd->add_option("--compiler", a->compiler, "compiler for candidates (default nvcc, or hipcc for AMD captures)");
  cmd->add_option("--compile-flags", a->compile_flags, "flags the application compiles the kernel with (default -O3); their -I, -isystem, -D, -U, -include and -std also guide the source parser");
  cmd->add_option("--timeout", a->timeout_s, "seconds before an application run or replay is killed (0: none)");
  cmd->add_option("-o,--output-dir", o.output_dir, "where optimize.json, captures, candidates and logs go")->capture_default_str();
  add_common_flags(cmd, a->common, {"print optimize.json (schemas/optimize.schema.json) on stdout",
                                    "no progress messages on stderr", "verbose logs on stderr"});
  cmd->positionals_at_end();
  return [cmd, a]() -> int { return cmd->parsed() ? run_optimize_command(*a) : -1; };
}
#else
Action register_optimize(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("optimize", "Guarded kernel optimizer (not in this build: needs libclang-15-dev)");
  cmd->allow_extras();
  return [cmd]() -> int {
    if (!cmd->parsed()) return -1;
    throw Error(ExitCode::Usage, "this rocm-perf was built without libclang (Debian package libclang-15-dev): optimize is "
                                 "not available; install it and rebuild");
  };
}
#endif

}  // namespace rpl::cli
