#pragma once
// The deterministic proposer: `#pragma unroll N` on each eligible loop of the kernel, innermost loops first,
// N from 2 to 8 in the order 4, 2, 8, 3, 6, 5, 7 (powers of two first: they divide common trip counts, so they
// are the likeliest to pay off when --max-candidates cuts the list). A loop is eligible when it is a `for`
// loop without a pragma of its own. The pragma goes on its own line before the loop, indented like it;
// nothing else changes.
#include "optimize/proposer.hpp"
#include "optimize/source_model.hpp"

namespace rpl::optimize {

// Every unroll candidate for `kernel` in `model`, in proposal order.
std::vector<Candidate> unroll_candidates(const SourceModel& model, const std::string& kernel);

// The deterministic proposer: first the invariant-load hoisting candidates (optimize/hoisting.hpp), then the
// unroll candidates above.
class DeterministicProposer : public Proposer {
 public:
  std::string name() const override { return "deterministic"; }
  // Round after round, the next request.max_candidates candidates of the fixed list.
  std::vector<Candidate> propose(const ProposalRequest& request) override;

 private:
  std::size_t next_ = 0;
};

// Proposes the given whole sources (--candidate FILE): to check a hand-written or external candidate with the
// same guard.
class FileProposer : public Proposer {
 public:
  explicit FileProposer(std::vector<std::string> files) : files_(std::move(files)) {}
  std::string name() const override { return "file"; }
  std::vector<Candidate> propose(const ProposalRequest& request) override;

 private:
  std::vector<std::string> files_;
  std::size_t next_ = 0;
};

}  // namespace rpl::optimize
