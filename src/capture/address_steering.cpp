#include "capture/address_steering.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace rpl::capture {
namespace {

std::string describe_range(const SteerRange& r) {
  std::string ids;
  for (uint64_t id : r.region_ids) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  return fmt::format("range 0x{:x}-0x{:x} ({} bytes; region{} {})", r.base, r.base + r.size, r.size,
                     r.region_ids.size() == 1 ? "" : "s", ids);
}

}  // namespace

const char* to_string(SteerOutcome outcome) {
  switch (outcome) {
    case SteerOutcome::Placed: return "placed";
    case SteerOutcome::Occupied: return "occupied";
    case SteerOutcome::NotHonoured: return "not_honoured";
    case SteerOutcome::Failed: return "failed";
  }
  return "failed";
}

std::string overlapping_mappings(const std::string& maps_text, uint64_t address, uint64_t size) {
  std::istringstream in(maps_text);
  std::string line, out;
  while (std::getline(in, line)) {
    unsigned long long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx", &lo, &hi) != 2) continue;
    if (lo < address + size && address < hi) out += (out.empty() ? "" : "; ") + line;
  }
  return out;
}

PlaceholderMapper system_placeholder_mapper() {
  PlaceholderMapper m;
  m.map = [](uint64_t address, uint64_t size, int& error) -> uint64_t {
    void* p = ::mmap(reinterpret_cast<void*>(address), size, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) {
      error = errno;
      return 0;
    }
    error = 0;
    return reinterpret_cast<uint64_t>(p);
  };
  m.unmap = [](uint64_t address, uint64_t size) { ::munmap(reinterpret_cast<void*>(address), size); };
  m.describe = [](uint64_t address, uint64_t size) {
    std::ifstream maps("/proc/self/maps");
    std::stringstream text;
    text << maps.rdbuf();
    return overlapping_mappings(text.str(), address, size);
  };
  return m;
}

const std::vector<SteerResult>& ApertureSteering::place(const std::vector<SteerRange>& plan) {
  remove();
  results_.clear();
  for (const SteerRange& r : plan) {
    SteerResult result{r};
    int error = 0;
    const uint64_t got = mapper_.map(r.base, r.size, error);
    if (got == r.base) {
      result.outcome = SteerOutcome::Placed;
    } else if (got != 0) {
      mapper_.unmap(got, r.size);  // a kernel without MAP_FIXED_NOREPLACE took it as a hint
      result.outcome = SteerOutcome::NotHonoured;
    } else if (error == EEXIST) {
      result.outcome = SteerOutcome::Occupied;
      result.error = error;
      result.occupant = mapper_.describe(r.base, r.size);
    } else {
      result.outcome = SteerOutcome::Failed;
      result.error = error;
    }
    results_.push_back(std::move(result));
  }
  placed_ = true;
  return results_;
}

void ApertureSteering::remove() {
  if (!placed_) return;
  for (const SteerResult& r : results_)
    if (r.outcome == SteerOutcome::Placed) mapper_.unmap(r.range.base, r.range.size);
  placed_ = false;
}

SteeringVerdict judge_steering(const std::vector<SteerResult>& results) {
  SteeringVerdict v;
  bool warned_hint = false;
  for (const SteerResult& r : results) {
    switch (r.outcome) {
      case SteerOutcome::Placed: break;
      case SteerOutcome::Occupied:
        v.fatal.push_back(fmt::format("{} is already mapped in the replay process{}{}", describe_range(r.range),
                                      r.occupant.empty() ? "" : " by: ", r.occupant));
        break;
      case SteerOutcome::NotHonoured:
        if (!warned_hint)
          v.warnings.push_back(fmt::format(
              "the kernel ignores MAP_FIXED_NOREPLACE (Linux < 4.17?): aperture steering is unavailable, "
              "first seen for {}",
              describe_range(r.range)));
        warned_hint = true;
        break;
      case SteerOutcome::Failed:
        v.warnings.push_back(fmt::format("could not place an aperture-steering placeholder over {}: {}",
                                         describe_range(r.range), std::strerror(r.error)));
        break;
    }
  }
  return v;
}

bool restart_in_fresh_process(int max_attempts, const char* runner_name) {
  int attempt = 1;
  if (const char* v = std::getenv("RPL_REPLAY_ATTEMPT"); v && *v) attempt = std::max(1, std::atoi(v));
  if (attempt >= max_attempts) return false;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end_of = text.find('\0', start);
    args.push_back(text.substr(start, end_of == std::string::npos ? std::string::npos : end_of - start));
    if (end_of == std::string::npos) break;
    start = end_of + 1;
  }
  if (args.empty()) return false;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string next = std::to_string(attempt + 1);
  ::setenv("RPL_REPLAY_ATTEMPT", next.c_str(), 1);
  std::fprintf(stderr, "%s: note: a captured range cannot be had in this process; starting again in a "
                       "fresh process (attempt %s of %d)\n", runner_name, next.c_str(), max_attempts);
  std::fflush(stderr);
  ::execv("/proc/self/exe", argv.data());
  return false;  // exec failed: the caller reports the range
}

}  // namespace rpl::capture
