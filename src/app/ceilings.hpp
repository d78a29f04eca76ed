#pragma once
// The `ceilings` application: measures empirical roofline ceilings on the GPU present with the CUDA
// benchmark program rpl_ceilings_bench (src/collectors/nvidia/ceilings_bench/ceilings_bench.cu, installed next to
// rocm-perf) and turns its output into the ceilings document (schemas/ceilings.schema.json) that the
// roofline prefers over the built-in device table. NVIDIA only: no AMD benchmark is provided (the AMD
// roofline uses the table, or a ceilings file written from another tool's measurements).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/device_specs.hpp"

namespace rpl::app {

struct CeilingsOptions {
  std::string bench;    // the benchmark program; empty: $RPL_CEILINGS_BENCH, else next to rocm-perf
  int device = 0;       // CUDA device index
  int reps = 10;        // timed repetitions per measurement (the best counts)
  double timeout_s = 600;
};

struct CeilingMeasurement {
  std::string key;      // "hbm" (a memory level) or a compute class ("vector_f32", "matrix_f16")
  double value = 0;     // GB/s or GFLOP/s (1e9)
  double best_ms = 0;   // the fastest repetition
  int reps = 0;
  std::optional<double> table_value;  // the built-in table's value for this device, when it has one
};

struct CeilingsResult {
  analysis::EmpiricalCeilings ceilings;
  std::string bench;                 // the program that measured
  int device_index = 0;
  int sms = 0;
  int clock_mhz = 0;
  std::vector<CeilingMeasurement> measurements;
  std::vector<std::string> notes;    // comparisons with the table worth a look
};

// Parses the benchmark's stdout (its line protocol is documented in ceilings_bench.cu). Throws
// rpl::Error(ProfilerFailed) naming `source` when there is no RPL_DEVICE line, a value is not a positive
// number, or a key is neither a memory level nor a compute class.
CeilingsResult parse_ceilings_bench_output(std::string_view text, const std::string& source);

// Adds the table values for the measured device and notes for measurements far from them.
void compare_with_table(CeilingsResult& result);

// Finds and runs the benchmark. Throws rpl::Error(NoDevice) when it finds no usable GPU,
// (ProfilerFailed) when the benchmark is missing, fails or prints nothing usable.
CeilingsResult measure_ceilings(const CeilingsOptions& options);

}  // namespace rpl::app
