#pragma once
// A gate's replays asked for in one go: the environment runs them in one batch where it can (one runner process
// instead of one per replay, most of a short replay's cost), and a job the batch did not run is replayed alone
// when, and only when, the gate asks for its outcome. A gate that stops at its first failure therefore replays
// exactly what it replayed one by one before, and its decisions do not change.
#include <utility>
#include <vector>

#include "optimize/environment.hpp"

namespace rpl::optimize {

class BatchedReplays {
 public:
  BatchedReplays(Environment& env, std::vector<ReplayJob> jobs)
      : env_(env), jobs_(std::move(jobs)), outcomes_(env_.replay_batch(jobs_)) {
    for (const ReplayOutcome& o : outcomes_)
      if (o.ran) batch_job_seconds_ += o.wall_s;
  }

  std::size_t size() const { return jobs_.size(); }
  // The runner's own time for the jobs the batch ran (the rest of the batch's wall time is the process's).
  double batch_job_seconds() const { return batch_job_seconds_; }
  const ReplayOutcome& get(std::size_t i) {
    ReplayOutcome& o = outcomes_.at(i);
    if (!o.ran) {
      const ReplayJob& j = jobs_[i];
      o = env_.replay(j.capture_dir, j.code_object, j.dump_dir, j.iterations);
      o.ran = true;
    }
    return o;
  }

 private:
  Environment& env_;
  std::vector<ReplayJob> jobs_;
  std::vector<ReplayOutcome> outcomes_;
  double batch_job_seconds_ = 0;
};

}  // namespace rpl::optimize
