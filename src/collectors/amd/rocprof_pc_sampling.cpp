#include "collectors/amd/rocprof_pc_sampling.hpp"

#include <fmt/core.h>

#include <map>
#include <tuple>

#include "support/csv.hpp"
#include "support/errors.hpp"

namespace rpl::collectors {
namespace {

constexpr std::string_view kStallPrefix = "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_";

int column(const std::vector<std::string>& header, std::string_view name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

// "path/file.hip:42" (possibly with a column, "file.hip:42:7") -> (file, line); (text, 0) otherwise.
std::pair<std::string, uint32_t> source_location(const std::string& comment) {
  std::string s = comment;
  for (int pass = 0; pass < 2; ++pass) {
    auto colon = s.rfind(':');
    if (colon == std::string::npos || colon + 1 == s.size()) return {"", 0};
    const std::string tail = s.substr(colon + 1);
    if (tail.find_first_not_of("0123456789") != std::string::npos) return {"", 0};
    std::string head = s.substr(0, colon);
    auto prev = head.rfind(':');
    // file:line:column -> drop the column and look again.
    if (pass == 0 && prev != std::string::npos && head.substr(prev + 1).find_first_not_of("0123456789") == std::string::npos &&
        prev + 1 < head.size()) {
      s = head;
      continue;
    }
    return {head, static_cast<uint32_t>(std::stoul(tail))};
  }
  return {"", 0};
}

}  // namespace

std::vector<std::string> rocprofv3_pc_sampling_options(unsigned interval_us) {
  return {"--kernel-trace", "--pc-sampling-beta-enabled", "--pc-sampling-method", "host_trap",
          "--pc-sampling-unit", "time", "--pc-sampling-interval", std::to_string(interval_us), "--output-format", "csv"};
}

std::vector<PcSampleRecord> parse_rocprof_pc_sampling(std::string_view csv, std::string_view kernel_trace,
                                                      const std::string& source) {
  std::map<std::string, std::string> kernel_of;  // dispatch id -> kernel name
  if (auto kt = split_csv(kernel_trace); !kt.empty()) {
    int id = column(kt[0], "Dispatch_Id"), name = column(kt[0], "Kernel_Name");
    if (id >= 0 && name >= 0)
      for (std::size_t r = 1; r < kt.size(); ++r)
        if (kt[r].size() > std::size_t(std::max(id, name))) kernel_of[kt[r][id]] = kt[r][name];
  }
  auto rows = split_csv(csv);
  if (rows.empty()) return {};
  const auto& h = rows[0];
  const int dispatch = column(h, "Dispatch_Id"), instruction = column(h, "Instruction"),
            comment = column(h, "Instruction_Comment"), stall = column(h, "Stall_Reason"),
            issued = column(h, "Wave_Issued_Instruction");
  if (dispatch < 0 || instruction < 0)
    throw Error(ExitCode::InputInvalid,
                fmt::format("{}: no Dispatch_Id or Instruction column: not a rocprofv3 PC-sampling CSV", source));
  std::map<std::tuple<std::string, std::string, std::string, std::string>, uint64_t> counts;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r];
    auto at = [&](int c) { return c >= 0 && std::size_t(c) < f.size() ? f[c] : std::string(); };
    const std::string id = at(dispatch);
    auto k = kernel_of.find(id);
    std::string reason = at(stall);
    if (reason.rfind(kStallPrefix, 0) == 0) reason = reason.substr(kStallPrefix.size());
    if (issued >= 0 && at(issued) == "1") reason = "ISSUED";  // the wave issued: not stalled
    ++counts[{k == kernel_of.end() ? "dispatch " + id : k->second, at(instruction), at(comment), reason}];
  }
  std::vector<PcSampleRecord> out;
  for (const auto& [key, n] : counts) {
    PcSampleRecord rec;
    std::tie(rec.kernel, rec.instruction, std::ignore, rec.stall_reason) = key;
    std::tie(rec.file, rec.line) = source_location(std::get<2>(key));
    rec.samples = n;
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace rpl::collectors
