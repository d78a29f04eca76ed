#include "support/ordered_parallel.hpp"

#include <sched.h>

#include <charconv>
#include <ctime>

#include <fmt/core.h>

#include "support/errors.hpp"

namespace rpl {
namespace {
thread_local const std::atomic<bool>* t_stop = nullptr;
constexpr unsigned kMaxJobs = 1024;
}  // namespace

namespace detail {
void set_thread_stop_flag(const std::atomic<bool>* flag) { t_stop = flag; }
}  // namespace detail

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

bool parallel_stop_requested() { return t_stop && t_stop->load(std::memory_order_relaxed); }

unsigned resolve_jobs(unsigned requested) {
  if (requested > 0) return requested;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

unsigned parse_jobs(const std::string& text) {
  unsigned value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value > kMaxJobs)
    throw Error(ExitCode::Usage, fmt::format("--jobs '{}' is not a number of jobs: give a whole number from 1 to {}, "
                                             "or 0 for every core",
                                             text, kMaxJobs));
  return value;
}

}  // namespace rpl
