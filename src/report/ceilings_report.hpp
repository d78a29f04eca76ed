#pragma once
// `rocm-perf ceilings` terminal summary: each measured ceiling beside the built-in table's.
#include <string>

#include "app/ceilings.hpp"

namespace rpl::report {

std::string ceilings_table(const app::CeilingsResult& result);

}  // namespace rpl::report
