#pragma once
// Internal to src/optimize: the optimize loop's state and steps, shared by optimize_loop.cpp (the run: profile,
// inputs, proposals, decision, document) and candidate_gates.cpp (one candidate's gates: static, compile, binary,
// equivalence, performance).
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "capture/manifest.hpp"
#include "collectors/code_object_facts.hpp"
#include "optimize/batched_replays.hpp"
#include "optimize/optimize_loop.hpp"
#include "optimize/source_model.hpp"

namespace rpl::optimize::loop_detail {
namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kMaxRounds = 4;

struct InputState {
  std::string name;
  fs::path capture;
  fs::path original_dump;
  fs::path original_again_dump;  // a second replay of the original on the same input
  bool original_varies = false;  // the two differ: candidates are judged against that spread
  json summary = json::object();
};

// What every candidate must respect: the proposers' prompt and the document list the same rules.
const std::vector<std::string>& guard_constraints();
// The pattern that finds kernel `name` among the profile's display names ("void k<float>(...)", "k(...)", "k").
std::string kernel_regex_for(const std::string& name);
bool display_name_is(const std::string& display, const std::string& name);

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
  // original's and the candidate's alternating), run in two stages (BatchedReplays).
  std::vector<ReplayJob> candidate_replays(const fs::path& code_object) const;
  // Judges `inputs`; `deferred` are named in the gate's entry as judged after the performance gate.
  bool equivalence(const fs::path& code_object, json& entry, BatchedReplays& replays, const std::vector<std::size_t>& inputs,
                   const std::vector<std::size_t>& deferred);
  bool performance(json& entry, BatchedReplays& replays);
  unsigned rounds_before_a_slower_candidate_stops() const;
  bool end_to_end(const json& entry, const Candidate& c, json& e2e);
  void write_document();
  json build_check(const fs::path& source, const fs::path& code_object, const std::string& capture);
  void start_document();
  void read_source();
  void profile_baseline();
  // What every proposer is asked with, the same in every round but for the round and the budget.
  ProposalRequest request(int round, int budget) const;
  void propose_first_round();
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
  std::vector<std::string> parser_flags_;  // the application's header paths and macros, for every parse
  SourceModel original_;
  std::string kernel_;
  std::string language_;
  ProfileOutcome baseline_;
  fs::path original_co_;
  fs::path perf_capture_;
  std::vector<InputState> states_;
  capture::Manifest manifest_;
  std::vector<uint64_t> launched_threads_;  // threads per block of each captured launch (binary gates)
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
  // A candidate's source parsed ahead (libclang, about 0.4 s) while earlier candidates replay: by candidate id,
  // with the text it parsed, so static_gates() judges exactly what it would have parsed itself.
  std::map<std::string, std::pair<std::string, std::future<SourceModel>>> parsed_;
  std::map<std::string, Precompiled> inspected_;                 // by code object path, until its binary gates
  // The first proposer's first-round candidates, asked for (and compiled) while the inputs are prepared.
  std::optional<std::vector<Candidate>> first_round_;
};
}  // namespace rpl::optimize::loop_detail
