#pragma once
// Logging goes to stderr only; stdout carries the requested output and nothing else.
#include <fmt/core.h>

#include <cstdio>
#include <string>

namespace rpl::log {

enum class Level { Quiet = 0, Warn = 1, Info = 2, Debug = 3 };
void set_level(Level level);
Level level();

// Writes one finished line to stderr, or to this thread's capture buffer while a Capture lives.
void write_line(std::string line);

// While it lives, this thread's log lines go to `buffer` instead of stderr (work run on several threads, whose
// messages are printed afterwards in the order one thread would have printed them: support/ordered_parallel.hpp).
// Captures nest: the innermost one receives the lines.
class Capture {
 public:
  explicit Capture(std::string& buffer);
  ~Capture();
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

 private:
  std::string* previous_;
};

// Writes lines a Capture collected (to stderr, or to the capture active on this thread).
void replay(const std::string& captured);

template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
  if (level() >= Level::Warn) write_line("warning: " + fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
  if (level() >= Level::Info) write_line(fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
  if (level() >= Level::Debug) write_line("debug: " + fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace rpl::log
