#include "model/trace_append.hpp"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

namespace rpl {
namespace {

// An index moved by `offset`; kNoIndex (none) stays none.
Index shifted(Index i, std::size_t offset) { return i == kNoIndex ? kNoIndex : static_cast<Index>(i + offset); }

template <typename T>
void move_append(std::vector<T>& into, std::vector<T>& from) {
  into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  from.clear();
  from.shrink_to_fit();
}

}  // namespace

void append_trace(Trace& into, Trace&& from) {
  const std::size_t processes = into.processes.size(), agents = into.agents.size(), queues = into.queues.size(),
                    streams = into.streams.size(), symbols = into.symbols.size(), dispatches = into.dispatches.size();
  // Strings in `from`'s id order, which is the order its reader first interned them: the new ones take ids in
  // the order a reader of both would have given them.
  std::vector<Index> string_id(from.strings.size());
  for (Index s = 0; s < from.strings.size(); ++s) string_id[s] = into.strings.intern(from.strings.at(s));

  for (Agent& a : from.agents) a.process = shifted(a.process, processes);
  for (Queue& q : from.queues) q.process = shifted(q.process, processes);
  for (Stream& s : from.streams) s.process = shifted(s.process, processes);
  for (KernelSymbol& k : from.symbols) {
    k.process = shifted(k.process, processes);
    k.mangled_name = string_id[k.mangled_name];
    k.display_name = string_id[k.display_name];
  }
  move_append(into.processes, from.processes);
  move_append(into.agents, from.agents);
  move_append(into.queues, from.queues);
  move_append(into.streams, from.streams);
  move_append(into.symbols, from.symbols);

  // As the reader reserves: geometric growth, so that appending many traces does not copy all before each.
  const std::size_t wanted = dispatches + from.dispatches.size();
  if (wanted > into.dispatches.capacity())
    into.dispatches.reserve(std::max(wanted, into.dispatches.capacity() + into.dispatches.capacity() / 2));
  into.dispatches.append(from.dispatches, [&](Dispatch d) {
    d.process = shifted(d.process, processes);
    d.agent = shifted(d.agent, agents);
    d.queue = shifted(d.queue, queues);
    d.stream = shifted(d.stream, streams);
    d.symbol = shifted(d.symbol, symbols);
    return d;
  });
  from.dispatches = DispatchTable();  // its memory freed before the other tables move

  for (MemoryCopy& c : from.copies) {
    c.process = shifted(c.process, processes);
    c.kind = string_id[c.kind];
    c.stream = shifted(c.stream, streams);
    c.queue = shifted(c.queue, queues);
    c.src_agent = shifted(c.src_agent, agents);
    c.dst_agent = shifted(c.dst_agent, agents);
  }
  move_append(into.copies, from.copies);
  for (ApiCall& a : from.api_calls) {
    a.process = shifted(a.process, processes);
    a.name = string_id[a.name];
    a.category = string_id[a.category];
  }
  move_append(into.api_calls, from.api_calls);
  for (SyncOp& s : from.sync_ops) {
    s.process = shifted(s.process, processes);
    s.stream = shifted(s.stream, streams);
  }
  move_append(into.sync_ops, from.sync_ops);
  for (CounterSample& c : from.counters) {
    c.dispatch = shifted(c.dispatch, dispatches);
    c.counter = string_id[c.counter];
  }
  move_append(into.counters, from.counters);
  move_append(into.device_metrics, from.device_metrics);
  for (CollectiveCall& c : from.collective_calls) c.process = shifted(c.process, processes);
  move_append(into.collective_calls, from.collective_calls);
  for (GpuLink& l : from.gpu_links) l.process = shifted(l.process, processes);
  move_append(into.gpu_links, from.gpu_links);
}

}  // namespace rpl
