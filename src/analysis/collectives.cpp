#include "analysis/collectives.hpp"

#include "model/data_types.hpp"

#include <array>
#include <vector>

namespace rpl::analysis {
namespace {

constexpr std::array<std::string_view, 16> kOperations = {
    "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",  "SendRecv", "Send",      "Recv",
    "AllToAllPivot", "AllToAll", "Gather", "Scatter", "Generic", "OneRankReduce", "BroadcastRing", "ReduceRing"};
constexpr std::array<std::string_view, 6> kReduceOps = {"Sum", "Prod", "MinMax", "Min", "Max", "PreMulSum"};
constexpr std::array<std::string_view, 7> kAlgorithms = {"COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "NVLS",
                                                         "TREE", "RING", "PAT"};
constexpr std::array<std::string_view, 3> kProtocols = {"LL128", "LL", "SIMPLE"};

// Splits on '_' but keeps known words that contain '_' (COLLNET_DIRECT, int8_t, __nv_bfloat16) whole.
std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::string_view rest = s.substr(i), best;
    auto consider = [&](std::string_view w) {
      if (w.find('_') != std::string_view::npos && rest.starts_with(w) && w.size() > best.size() &&
          (rest.size() == w.size() || rest[w.size()] == '_'))
        best = w;
    };
    for (auto a : kAlgorithms) consider(a);
    for (const auto& t : data_type_spellings()) consider(t.spelled);
    if (best.empty()) {
      std::size_t end = rest.find('_');
      best = rest.substr(0, end);
    }
    if (!best.empty()) out.push_back(best);
    i += best.size() + 1;
  }
  return out;
}

template <std::size_t N>
bool one_of(std::string_view w, const std::array<std::string_view, N>& set) {
  for (auto s : set)
    if (w == s) return true;
  return false;
}

}  // namespace

std::optional<CollectiveKernel> parse_collective_kernel(std::string_view name) {
  // A demangled name carries its arguments; a mangled one is "_Z<len><name>...".
  if (name.starts_with("_Z")) {
    std::size_t i = 2, len = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9') len = len * 10 + static_cast<std::size_t>(name[i++] - '0');
    if (len == 0 || i + len > name.size()) return std::nullopt;
    name = name.substr(i, len);
  }
  if (auto paren = name.find('('); paren != std::string_view::npos) name = name.substr(0, paren);
  if (auto angle = name.find('<'); angle != std::string_view::npos) name = name.substr(0, angle);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  if (auto space = name.rfind(' '); space != std::string_view::npos) name = name.substr(space + 1);  // "void f"

  std::string_view rest;
  for (std::string_view prefix : {"ncclDevKernelDebug_", "ncclDevKernel_", "ncclKernel_"})
    if (name.starts_with(prefix)) {
      rest = name.substr(prefix.size());
      break;
    }
  if (rest.empty()) return std::nullopt;

  CollectiveKernel k;
  k.library = "nccl";
  k.key = std::string(name);
  for (std::string_view w : words(rest)) {
    if (k.operation.empty() && one_of(w, kOperations)) {
      k.operation = w;
    } else if (k.reduce_op.empty() && (one_of(w, kReduceOps) || w == "SumPostDiv")) {
      k.reduce_op = w;
    } else if (k.algorithm.empty() && one_of(w, kAlgorithms)) {
      k.algorithm = w;
    } else if (k.protocol.empty() && one_of(w, kProtocols)) {
      k.protocol = w;
    } else if (k.data_type.empty()) {
      if (auto normal = data_type_of_spelling(w)) k.data_type = *normal;
    }
  }
  if (k.operation.empty()) k.operation = "Generic";
  return k;
}

std::string nccl_call_of_marker(std::string_view range_name) {
  if (!range_name.starts_with("nccl") || range_name.size() <= 4) return {};
  std::string_view call = range_name.substr(4);
  if (call.front() < 'A' || call.front() > 'Z') return {};
  for (char c : call)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return {};
  return std::string(call);
}

bool is_peer_copy(std::string_view kind, bool agents_known_and_different) {
  if (kind.find("PEER") != std::string_view::npos || kind.find("PTOP") != std::string_view::npos) return true;
  return kind.find("DEVICE_TO_DEVICE") != std::string_view::npos && agents_known_and_different;
}

}  // namespace rpl::analysis
