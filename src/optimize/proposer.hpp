#pragma once
// The one interface every candidate generator of `rocm-perf optimize` implements: the deterministic
// proposer (pragma unroll, invariant-load hoisting) and the LLM proposer. A proposer only proposes whole
// candidate sources; it never compiles, measures or writes the user's file. Every candidate goes through the
// same guard (signature/ABI, structure, compile, equivalence on captured inputs, performance, end to end).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpl::optimize {

// What the proposer is told about the kernel to improve: its source and what our analysis measured.
struct ProposalRequest {
  std::string source_path;          // the user's kernel source (never written by a proposer)
  std::string source_text;          // its full current text
  std::string kernel_name;          // the kernel's name as declared in the source (not mangled)
  std::string language;             // "cuda" or "hip"
  nlohmann::json analysis;          // measured facts: bottleneck label + evidence, roofline point, deep
                                    // analysis stalls, occupancy and limiter, resources, launch geometry
  std::vector<std::string> constraints;  // the guard's rules, stated plainly (signature frozen, no printf, ...)
  int round = 0;                    // 0 for the first round; later rounds carry the history below
  int max_candidates = 8;           // at most this many candidates from this call
  std::vector<std::string> parser_flags;  // clang arguments for the application's headers (parse_source)
};

// One candidate: a whole replacement for the source file.
struct Candidate {
  std::string id;                   // unique within one optimize run, e.g. "unroll-L2-x4" or "llm-r1-c2"
  std::string proposer;             // "deterministic" or "llm"
  std::string description;          // what was changed, one line
  std::string source_text;          // the whole candidate source
  int round = 0;                    // the proposer round that produced it (links to llm-transcript.jsonl)
  nlohmann::json details;           // proposer-specific facts (loop line, unroll factor, model, tokens, ...)
};

// The guard's verdict on a candidate, fed back so later rounds can learn from it.
struct GateVerdict {
  std::string candidate_id;
  std::string gate;                 // "signature", "structure", "compile", "equivalence", "performance",
                                    // "end_to_end", or "accepted"
  bool passed = false;
  std::string reason;               // one line a person can read
  nlohmann::json evidence;          // compiler messages, mismatching regions and magnitudes, timings, ...
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual std::string name() const = 0;
  // Candidates for this round; empty when the proposer has nothing (more) to offer.
  virtual std::vector<Candidate> propose(const ProposalRequest& request) = 0;
  // A candidate failed to compile: return a repaired candidate, or nothing when the proposer cannot repair
  // (the deterministic proposer never can). `compiler_messages` is the compiler's own output.
  virtual std::optional<Candidate> repair(const ProposalRequest& request, const Candidate& failed,
                                          const std::string& compiler_messages) {
    (void)request; (void)failed; (void)compiler_messages;
    return std::nullopt;
  }
  // Every verdict of the guard, in order, so the next propose() can use them.
  virtual void observe(const GateVerdict& verdict) { (void)verdict; }
};

}  // namespace rpl::optimize
