#include "capture/capture_sweep.hpp"

#include <fmt/core.h>

#include <stdexcept>

#include "support/json_integer.hpp"

namespace rpl::capture {

SweepBook::Verdict SweepBook::on_launch(const std::string& mangled, bool in_graph_capture) {
  auto [it, fresh] = kernels_.try_emplace(mangled);
  Tracked& t = it->second;
  if (fresh) {
    t.entry.order = kernels_.size();
    t.entry.mangled = mangled;
  }
  if (t.decided || t.capturing) return Verdict::Ignore;
  if (in_graph_capture) {
    ++t.in_graph;  // recorded into a CUDA graph, not run now
    return Verdict::Wait;
  }
  if (++t.entry.launches < dispatch_) return Verdict::Wait;
  if (budget_spent()) {
    t.entry.status = "skipped";
    t.entry.reason = fmt::format("--max-kernels {} reached before its launch", max_kernels_);
    decide(t);
    return Verdict::Ignore;
  }
  ++attempted_;
  t.capturing = true;
  t.entry.dir = fmt::format("k{:04d}", t.entry.order);
  return Verdict::Capture;
}

void SweepBook::finish(const std::string& mangled, bool captured, const std::string& reason, uint64_t region_bytes) {
  auto it = kernels_.find(mangled);
  if (it == kernels_.end() || !it->second.capturing) return;
  Tracked& t = it->second;
  t.capturing = false;
  t.entry.status = captured ? "captured" : "failed";
  t.entry.reason = captured ? "" : reason;
  t.entry.region_bytes = region_bytes;
  if (!captured) t.entry.dir.clear();
  decide(t);
}

void SweepBook::decide(Tracked& t) {
  t.decided = true;
  decided_.push_back(t.entry);
}

std::vector<SweepEntry> SweepBook::take_decided() { return std::exchange(decided_, {}); }

std::vector<SweepEntry> SweepBook::close() {
  for (auto& [name, t] : kernels_) {
    if (t.decided) continue;
    t.entry.status = "not_captured";
    if (t.capturing) t.entry.reason = "the application ended while its capture was being written";
    else if (t.in_graph && t.entry.launches == 0)
      t.entry.reason = fmt::format("launched only inside CUDA graph stream capture ({} time(s)): recorded, not run", t.in_graph);
    else
      t.entry.reason = fmt::format("launched {} time(s), fewer than the {} asked for", t.entry.launches, dispatch_);
    t.entry.dir.clear();
    decide(t);
  }
  return take_decided();
}

const SweepEntry* SweepBook::entry(const std::string& mangled) const {
  auto it = kernels_.find(mangled);
  return it == kernels_.end() ? nullptr : &it->second.entry;
}

nlohmann::json sweep_entry_json(const SweepEntry& e) {
  return {{"order", e.order}, {"kernel", e.mangled}, {"dir", e.dir}, {"status", e.status},
          {"reason", e.reason}, {"launches", e.launches}, {"region_bytes", e.region_bytes}};
}

SweepEntry sweep_entry_from_json(const nlohmann::json& j) {
  try {
    SweepEntry e;
    e.order = json_integer_or_throw<uint64_t>(j.at("order"), "order");
    e.mangled = j.at("kernel").get<std::string>();
    e.dir = j.at("dir").get<std::string>();
    e.status = j.at("status").get<std::string>();
    e.reason = j.at("reason").get<std::string>();
    e.launches = json_integer_or_throw<uint64_t>(j.at("launches"), "launches");
    e.region_bytes = json_integer_or_throw<uint64_t>(j.at("region_bytes"), "region_bytes");
    if (e.status != "captured" && e.status != "failed" && e.status != "skipped" && e.status != "not_captured")
      throw std::runtime_error("unknown status \"" + e.status + "\"");
    return e;
  } catch (const nlohmann::json::exception& x) {
    throw std::runtime_error(x.what());
  }
}

}  // namespace rpl::capture
