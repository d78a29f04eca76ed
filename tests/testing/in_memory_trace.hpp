#pragma once
// Builds rpl::Trace objects directly in memory for analysis tests (no database).
#include <string>

#include "model/trace.hpp"

namespace rpl::test {

// A kernel symbol's resources (defined outside InMemoryTrace so it can be a default argument there).
struct SymbolResources {
  uint32_t arch_vgprs = 0, accum_vgprs = 0, sgprs = 0, static_lds = 0;
};

class InMemoryTrace {
 public:
  Trace trace;

  Index add_process(int64_t pid) {
    Process p;
    p.pid = pid;
    p.guid = "guid-" + std::to_string(pid);
    trace.processes.push_back(p);
    return static_cast<Index>(trace.processes.size() - 1);
  }

  Index add_agent(const std::string& arch, uint32_t wave_size = 0, Index process = 0) {
    Agent a;
    a.process = process;
    a.is_gpu = true;
    a.name = arch;
    a.wave_front_size = wave_size;
    trace.agents.push_back(a);
    return static_cast<Index>(trace.agents.size() - 1);
  }

  Index add_symbol(const std::string& display, const std::string& mangled = "", Index process = 0,
                   SymbolResources regs = {}) {
    KernelSymbol s;
    s.process = process;
    s.rocpd_id = static_cast<int64_t>(trace.symbols.size()) + 1;
    s.display_name = trace.strings.intern(display);
    s.mangled_name = trace.strings.intern(mangled.empty() ? display : mangled);
    s.arch_vgpr_count = regs.arch_vgprs;
    s.accum_vgpr_count = regs.accum_vgprs;
    s.sgpr_count = regs.sgprs;
    s.static_lds_bytes = regs.static_lds;
    trace.symbols.push_back(s);
    return static_cast<Index>(trace.symbols.size() - 1);
  }

  // The new dispatch, to change further: `t.add_dispatch(...)->stream = 0;` (written back at the statement's end,
  // or when a named Edit goes out of scope).
  DispatchTable::Edit add_dispatch(Index symbol, TimeNs start, TimeNs end, Index agent = kNoIndex,
                                   uint32_t block_x = 1, uint32_t lds_bytes = 0) {
    Dispatch d;
    d.start = start;
    d.end = end;
    d.dispatch_id = static_cast<int64_t>(trace.dispatches.size()) + 1;
    d.symbol = symbol;
    d.process = symbol < trace.symbols.size() ? trace.symbols[symbol].process : 0;
    d.agent = agent;
    d.block[0] = block_x;
    d.lds_bytes = lds_bytes;
    trace.dispatches.push_back(d);
    return trace.dispatches.edit(trace.dispatches.size() - 1);
  }

  // A cudaLaunchKernel call at `host` on `thread` of process 0 (2 us long) and the dispatch it launched, 10 us later
  // for 20 us, tied by the next correlation id; returns the dispatch, as add_dispatch does.
  DispatchTable::Edit add_cuda_launch(Index symbol, TimeNs host, uint64_t thread, Index agent = kNoIndex) {
    ApiCall a;
    a.start = host;
    a.end = host + 2'000;
    a.correlation_id = ++last_correlation_id;
    a.process = 0;
    a.thread = thread;
    a.name = trace.strings.intern("cudaLaunchKernel");
    a.category = trace.strings.intern("CUDA_RUNTIME_API");
    trace.api_calls.push_back(a);
    add_dispatch(symbol, host + 10'000, host + 30'000, agent)->correlation_id = last_correlation_id;
    return trace.dispatches.edit(trace.dispatches.size() - 1);
  }
  int64_t last_correlation_id = 0;  // of add_cuda_launch's calls

  MemoryCopy& add_copy(TimeNs start, TimeNs end, Index process = 0) {
    MemoryCopy c;
    c.start = start;
    c.end = end;
    c.copy_id = static_cast<int64_t>(trace.copies.size()) + 1;
    c.process = process;
    c.kind = trace.strings.intern("MEMORY_COPY_HOST_TO_DEVICE");
    trace.copies.push_back(c);
    return trace.copies.back();
  }
};

}  // namespace rpl::test
