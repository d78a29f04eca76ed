#pragma once
// Reads the scratch-memory operations (rocpd_memory_allocate rows of level 'SCRATCH', written by rocprofv3
// --scratch-memory-trace) of a rocpd database; they are not part of the Trace model (only the outputs of
// --scratch-memory-trace use them).
#include <string>
#include <vector>

#include "model/scratch_memory.hpp"

namespace rpl::rocpd {

// Every scratch operation of the database at `path` (every process in it), by start. A database without
// rocpd_memory_allocate has none. Errors as read_database: InputMissing, InputCorrupt (not SQLite), InputNotRocpd;
// InputInvalid naming the file and row for an end before its start or a type AMD's schema does not allow.
std::vector<ScratchOperation> read_scratch_memory(const std::string& path);

}  // namespace rpl::rocpd
