#include "collectors/nvidia/nccl_profile_file.hpp"

#include <fmt/core.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <limits>
#include <map>

#include "store/rocpd_collective_calls.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/trim.hpp"

namespace rpl::collectors {
namespace {

std::vector<std::string_view> split_cells(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = line.find(sep, start);
    out.push_back(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

template <typename T>
bool parse_number(std::string_view s, T& out, int base = 10) {
  if (base == 16 && s.starts_with("0x")) s.remove_prefix(2);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

bool real(std::string_view s, double& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p != s.data();
}

// NCCL's algorithm / protocol names in the kernel names' spelling ("Ring" -> "RING", "Simple" -> "SIMPLE").
std::string upper_name(std::string_view s) {
  static const std::map<std::string_view, std::string_view> known = {
      {"Tree", "TREE"}, {"Ring", "RING"}, {"CollNetDirect", "COLLNET_DIRECT"}, {"CollNetChain", "COLLNET_CHAIN"},
      {"NVLS", "NVLS"}, {"NVLSTree", "NVLS_TREE"}, {"PAT", "PAT"}, {"LL", "LL"}, {"LL128", "LL128"},
      {"Simple", "SIMPLE"}};
  auto it = known.find(s);
  return std::string(it != known.end() ? it->second : s);
}

}  // namespace

std::vector<CollectiveCall> parse_nccl_profile(std::string_view text, const std::string& path) {
  std::vector<CollectiveCall> out;
  std::size_t line_no = 0, pos = 0;
  bool header = false;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    const bool complete = end != std::string_view::npos;
    std::string_view line = text.substr(pos, complete ? end - pos : std::string_view::npos);
    pos = complete ? end + 1 : text.size();
    ++line_no;
    if (line.empty()) continue;
    auto bad = [&](std::string_view why) {
      return Error(ExitCode::InputCorrupt, fmt::format("{}:{}: {} (not a line of our NCCL profiler plugin)", path,
                                                       line_no, why));
    };
    const auto f = split_cells(line, '\t');
    if (!header) {
      if (f.size() < 2 || f[0] != "rpl-nccl-profile" || f[1] != "1") throw bad("unknown header");
      header = true;
      continue;
    }
    if (f[0] == "C") continue;
    if (f[0] != "E") throw bad(fmt::format("unknown record '{}'", f[0]));
    if (f.size() != 18) {
      if (!complete) break;  // the process died while writing its last line
      throw bad(fmt::format("{} fields, expected 18", f.size()));
    }
    CollectiveCall c;
    int64_t start = 0, stop = 0;
    bool ok = parse_number(f[1], c.comm_id, 16) && parse_number(f[2], c.comm_size) && parse_number(f[3], c.comm_rank) &&
              parse_number(f[4], c.comm_nodes) && (f[5] == "c" || f[5] == "p") && parse_number(f[6], c.sequence) &&
              parse_number(f[8], c.count) && parse_number(f[10], c.root) && parse_number(f[11], c.peer) && parse_number(f[14], c.channels) &&
              parse_number(f[15], c.group) && parse_number(f[16], start) && parse_number(f[17], stop);
    if (!ok) {
      if (!complete) break;
      throw bad("a field is not a number");
    }
    if (c.comm_size <= 0 || c.comm_rank < 0 || c.comm_rank >= c.comm_size)
      throw bad(fmt::format("rank {} of a communicator of {}", c.comm_rank, c.comm_size));
    c.operation = std::string(f[7]);
    c.data_type = normalize_data_type(f[9]);
    c.bytes = c.count * data_type_bytes(c.data_type);
    // NCCL passes a root of 0 to collectives that have none: kept for Broadcast and Reduce only.
    if (f[5] == "p" || (c.operation != "Broadcast" && c.operation != "Reduce")) c.root = -1;
    if (f[5] == "c") c.peer = -1;
    c.algorithm = upper_name(f[12]);
    c.protocol = upper_name(f[13]);
    c.start = start;
    c.end = stop;
    c.source = "nccl-profiler";
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

// GB/s per direction per PCIe lane, by generation (after line encoding).
double pcie_lane_gb_per_s(int gen) {
  switch (gen) {
    case 1: return 0.25;
    case 2: return 0.5;
    case 3: return 0.985;
    case 4: return 1.969;
    case 5: return 3.938;
    case 6: return 7.563;
    default: return 0;
  }
}

// nvidia-smi underlines topo -m's header with terminal escapes ("\x1b[4m...\x1b[0m") even into a pipe.
std::string strip_escapes(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z'))) ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

// "GPU 0: NVIDIA H200 (UUID: GPU-...)" -> (0, "GPU-...")
bool gpu_header(std::string_view line, int& index, std::string& uuid) {
  line = trim(line);
  if (!line.starts_with("GPU ")) return false;
  const auto colon = line.find(':');
  const auto u = line.find("UUID: ");
  if (colon == std::string_view::npos || u == std::string_view::npos) return false;
  if (!parse_number(line.substr(4, colon - 4), index)) return false;
  const auto close = line.find(')', u);
  uuid = std::string(line.substr(u + 6, close == std::string_view::npos ? std::string_view::npos : close - u - 6));
  return true;
}

}  // namespace

std::vector<GpuLink> parse_nvidia_topology(std::string_view text) {
  std::map<int, std::string> uuid_of;
  std::map<std::string, std::pair<uint32_t, double>> nvlink;  // uuid -> (active links, GB/s in all)
  std::map<std::string, std::pair<uint32_t, double>> pcie;    // uuid -> (lanes, GB/s)
  std::vector<std::tuple<int, int, uint32_t>> pairs;          // (gpu, gpu, NVLinks)
  std::string section, current;
  std::vector<int> columns;  // topo -m: column -> GPU index (-1: not a GPU)
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    const std::string clean =
        strip_escapes(text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    std::string_view raw = clean;
    pos = end == std::string_view::npos ? text.size() + 1 : end + 1;
    std::string_view line = trim(raw);
    if (line.starts_with("== ")) {
      section = std::string(line.substr(3));
      columns.clear();
      continue;
    }
    if (line.empty()) continue;
    int index = 0;
    std::string uuid;
    if (section.find(" -L") != std::string::npos) {
      if (gpu_header(line, index, uuid)) uuid_of[index] = uuid;
    } else if (section.find("nvlink") != std::string::npos) {
      if (gpu_header(line, index, uuid)) {
        current = uuid;
        nvlink.try_emplace(current);
      } else if (line.starts_with("Link ") && !current.empty()) {
        const auto colon = line.find(':');
        double gbs = 0;
        if (colon != std::string_view::npos && real(trim(line.substr(colon + 1)), gbs) && gbs > 0) {
          ++nvlink[current].first;
          nvlink[current].second += gbs;
        }
      }
    } else if (section.find("topo") != std::string::npos) {
      auto cells = split_cells(raw, '\t');
      if (columns.empty()) {  // the header row: GPU0 GPU1 ... NIC0 ... CPU Affinity
        for (auto c : cells) {
          c = trim(c);
          if (c.empty()) continue;
          int g = -1;
          if (c.starts_with("GPU") && parse_number(c.substr(3), g)) columns.push_back(g);
          else columns.push_back(-1);
        }
        continue;
      }
      std::string_view head = trim(cells[0]);
      int row = -1;
      if (!head.starts_with("GPU") || !parse_number(head.substr(3), row)) continue;
      std::size_t col = 0;
      for (std::size_t i = 1; i < cells.size() && col < columns.size(); ++i) {
        std::string_view c = trim(cells[i]);
        if (c.empty()) continue;
        uint32_t links = 0;
        if (columns[col] >= 0 && columns[col] != row && c.starts_with("NV") && parse_number(c.substr(2), links))
          pairs.emplace_back(row, columns[col], links);
        ++col;
      }
    } else if (section.find("pcie") != std::string::npos) {
      auto cells = split_cells(line, ',');
      int gen = 0;
      uint32_t width = 0;
      if (cells.size() == 3 && parse_number(trim(cells[1]), gen) && parse_number(trim(cells[2]), width))
        pcie[std::string(trim(cells[0]))] = {width, width * pcie_lane_gb_per_s(gen)};
    }
  }
  std::vector<GpuLink> out;
  for (const auto& [uuid, v] : nvlink)
    if (v.first > 0) out.push_back({std::numeric_limits<uint32_t>::max(), uuid, "", "nvlink", v.first, v.second, "nvidia-smi"});
  for (const auto& [uuid, v] : pcie)
    if (v.second > 0) out.push_back({std::numeric_limits<uint32_t>::max(), uuid, "", "pcie", v.first, v.second, "nvidia-smi"});
  for (auto [a, b, links] : pairs) {
    auto ua = uuid_of.find(a), ub = uuid_of.find(b);
    if (ua == uuid_of.end() || ub == uuid_of.end()) continue;
    auto nv = nvlink.find(ua->second);
    const double per_link = nv != nvlink.end() && nv->second.first ? nv->second.second / nv->second.first : 0;
    out.push_back({std::numeric_limits<uint32_t>::max(), ua->second, ub->second, "nvlink", links, per_link * links, "nvidia-smi"});
  }
  return out;
}

std::vector<std::vector<std::string>> nvidia_topology_commands() {
  return {{"nvidia-smi", "-L"},
          {"nvidia-smi", "topo", "-m"},
          {"nvidia-smi", "nvlink", "-s"},
          {"nvidia-smi", "--query-gpu=uuid,pcie.link.gen.max,pcie.link.width.max", "--format=csv,noheader"}};
}

std::size_t attach_nccl_records(const std::string& db, const std::string& dir, int64_t pid) {
  namespace fs = std::filesystem;
  const fs::path calls_path = fs::path(dir) / fmt::format("{}.rplnccl", pid), topo_path = fs::path(dir) / "gpu_topology.txt";
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  std::error_code ec;
  const bool have_calls = fs::exists(calls_path, ec), have_topo = fs::exists(topo_path, ec);
  if (!have_calls && !have_topo) return 0;
  try {
    std::vector<CollectiveCall> calls;
    if (have_calls) calls = parse_nccl_profile(slurp(calls_path), calls_path.string());
    std::vector<GpuLink> links;
    if (have_topo) links = parse_nvidia_topology(slurp(topo_path));
    const std::size_t n = rocpd::append_collective_calls(db, calls, links);
    if (have_calls) fs::remove(calls_path, ec);
    return n;
  } catch (const Error& e) {
    log::warn("NCCL calls not stored in {}: {}", db, e.what());
    return 0;
  }
}

}  // namespace rpl::collectors
