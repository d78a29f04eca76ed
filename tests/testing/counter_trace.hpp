#pragma once
// Builds small in-memory traces with hardware counter samples, for roofline, classifier and ncu tests.
#include <initializer_list>
#include <string>
#include <utility>

#include "model/trace.hpp"

namespace rpl::test {

class CounterTraceBuilder {
 public:
  CounterTraceBuilder();
  // A GPU agent; returns its index.
  Index agent(const std::string& arch, const std::string& product, uint32_t cu_count = 0);
  // A kernel symbol (display name; mangled name defaults to the display name); returns its index.
  Index kernel(const std::string& display, const std::string& mangled = "");
  // A dispatch of `symbol` on `agent` from `start` lasting `duration` ns; returns its index.
  Index dispatch(Index symbol, Index agent, TimeNs start, TimeNs duration);
  void counter(Index dispatch, const std::string& name, double value);
  void counters(Index dispatch, std::initializer_list<std::pair<const char*, double>> values);
  Trace& trace() { return trace_; }

 private:
  Trace trace_;
  int64_t next_dispatch_id_ = 1;
};

}  // namespace rpl::test
