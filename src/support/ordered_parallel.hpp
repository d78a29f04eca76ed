#pragma once
// `--jobs N` (issue 32): independent work items run on up to N threads, their results used in index order on the
// calling thread, so that what comes out (the merged trace, the ranks' summaries, the log lines) is what one
// thread gives, whatever N.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/log.hpp"

namespace rpl {

// The number of threads `--jobs N` asks for: N itself for N >= 1, every core the process may run on for 0.
unsigned resolve_jobs(unsigned requested);

// "--jobs" values: a whole number >= 0 (0 = every core); rpl::Error(Usage) naming the value otherwise.
unsigned parse_jobs(const std::string& text);

// CPU time of the calling thread, in seconds (what one item or task cost, for --debug lines).
double thread_cpu_seconds();

// True on a worker thread of ordered_parallel once the run is being stopped (an item failed): a long item may
// poll it and return early (its result is then discarded).
bool parallel_stop_requested();

namespace detail {
// The worker side's stop flag, for parallel_stop_requested (thread-local in ordered_parallel.cpp).
void set_thread_stop_flag(const std::atomic<bool>* flag);
}  // namespace detail

// Runs produce(i) for i in [0, n) on up to `jobs` worker threads and consume(i, std::move(result)) on the calling
// thread in index order, each as soon as item i and every item before it are done. Items start only while
// fewer than `jobs` results are produced and not yet consumed: at most `jobs` results (and the one being
// consumed) are alive at once. With jobs <= 1 or n <= 1 everything runs on the calling thread, interleaved
// (produce(0), consume(0), produce(1), ...): the behaviour before --jobs, exactly.
//
// Log lines a worker's produce(i) writes are held and written before consume(i), in index order. When
// produce(i) throws, the workers are stopped and produce(i) runs again on the calling thread with its log
// lines live: the lines and the error are those of a run on one thread (produce must be repeatable). An error
// of consume(i) stops the workers and is rethrown.
//
// `waiting` (optional) is called on the calling thread about every 100 ms while it waits for an item (a
// progress line that must be drawn from one thread).
template <typename T, typename Produce, typename Consume>
void ordered_parallel(std::size_t n, unsigned jobs, Produce produce, Consume consume,
                      const std::function<void()>& waiting = {}) {
  if (jobs <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) consume(i, produce(i));
    return;
  }
  struct Slot {
    std::optional<T> result;
    std::string log;
    std::exception_ptr error;
    bool done = false;
  };
  std::vector<Slot> slots(n);
  std::mutex m;
  std::condition_variable changed;
  std::size_t next = 0, consumed = 0;
  std::atomic<bool> stop{false};
  auto work = [&] {
    detail::set_thread_stop_flag(&stop);
    std::unique_lock lock(m);
    for (;;) {
      changed.wait(lock, [&] { return stop || next >= n || next < consumed + jobs; });
      if (stop || next >= n) break;
      const std::size_t i = next++;
      lock.unlock();
      Slot s;
      try {
        log::Capture capture(s.log);
        s.result.emplace(produce(i));
      } catch (...) {
        s.error = std::current_exception();
      }
      lock.lock();
      s.done = true;
      slots[i] = std::move(s);
      changed.notify_all();
    }
    detail::set_thread_stop_flag(nullptr);
  };
  std::vector<std::thread> workers;
  auto stop_workers = [&] {
    {
      std::lock_guard lock(m);
      stop = true;
    }
    changed.notify_all();
    for (std::thread& w : workers) w.join();
    workers.clear();
  };
  try {
    const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(jobs, n));
    for (unsigned t = 0; t < threads; ++t) workers.emplace_back(work);  // may throw: the started ones are joined
    for (std::size_t i = 0; i < n; ++i) {
      Slot s;
      {
        std::unique_lock lock(m);
        while (!slots[i].done) {
          if (waiting) {
            changed.wait_for(lock, std::chrono::milliseconds(100));
            lock.unlock();
            waiting();
            lock.lock();
          } else {
            changed.wait(lock);
          }
        }
        s = std::move(slots[i]);
      }
      if (s.error) {
        stop_workers();
        // Again on this thread, its log lines live: the error (and what it wrote before it) as one thread gives it.
        T again = produce(i);
        consume(i, std::move(again));
        for (std::size_t j = i + 1; j < n; ++j) consume(j, produce(j));
        return;
      }
      log::replay(s.log);
      consume(i, std::move(*s.result));
      {
        std::lock_guard lock(m);
        consumed = i + 1;
      }
      changed.notify_all();
    }
  } catch (...) {
    if (!workers.empty()) stop_workers();
    throw;
  }
  stop_workers();
}

// Runs the tasks on up to `jobs` threads (one after the other for jobs <= 1), as ordered_parallel runs its items:
// their log lines written in the tasks' order, and an error as running them in order on one thread meets it
// (the first failing task is run again on the calling thread, and the tasks after it are not). Tasks must not
// touch the same data, and must be repeatable.
inline void run_concurrently(const std::vector<std::function<void()>>& tasks, unsigned jobs) {
  ordered_parallel<bool>(
      tasks.size(), jobs, [&](std::size_t i) { return tasks[i](), true; }, [](std::size_t, bool) {});
}

}  // namespace rpl
