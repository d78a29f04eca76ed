#pragma once
// Appending one trace to another (`analyze --jobs N`, issue 32: several databases read at once, then merged).
#include "model/trace.hpp"

namespace rpl {

// Appends `from`'s records to `into`, with `from`'s indices (processes, agents, queues, streams, symbols,
// dispatches, interned strings) moved to `into`'s: `into` becomes what reading `from`'s databases after
// `into`'s gives, record for record and id for id (strings and launches interned in the same order). Does not
// check that the processes are new (the reader does: rocpd::read_databases).
void append_trace(Trace& into, Trace&& from);

}  // namespace rpl
