#pragma once
// `rocm-perf replay`: the terminal summary of a replay document (what capture::to_json(ReplayReport) wrote,
// possibly read back from a runner's file; schemas/replay.schema.json).
#include <string>

#include <nlohmann/json.hpp>

namespace rpl::report {

std::string replay_summary_text(const nlohmann::json& doc);

}  // namespace rpl::report
