#include "testing/counter_trace.hpp"

namespace rpl::test {

CounterTraceBuilder::CounterTraceBuilder() {
  Process p;
  p.guid = "test-process";
  p.pid = 4242;
  trace_.processes.push_back(p);
}

Index CounterTraceBuilder::agent(const std::string& arch, const std::string& product, uint32_t cu_count) {
  Agent a;
  a.process = 0;
  a.rocpd_id = static_cast<int64_t>(trace_.agents.size());
  a.is_gpu = true;
  a.name = arch;
  a.product_name = product;
  a.cu_count = cu_count;
  trace_.agents.push_back(a);
  return static_cast<Index>(trace_.agents.size() - 1);
}

Index CounterTraceBuilder::kernel(const std::string& display, const std::string& mangled) {
  KernelSymbol s;
  s.process = 0;
  s.rocpd_id = static_cast<int64_t>(trace_.symbols.size() + 1);
  s.display_name = trace_.strings.intern(display);
  s.mangled_name = trace_.strings.intern(mangled.empty() ? display : mangled);
  trace_.symbols.push_back(s);
  return static_cast<Index>(trace_.symbols.size() - 1);
}

Index CounterTraceBuilder::dispatch(Index symbol, Index agent, TimeNs start, TimeNs duration) {
  Dispatch d;
  d.start = start;
  d.end = start + duration;
  d.dispatch_id = next_dispatch_id_++;
  d.process = 0;
  d.symbol = symbol;
  d.agent = agent;
  trace_.dispatches.push_back(d);
  return static_cast<Index>(trace_.dispatches.size() - 1);
}

void CounterTraceBuilder::counter(Index dispatch, const std::string& name, double value) {
  trace_.counters.push_back({dispatch, trace_.strings.intern(name), value});
}

void CounterTraceBuilder::counters(Index dispatch, std::initializer_list<std::pair<const char*, double>> values) {
  for (const auto& [name, value] : values) counter(dispatch, name, value);
}

}  // namespace rpl::test
