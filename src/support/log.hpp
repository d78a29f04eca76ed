#pragma once
// Logging goes to stderr only; stdout carries the requested output and nothing else.
#include <fmt/core.h>

#include <cstdio>

namespace rpl::log {

enum class Level { Quiet = 0, Warn = 1, Info = 2, Debug = 3 };
void set_level(Level level);
Level level();

template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
  if (level() >= Level::Warn) fmt::print(stderr, "warning: {}\n", fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
  if (level() >= Level::Info) fmt::print(stderr, "{}\n", fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
  if (level() >= Level::Debug) fmt::print(stderr, "debug: {}\n", fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace rpl::log
