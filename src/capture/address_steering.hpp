#pragma once
// Address steering for VA-faithful replay, run before the GPU runtime starts (hsa_init) over the
// reservations capture::plan_reservations chose (capture/reservation_plan.hpp). Vendor-neutral: Linux mmap.
// (NVIDIA's runner does not steer: its driver honours address hints only inside the VA pool it sets up in
// cuInit, which placeholders would push elsewhere; it only uses restart_in_fresh_process.)
//
// Steering (seeds, "Strict VA-Faithful Replay & ROCr SVM Aperture Steering"): during hsa_init() ROCr
// (libhsakmt) reserves large SVM aperture ranges with mmap(PROT_NONE) at heuristic bases; when one covers a
// captured range, the fixed reservation later fails or relocates. So, before hsa_init(): map PROT_NONE
// placeholders over every planned range with MAP_FIXED_NOREPLACE; hsa_init() must then place its apertures
// elsewhere; unmap the placeholders; reserve every range at its address and check the result.
//
// Unlike the first implementation, a placeholder that cannot be placed is not ignored: a range already
// mapped in the replay process can never be reserved there, so that is reported (naming the occupant
// from /proc/self/maps) before any GPU work; a kernel that treats MAP_FIXED_NOREPLACE as a hint
// (Linux < 4.17) is detected from the returned address and reported as "steering unavailable".
// Pure logic plus Linux mmap; no HSA header.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rpl::capture {

// One range to steer: whole granules, covering one or more captured regions (ids for messages).
struct SteerRange {
  uint64_t base = 0;
  uint64_t size = 0;
  std::vector<uint64_t> region_ids;
};

enum class SteerOutcome {
  Placed,       // the placeholder sits exactly on the range
  Occupied,     // something in this process already maps part of the range (EEXIST)
  NotHonoured,  // the kernel ignored MAP_FIXED_NOREPLACE and mapped elsewhere (undone at once)
  Failed,       // another mmap error (errno in `error`)
};
const char* to_string(SteerOutcome outcome);

struct SteerResult {
  SteerRange range;
  SteerOutcome outcome = SteerOutcome::Failed;
  int error = 0;
  std::string occupant;  // Occupied: the overlapping /proc/self/maps lines
};

// The two system calls steering needs, replaceable in tests.
struct PlaceholderMapper {
  // mmap(address, size, PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE|MAP_FIXED_NOREPLACE): the mapped
  // address, or 0 with `error` set.
  std::function<uint64_t(uint64_t address, uint64_t size, int& error)> map;
  std::function<void(uint64_t address, uint64_t size)> unmap;
  // The /proc/self/maps lines overlapping a range ("" when none or unreadable).
  std::function<std::string(uint64_t address, uint64_t size)> describe;
};
PlaceholderMapper system_placeholder_mapper();

// Places placeholders over the plan; remove() (or the destructor) unmaps those that were placed.
class ApertureSteering {
 public:
  explicit ApertureSteering(PlaceholderMapper mapper) : mapper_(std::move(mapper)) {}
  ~ApertureSteering() { remove(); }
  ApertureSteering(const ApertureSteering&) = delete;
  ApertureSteering& operator=(const ApertureSteering&) = delete;

  const std::vector<SteerResult>& place(const std::vector<SteerRange>& plan);
  void remove();
  const std::vector<SteerResult>& results() const { return results_; }

 private:
  PlaceholderMapper mapper_;
  std::vector<SteerResult> results_;
  bool placed_ = false;
};

// What the results mean for the replay: fatal lines (ranges that cannot be reserved: Occupied) and
// warnings (steering could not help: NotHonoured, Failed). Each line names the range and the regions.
struct SteeringVerdict {
  std::vector<std::string> fatal;
  std::vector<std::string> warnings;
};
SteeringVerdict judge_steering(const std::vector<SteerResult>& results);

// The /proc/self/maps lines of `maps_text` that overlap [address, address + size), joined by "; ".
std::string overlapping_mappings(const std::string& maps_text, uint64_t address, uint64_t size);

// Something this process mapped (a shared library, the heap, the runtime's own reservations: where they land
// is randomised per process) sits on a captured range. Another process has another layout, so the runner starts
// itself again (execv of /proc/self/exe with the same arguments) up to `max_attempts` processes in all,
// counting in RPL_REPLAY_ATTEMPT. Returns only when no attempt is left or exec failed (the caller then reports
// the range as not reservable); the kernel never runs at another address either way.
bool restart_in_fresh_process(int max_attempts, const char* runner_name);

}  // namespace rpl::capture
