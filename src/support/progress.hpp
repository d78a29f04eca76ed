#pragma once
// A one-line progress indicator on stderr, shown only on a terminal and never with --quiet / --json.
// With --debug each phase also logs its CPU and wall time and its peak resident memory when it ends (where a
// long run spends its time and memory; the peak is reset per phase, see support/resident_memory.hpp).
#include <chrono>
#include <string>

namespace rpl {

class Progress {
 public:
  explicit Progress(bool enabled);
  ~Progress() { done(); }
  void update(const std::string& message);  // rate-limited redraw
  void phase(const std::string& message);   // a new step of a long run: drawn at once, never dropped
  void done();                              // clears the line; ends the timing of the current phase

 private:
  void end_phase_timing();

  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
  std::string phase_;  // the phase being timed (for --debug); empty when none
  std::chrono::steady_clock::time_point phase_wall_{};
  double phase_cpu_s_ = 0;
};

// True when stderr is a terminal (progress makes sense).
bool stderr_is_terminal();

}  // namespace rpl
