#pragma once
// Scratch (private segment) memory operations of the ROCm runtime, as rocprofv3 --scratch-memory-trace records
// them: rocpd_memory_allocate rows of level 'SCRATCH' (AMD's scratch_memory view reads the same rows). The
// runtime allocates scratch for a queue when a kernel needs more private memory than the queue has, frees it,
// and reclaims it asynchronously; a dispatch that needs an allocation waits for it. Read by
// store/rocpd_scratch_memory, summarised by analysis/scratch_memory.
#include <cstdint>
#include <string>

#include "model/trace.hpp"

namespace rpl {

struct ScratchOperation {
  enum class Kind { Alloc, Free, Realloc, Reclaim };  // rocpd "type": ALLOC, FREE, REALLOC, RECLAIM
  Kind kind = Kind::Alloc;
  int64_t pid = 0;           // the process's OS pid
  uint64_t tid = 0;          // the OS thread (0: unknown)
  std::string agent;         // the GPU's name ("gfx942"); empty when the row names none
  int64_t agent_index = -1;  // its logical index (rocprofv3's "Agent N"), -1 when unknown
  int64_t queue_id = -1;     // -1: none
  TimeNs start = 0, end = 0;
  uint64_t size = 0;     // bytes
  uint64_t address = 0;
  uint64_t flags = 0;    // extdata "flags": the runtime's allocation flags
};

const char* to_string(ScratchOperation::Kind kind);  // "ALLOC", ...

}  // namespace rpl
