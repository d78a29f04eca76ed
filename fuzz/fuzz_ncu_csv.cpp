// The ncu CSV parser (raw and details pages) and attaching its metrics to a trace.
#include <string_view>

#include "analysis/counter_pairing.hpp"
#include "collectors/nvidia/ncu_csv.hpp"
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  rpl::fuzz::expect_only_rpl_errors([&] {
    rpl::collectors::NcuReport report = rpl::collectors::parse_ncu_csv(text, "fuzz.csv");
    rpl::Trace trace;
    (void)rpl::analysis::attach_counter_samples(trace, rpl::collectors::ncu_counter_samples(report));
  });
  return 0;
}
