#include "optimize/binary_gates.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include "support/demangle.hpp"

namespace rpl::optimize {
namespace {

using collectors::CodeObjectFacts;
using collectors::KernelAbi;
using nlohmann::json;

json describe_abi(const KernelAbi& k) {
  json params = json::array();
  for (const auto& p : k.params)
    params.push_back({{"offset", p.offset}, {"size", p.size}, {"align", p.align}, {"kind", p.kind}});
  return {{"symbol", k.symbol}, {"params", params}, {"param_block_size", k.param_block_size}, {"bounds", k.bounds},
          {"hidden", k.hidden}};
}

std::vector<std::string> missing_from(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const auto& x : a)
    if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x);
  return out;
}

// Objects the toolkit's own headers define at namespace scope (CCCL's customization-point objects such as
// cuda::std::ranges::begin, thrust's execution policies): a candidate can only bring them in through an allowed
// toolkit include (it cannot add namespaces outside the kernel), they are constant, and real optimizations that
// include cub or cooperative groups carry them. nvcc puts file-local ones under an _INTERNAL_<hash>_<file> namespace.
bool toolkit_data_symbol(const std::string& entry) {
  std::string mangled = entry.substr(0, entry.find(' '));
  std::string name = demangle(mangled);
  if (name.rfind("_INTERNAL_", 0) == 0) {
    auto colons = name.find("::");
    if (colons == std::string::npos) return false;
    name = name.substr(colons + 2);
  }
  for (const char* ns : {"cuda::", "thrust::", "cub::", "cooperative_groups::", "nv::", "hipcub::", "rocprim::"})
    if (name.rfind(ns, 0) == 0) return true;
  return false;
}

// Bounds a candidate may set or change, as an optimization does (`__launch_bounds__(256, 2)` to cap registers,
// `-maxrregcount`, AMD's flat work-group size): they change no ABI, only what launches the kernel accepts, and the
// launches (captured and profiled) must still fit (checked below). The rest (required sizes, kernarg alignment) must stay.
bool tunable_bound(const std::string& bound) {
  for (const char* kind : {"max_threads ", "max_registers ", "max_flat_workgroup_size "})
    if (bound.rfind(kind, 0) == 0) return true;
  return false;
}

std::vector<std::string> fixed_bounds(const std::vector<std::string>& bounds) {
  std::vector<std::string> out;
  for (const auto& b : bounds)
    if (!tunable_bound(b)) out.push_back(b);
  return out;
}

// The most threads per block the kernel's bounds accept (the product of max_threads' three sizes, or AMD's flat
// work-group size); nothing when the object states no such bound.
std::optional<uint64_t> max_threads_per_block(const KernelAbi& k) {
  std::optional<uint64_t> most;
  for (const auto& b : k.bounds) {
    unsigned long long x = 0, y = 1, z = 1;
    if (std::sscanf(b.c_str(), "max_threads %llu %llu %llu", &x, &y, &z) >= 1 ||
        std::sscanf(b.c_str(), "max_flat_workgroup_size %llu", &x) == 1) {
      const uint64_t n = uint64_t(x) * std::max(1ull, y) * std::max(1ull, z);
      most = most ? std::min(*most, n) : n;
    }
  }
  return most;
}

const char* rule_words(const std::string& rule) {
  if (rule == "clock") return "reads a clock or timer";
  if (rule == "print") return "prints";
  if (rule == "trap") return "traps";
  if (rule == "exit") return "exits early through inline assembly";
  if (rule == "atomic_on_input") return "adds an atomic on a read-only input";
  return "does something new";
}

}  // namespace

json describe_facts(const CodeObjectFacts& f) {
  json kernels = json::array();
  for (const auto& k : f.kernels) kernels.push_back(describe_abi(k));
  json findings = json::array();
  for (const auto& x : f.findings)
    findings.push_back({{"function", x.function}, {"rule", x.rule}, {"source", x.source}, {"evidence", x.evidence}});
  return {{"vendor", f.vendor}, {"file", f.file}, {"kernels", kernels}, {"functions", f.functions},
          {"data_symbols", f.data_symbols}, {"read_only_data", f.read_only_data}, {"externs", f.externs}, {"findings", findings}, {"read", f.read},
          {"notes", f.notes}};
}

