#include "collectors/amd/amd_launch_record.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "support/errors.hpp"

namespace rpl::collectors::amd {
namespace {

using nlohmann::json;

json dim3(const auto& v) { return json::array({v[0], v[1], v[2]}); }

[[noreturn]] void corrupt_record(const std::string& what, const std::string& field, const std::string& why) {
  throw Error(ExitCode::InputCorrupt, fmt::format("{}: vendor.hsa.{} {}", what, field, why));
}

const json& member(const json& j, const char* key, const std::string& what, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end()) corrupt_record(what, path + key, "is missing");
  return *it;
}

uint64_t record_number(const json& j, const char* key, const std::string& what, const std::string& path = "",
                uint64_t max = UINT64_MAX) {
  const json& v = member(j, key, what, path);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    corrupt_record(what, path + key, "is not a non-negative integer");
  const uint64_t n = v.get<uint64_t>();
  if (n > max) corrupt_record(what, path + key, fmt::format("is {} (at most {})", n, max));
  return n;
}

std::string text(const json& j, const char* key, const std::string& what) {
  const json& v = member(j, key, what, "");
  if (!v.is_string()) corrupt_record(what, key, "is not a string");
  return v.get<std::string>();
}

template <typename T>
std::array<T, 3> triple(const json& j, const char* key, const std::string& what, uint64_t max) {
  const json& v = member(j, key, what, "launch.");
  if (!v.is_array() || v.size() != 3) corrupt_record(what, std::string("launch.") + key, "is not an array of 3 sizes");
  std::array<T, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() == 0 || v[i].get<uint64_t>() > max)
      corrupt_record(what, std::string("launch.") + key, fmt::format("holds a size outside 1..{}", max));
    out[i] = static_cast<T>(v[i].get<uint64_t>());
  }
  return out;
}

}  // namespace

void fill_launch(capture::Manifest& m, const AmdLaunchRecord& r, const std::vector<AmdRegionDetail>& regions) {
  const DispatchGeometry& g = r.dispatch.geometry;
  if (checked_dimensions(g) == 0)
    throw Error(ExitCode::InputInvalid,
                fmt::format("the captured packet of {} has an impossible geometry: {} dimension(s), grid {}x{}x{}, "
                            "work-group {}x{}x{}",
                            r.mangled, g.dimensions, g.grid[0], g.grid[1], g.grid[2], g.workgroup[0], g.workgroup[1],
                            g.workgroup[2]));
  m.kernel.mangled_name = r.mangled;
  m.kernel.demangled_name = r.demangled;
  // HIP's view: work-groups per dimension (AQL counts work-items; a partial last work-group rounds up).
  for (std::size_t i = 0; i < 3; ++i) {
    m.geometry.grid[i] = (g.grid[i] + g.workgroup[i] - 1) / g.workgroup[i];
    m.geometry.block[i] = g.workgroup[i];
  }
  m.geometry.dynamic_shared_bytes =
      g.group_segment_size > r.static_group_segment ? g.group_segment_size - r.static_group_segment : 0;
  m.code_object_format = "hsaco";
  m.device_name = r.product_name.empty() ? r.agent_name : r.product_name;
  m.device_arch = r.agent_name;
  m.device_ordinal = r.ordinal;

  uint64_t granularity = 4096;
  json region_details = json::array();
  for (const AmdRegionDetail& d : regions) {
    granularity = std::max(granularity, d.pool_granule);
    region_details.push_back({{"id", d.id}, {"placement", to_string(d.placement)}, {"pool_granule", d.pool_granule}});
  }
  m.vendor["granularity"] = granularity;
  m.vendor["hsa"] = {
      {"launch",
       {{"dimensions", g.dimensions},
        {"grid_size", dim3(g.grid)},
        {"workgroup_size", dim3(g.workgroup)},
        {"group_segment_size", g.group_segment_size},
        {"private_segment_size", g.private_segment_size},
        {"header", r.dispatch.header},
        {"kernel_object", capture::to_hex(r.dispatch.kernel_object)},
        {"kernarg_address", capture::to_hex(r.dispatch.kernarg_address)}}},
      {"kernel_symbol", r.symbol_name},
      {"kernarg_segment_size", r.kernarg_size},
      {"kernarg_segment_alignment", r.kernarg_alignment},
      {"static_group_segment_size", r.static_group_segment},
      {"static_private_segment_size", r.static_private_segment},
      {"dynamic_callstack", r.dynamic_callstack},
      {"agent_name", r.agent_name},
      {"isa_name", r.isa_name},
      {"wavefront_size", r.wavefront_size},
      {"regions", region_details},
  };
}

