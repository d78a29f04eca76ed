#include "support/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <ctime>

#include "support/log.hpp"
#include "support/resident_memory.hpp"
#include "support/terminal_text.hpp"

namespace rpl {
namespace {
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}
}  // namespace

Progress::Progress(bool enabled) : enabled_(enabled) {}

void Progress::update(const std::string& message) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  std::fprintf(raw_stderr(), "\r\033[K%s", terminal_safe(message).c_str());
  std::fflush(raw_stderr());
  drawn_ = true;
}

void Progress::end_phase_timing() {
  if (phase_.empty()) return;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - phase_wall_).count();
  const ResidentMemory memory = resident_memory();
  reset_peak_resident();
  try {  // also runs in the destructor
    // Issue 32: the peak resident set of each step says where a run's memory peak is.
    log::debug("{}: {:.3f} s CPU, {:.3f} s wall, peak RSS {} MB, {} MB at its end", phase_,
               process_cpu_seconds() - phase_cpu_s_, wall, memory.peak_kb / 1024, memory.now_kb / 1024);
  } catch (...) {
  }
  phase_.clear();
}

void Progress::phase(const std::string& message) {
  end_phase_timing();
  if (log::level() >= log::Level::Debug) {
    phase_ = message;
    phase_wall_ = std::chrono::steady_clock::now();
    phase_cpu_s_ = process_cpu_seconds();
    reset_peak_resident();
  }
  drawn_ = false;  // bypasses the rate limit of update()
  update(message);
}

void Progress::done() {
  end_phase_timing();
  if (!enabled_ || !drawn_) return;
  std::fprintf(raw_stderr(), "\r\033[K");
  std::fflush(raw_stderr());
  drawn_ = false;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace rpl
