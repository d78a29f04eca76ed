// JSON inputs: the measured-ceilings file (--ceilings), read as `analyze` reads it. The file must parse,
// pass parse_empirical_ceilings, and, when accepted, round-trip through empirical_ceilings_document into a document that
// validates against schemas/ceilings.schema.json... when the schema covers that part (see the check).
#include <string>

#include "app/ceilings_file.hpp"
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = rpl::fuzz::scratch_dir() + "/ceilings.json";
  rpl::fuzz::write_bytes(path, data, size);
  rpl::fuzz::expect_only_rpl_errors([&] { (void)rpl::app::read_empirical_ceilings(path); });
  return 0;
}
