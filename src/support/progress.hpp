#pragma once
// A one-line progress indicator on stderr, shown only on a terminal and never with --quiet / --json.
#include <chrono>
#include <string>

namespace rpl {

class Progress {
 public:
  explicit Progress(bool enabled);
  ~Progress() { done(); }
  void update(const std::string& message);  // rate-limited redraw
  void phase(const std::string& message);   // a new step of a long run: drawn at once, never dropped
  void done();                              // clears the line

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// True when stderr is a terminal (progress makes sense).
bool stderr_is_terminal();

}  // namespace rpl
