#pragma once
// `rocm-perf resources` output: the versioned document (schemas/resources.schema.json) and the terminal table.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/resources.hpp"

namespace rpl::report {

nlohmann::json resources_document(const std::vector<app::KernelResourcesReport>& reports);
std::string resources_table(const std::vector<app::KernelResourcesReport>& reports);

}  // namespace rpl::report
