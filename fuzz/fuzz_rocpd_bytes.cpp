// The rocpd reader and the whole analyze pipeline on arbitrary bytes as the database file: byte-level
// mutations of real rocpd databases (seed corpus: fuzz/corpus/rocpd_bytes, from examples/traces).
// The bytes are the database image as sqlite3_deserialize would take it; the reader opens files, so they
// are written to a file on tmpfs first.
#include <cstddef>
#include <cstdint>

#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string db = rpl::fuzz::scratch_dir() + "/input.db";
  rpl::fuzz::write_bytes(db, data, size);
  rpl::fuzz::analyze_and_check(db);
  return 0;
}
