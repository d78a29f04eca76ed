#include "support/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "support/terminal_text.hpp"

namespace rpl {

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

void Progress::phase(const std::string& message) {
  drawn_ = false;  // bypasses the rate limit of update()
  update(message);
}

void Progress::done() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(raw_stderr(), "\r\033[K");
  std::fflush(raw_stderr());
  drawn_ = false;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace rpl
