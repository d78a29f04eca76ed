#pragma once
// The CSV that the in-process counter pass (librpl_cupti_counters.so) writes: the layout of ncu's
// `--csv --page raw --print-units base` (collectors/nvidia/ncu_csv.hpp), so that one parser reads both tools'
// tables and one rule pairs them with the trace. Plain C++: the injection library and the tests share it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rpl::collectors {

struct CounterCsvRow {
  std::string kernel;  // mangled name, as ncu prints it with --print-kernel-base mangled
  int64_t process_id = 0;
  std::string process_name;
  std::string host_name;
  uint32_t context_id = 0;
  uint64_t stream_id = 0;
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};  // grid in blocks, as ncu prints it
  int device = 0;
  std::string compute_capability;              // "9.0"
  std::vector<std::optional<double>> values;   // one per metric; nullopt is written "n/a"
};

// The unit row's entry for a metric (values are in base units: bytes, nanoseconds, percent).
std::string counter_csv_unit(const std::string& metric);
// Header row and units row, each ending in '\n'.
std::string counter_csv_header(const std::vector<std::string>& metrics);
// One instance's row, ending in '\n'; `id` is ncu's "ID" (launch order within the file).
std::string counter_csv_row(std::size_t id, const CounterCsvRow& row);

}  // namespace rpl::collectors
