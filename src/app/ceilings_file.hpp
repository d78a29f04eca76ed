#pragma once
// The ceilings file (schemas/ceilings.schema.json) that `rocm-perf ceilings` writes and `analyze` / `profile
// --ceilings` read: the one home of its reader and writer.
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/device_specs.hpp"

namespace rpl::app {

// Throws rpl::Error(InputInvalid) naming `source` and the field when the document is malformed: wrong or
// missing schema_version, missing device.arch, unknown level or class keys, non-positive values.
analysis::EmpiricalCeilings parse_empirical_ceilings(const nlohmann::json& doc, const std::string& source);
// Throws rpl::Error(InputMissing) when the file cannot be read, (InputInvalid) when it is not JSON.
analysis::EmpiricalCeilings read_empirical_ceilings(const std::string& path);
// The document the file holds (what --json prints).
nlohmann::json empirical_ceilings_document(const analysis::EmpiricalCeilings& ceilings);
// Atomic write; throws rpl::Error(OutputFailed).
void write_empirical_ceilings(const std::string& path, const analysis::EmpiricalCeilings& ceilings);

}  // namespace rpl::app