StaticVerdict check_binary_gates(const CodeObjectFacts& original, const CodeObjectFacts& candidate,
                                 const std::vector<uint64_t>& launched_threads) {
  // signature: the exported functions, then each kernel's ABI
  json bounds_changed = json::array();
  auto gone = missing_from(original.functions, candidate.functions), added = missing_from(candidate.functions, original.functions);
  if (!gone.empty() || !added.empty())
    return StaticVerdict::failed("binary_signature",
                fmt::format("the code object exports other functions: {}{}{}",
                            gone.empty() ? "" : fmt::format("missing {}", fmt::join(gone, ", ")),
                            !gone.empty() && !added.empty() ? "; " : "",
                            added.empty() ? "" : fmt::format("new {}", fmt::join(added, ", "))),
                {{"missing", gone}, {"new", added}, {"original_functions", original.functions}});
  for (const auto& a : original.kernels) {
    auto it = std::find_if(candidate.kernels.begin(), candidate.kernels.end(), [&](const KernelAbi& b) { return b.symbol == a.symbol; });
    if (it == candidate.kernels.end())
      return StaticVerdict::failed("binary_signature", fmt::format("kernel {} is not in the candidate's code object (its mangled name, so its "
                                                  "parameter types or template arguments, changed)", a.symbol),
                  {{"original", describe_abi(a)}});
    const KernelAbi& b = *it;
    json ev = {{"original", describe_abi(a)}, {"candidate", describe_abi(b)}};
    if (a.params != b.params || a.param_block_size != b.param_block_size)
      return StaticVerdict::failed("binary_signature", fmt::format("kernel {}: the parameter block changed (offsets, sizes or alignment)", a.symbol), ev);
    if (fixed_bounds(a.bounds) != fixed_bounds(b.bounds))
      return StaticVerdict::failed("binary_signature", fmt::format("kernel {}: launch bounds changed: [{}] -> [{}]", a.symbol, fmt::join(a.bounds, ", "),
                                                  fmt::join(b.bounds, ", ")), ev);
    if (a.bounds == b.bounds) continue;
    // New or changed bounds: every launch (captured or profiled: launched_threads) must still fit, or it would fail.
    const std::optional<uint64_t> most = max_threads_per_block(b);
    for (uint64_t threads : launched_threads)
      if (most && threads > *most)
        return StaticVerdict::failed("binary_signature",
                                     fmt::format("kernel {}: the candidate's launch bounds accept at most {} threads per block; the "
                                                 "application launches it with {}", a.symbol, *most, threads),
                                     ev);
    bounds_changed.push_back({{"kernel", a.symbol}, {"original", a.bounds}, {"candidate", b.bounds},
                              {"launched_threads_per_block", launched_threads}});
  }
  // structure: lasting device data, external calls, instruction-level findings per function
  auto fresh_data = missing_from(candidate.data_symbols, original.data_symbols);
  std::vector<std::string> toolkit_data;
  fresh_data.erase(std::remove_if(fresh_data.begin(), fresh_data.end(), [&](const std::string& s) {
                     bool t = toolkit_data_symbol(s);
                     if (t) toolkit_data.push_back(s);
                     return t;
                   }), fresh_data.end());
  // Data the code only reads holds its initial values for every launch: no state. A kernel's `static constexpr` table
  // that nvcc places in .nv.global.init when it is indexed at run time (the PTX shows it only read), or a constant
  // the AMD compiler places in .rodata (a local table's initialiser): CodeObjectFacts::read_only_data.
  std::vector<std::string> read_only_tables;
  fresh_data.erase(std::remove_if(fresh_data.begin(), fresh_data.end(), [&](const std::string& s) {
                     bool t = std::find(candidate.read_only_data.begin(), candidate.read_only_data.end(), s) != candidate.read_only_data.end();
                     if (t) read_only_tables.push_back(s);
                     return t;
                   }), fresh_data.end());
  if (const auto& fresh = fresh_data; !fresh.empty())
    return StaticVerdict::failed("binary_structure", fmt::format("the code object has new device data that outlives a launch: {}", fmt::join(fresh, ", ")),
                {{"new_data_symbols", fresh}});
  if (auto fresh = missing_from(candidate.externs, original.externs); !fresh.empty())
    return StaticVerdict::failed("binary_structure", fmt::format("the code object calls new external functions: {}", fmt::join(fresh, ", ")),
                {{"new_externs", fresh}, {"prints", std::find(fresh.begin(), fresh.end(), "vprintf") != fresh.end()}});
  std::map<std::tuple<std::string, std::string, std::string>, int> before, after;
  for (const auto& f : original.findings) ++before[{f.function, f.rule, f.source}];
  for (const auto& f : candidate.findings) ++after[{f.function, f.rule, f.source}];
  for (const auto& [key, n] : after) {
    auto it = before.find(key);
    int was = it == before.end() ? 0 : it->second;
    if (n <= was) continue;
    const auto& [function, rule, source] = key;
    json lines = json::array();
    for (const auto& f : candidate.findings)
      if (f.function == function && f.rule == rule && f.source == source) lines.push_back(f.evidence);
    return StaticVerdict::failed("binary_structure", fmt::format("{} {} in the compiled code ({}: {} occurrence(s), the original {})", function,
                                                rule_words(rule), source, n, was),
                {{"function", function}, {"rule", rule}, {"source", source}, {"candidate_count", n}, {"original_count", was},
                 {"instructions", lines}});
  }
  json evidence = {{"read", candidate.read}, {"notes", candidate.notes}, {"toolkit_data_symbols_allowed", toolkit_data}};
  if (!read_only_tables.empty()) evidence["read_only_data_allowed"] = read_only_tables;
  if (bounds_changed.empty())
    return {true, "binary_structure", "the code object's ABI, symbols and machine-code structure match the original's", evidence};
  evidence["launch_bounds_changed"] = bounds_changed;
  return {true, "binary_structure",
          launched_threads.empty()
              ? "the code object's ABI, symbols and machine-code structure match the original's; launch bounds changed, "
                "with no launch to hold them against"
              : "the code object's ABI, symbols and machine-code structure match the original's; launch bounds changed, "
                "and every launch fits them",
          evidence};
}

}  // namespace rpl::optimize
