#pragma once
// A gate's replays asked for in one go: the environment runs them in batches where it can (one runner process
// instead of one per replay, most of a short replay's cost), and a job a batch did not run is replayed alone
// when, and only when, a gate asks for its outcome. The jobs come in two stages: the first is run at once, the
// second (the later timing rounds) only when a gate first asks for one of its jobs, so a gate that has decided
// before it needs them saves their replays. Every outcome a gate reads is the one it would have read one by one,
// so its decisions do not change.
#include <algorithm>
#include <utility>
#include <vector>

#include "optimize/environment.hpp"

namespace rpl::optimize {

class BatchedReplays {
 public:
  // first_stage: how many of the jobs, from the front, run in the first batch (all of them by default).
  BatchedReplays(Environment& env, std::vector<ReplayJob> jobs, std::size_t first_stage = std::size_t(-1))
      : env_(env), jobs_(std::move(jobs)), outcomes_(jobs_.size()), batched_(jobs_.size(), false),
        staged_(std::min(first_stage, jobs_.size())) {
    run_batch(0, staged_);
  }

  std::size_t size() const { return jobs_.size(); }
  // The runner's own time for the jobs the batches ran (the rest of a batch's wall time is the process's).
  double batch_job_seconds() const { return batch_job_seconds_; }
  // Whether job i's outcome came from a batch (not from a replay of its own).
  bool from_batch(std::size_t i) const { return i < batched_.size() && batched_[i]; }
  // How many jobs the batches were asked to run so far (the rest were never needed).
  std::size_t jobs_started() const { return staged_; }

  const ReplayOutcome& get(std::size_t i) {
    if (i >= staged_) {
      run_batch(staged_, jobs_.size());
      staged_ = jobs_.size();
    }
    ReplayOutcome& o = outcomes_.at(i);
    if (!o.ran) {
      const ReplayJob& j = jobs_[i];
      o = env_.replay(j.capture_dir, j.code_object, j.dump_dir, j.iterations);
      o.ran = true;
    }
    return o;
  }

 private:
  void run_batch(std::size_t from, std::size_t to) {
    if (from >= to) return;
    std::vector<ReplayOutcome> done =
        env_.replay_batch(std::vector<ReplayJob>(jobs_.begin() + std::ptrdiff_t(from), jobs_.begin() + std::ptrdiff_t(to)));
    for (std::size_t k = 0; k < done.size(); ++k) {
      if (done[k].ran) batch_job_seconds_ += done[k].wall_s, batched_[from + k] = true;
      outcomes_[from + k] = std::move(done[k]);
    }
  }

  Environment& env_;
  std::vector<ReplayJob> jobs_;
  std::vector<ReplayOutcome> outcomes_;
  std::vector<bool> batched_;
  std::size_t staged_ = 0;
  double batch_job_seconds_ = 0;
};

}  // namespace rpl::optimize
