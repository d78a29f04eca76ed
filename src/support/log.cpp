#include "support/log.hpp"

#include <atomic>

namespace rpl::log {
namespace {
std::atomic<Level> g_level{Level::Info};
thread_local std::string* t_capture = nullptr;
}  // namespace

void set_level(Level l) { g_level = l; }
Level level() { return g_level; }

void write_line(std::string line) {
  line += '\n';
  if (t_capture) {
    *t_capture += line;
    return;
  }
  fmt::print(stderr, "{}", line);
}

Capture::Capture(std::string& buffer) : previous_(t_capture) { t_capture = &buffer; }
Capture::~Capture() { t_capture = previous_; }

void replay(const std::string& captured) {
  if (captured.empty()) return;
  if (t_capture) {
    *t_capture += captured;
    return;
  }
  std::fputs(captured.c_str(), stderr);
}

}  // namespace rpl::log