AmdReplayLaunch read_launch(const capture::Manifest& m, const std::string& what) {
  auto hsa = m.vendor.find("hsa");
  if (hsa == m.vendor.end() || !hsa->is_object())
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: vendor.hsa is missing (not an AMD capture?)", what));
  const json& h = *hsa;
  AmdReplayLaunch r;
  r.symbol_name = text(h, "kernel_symbol", what);
  if (r.symbol_name.empty()) corrupt_record(what, "kernel_symbol", "is empty");
  r.kernarg_size = static_cast<uint32_t>(record_number(h, "kernarg_segment_size", what, "", UINT32_MAX));
  r.kernarg_alignment = static_cast<uint32_t>(record_number(h, "kernarg_segment_alignment", what, "", UINT32_MAX));
  r.static_group_segment = static_cast<uint32_t>(record_number(h, "static_group_segment_size", what, "", UINT32_MAX));
  r.static_private_segment = static_cast<uint32_t>(record_number(h, "static_private_segment_size", what, "", UINT32_MAX));
  r.agent_name = text(h, "agent_name", what);
  r.isa_name = text(h, "isa_name", what);
  const json& launch = member(h, "launch", what, "");
  r.geometry.dimensions = static_cast<uint32_t>(record_number(launch, "dimensions", what, "launch.", 3));
  r.geometry.grid = triple<uint32_t>(launch, "grid_size", what, UINT32_MAX);
  r.geometry.workgroup = triple<uint16_t>(launch, "workgroup_size", what, UINT16_MAX);
  r.geometry.group_segment_size = static_cast<uint32_t>(record_number(launch, "group_segment_size", what, "launch.", UINT32_MAX));
  r.geometry.private_segment_size =
      static_cast<uint32_t>(record_number(launch, "private_segment_size", what, "launch.", UINT32_MAX));
  if (checked_dimensions(r.geometry) == 0) corrupt_record(what, "launch", "describes an impossible geometry");
  if (auto g = m.vendor.find("granularity"); g != m.vendor.end()) {
    if (!g->is_number_unsigned() || g->get<uint64_t>() == 0 || (g->get<uint64_t>() & (g->get<uint64_t>() - 1)))
      throw Error(ExitCode::InputCorrupt, fmt::format("{}: vendor.granularity is not a power of two", what));
    r.granularity = g->get<uint64_t>();
  }
  if (auto regions = h.find("regions"); regions != h.end()) {
    if (!regions->is_array()) corrupt_record(what, "regions", "is not an array");
    for (const json& d : *regions) {
      AmdRegionDetail detail;
      detail.id = record_number(d, "id", what, "regions[].");
      const json& p = member(d, "placement", what, "regions[].");
      auto placement = p.is_string() ? parse_placement(p.get<std::string>()) : std::nullopt;
      if (!placement) corrupt_record(what, "regions[].placement", "is not one of device_coarse, device_fine, host, unknown");
      detail.placement = *placement;
      detail.pool_granule = record_number(d, "pool_granule", what, "regions[].");
      r.regions.push_back(detail);
    }
  }
  return r;
}

DispatchGeometry geometry_for_build(const AmdReplayLaunch& launch, uint32_t static_group_segment,
                                    uint32_t static_private_segment) {
  DispatchGeometry g = launch.geometry;
  const uint32_t dynamic_group = g.group_segment_size > launch.static_group_segment
                                     ? g.group_segment_size - launch.static_group_segment
                                     : 0;
  const uint32_t dynamic_private = g.private_segment_size > launch.static_private_segment
                                       ? g.private_segment_size - launch.static_private_segment
                                       : 0;
  g.group_segment_size = static_group_segment + dynamic_group;
  g.private_segment_size = static_private_segment + dynamic_private;
  return g;
}

Placement placement_of(const AmdReplayLaunch& launch, uint64_t region_id) {
  for (const AmdRegionDetail& d : launch.regions)
    if (d.id == region_id) return d.placement;
  return Placement::Unknown;
}

}  // namespace rpl::collectors::amd
