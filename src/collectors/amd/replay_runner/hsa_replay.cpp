#include "collectors/amd/replay_runner/hsa_replay.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>

#include "capture/reservation_plan.hpp"
#include "capture/address_steering.hpp"
#include "collectors/amd/replay_runner/replay_kernel.hpp"
#include "collectors/amd/replay_runner/replay_memory.hpp"
#include "support/errors.hpp"

namespace rpl::hsa_replay {
namespace {

namespace amd = collectors::amd;
namespace fs = std::filesystem;
using capture::to_hex;
using Clock = std::chrono::steady_clock;

double since_ns(Clock::time_point t) { return std::chrono::duration<double, std::nano>(Clock::now() - t).count(); }

std::vector<std::byte> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ExitCode::InputMissing, fmt::format("cannot read code object {}", path));
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (chars.empty()) throw Error(ExitCode::InputInvalid, fmt::format("code object {} is empty", path));
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

// The failed ranges as one line: how many, and the first with its reason.
[[noreturn]] void throw_relocation(const capture::ReplayReport& report) {
  std::string first;
  std::size_t count = 0;
  for (const auto& r : report.ranges) {
    if (r.status == "exact") continue;
    if (count++ == 0)
      first = r.status == "relocated"
                  ? fmt::format("{} ({} bytes) would land at {}", to_hex(r.address), r.size, to_hex(r.got))
                  : fmt::format("{} ({} bytes): {}", to_hex(r.address), r.size, r.error);
  }
  throw Error(ExitCode::AddressRelocation,
              fmt::format("{} captured address range(s) cannot be reserved at their original address, e.g. {}; the "
                          "kernel is never run at other addresses",
                          count, first));
}

// Steering found ranges that this process itself already maps: recorded as failed ranges, then fatal.
[[noreturn]] void throw_occupied(const std::vector<capture::SteerResult>& results, const capture::SteeringVerdict& verdict,
                                 const std::vector<capture::PlannedMapping>& plan, const capture::Manifest& m,
                                 capture::ReplayReport& report) {
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const bool occupied = results[i].outcome == capture::SteerOutcome::Occupied;
    report.ranges.push_back({plan[i].address, plan[i].size, occupied ? "failed" : "exact", 0,
                             occupied ? "already mapped in the replay process: " + results[i].occupant : ""});
    for (std::size_t index : plan[i].regions) {
      const capture::Region& g = m.regions[index];
      report.regions.push_back({g.id, g.address, g.size, g.kind, g.symbol, occupied ? "failed" : "exact",
                                occupied ? 0 : g.address});
    }
  }
  throw Error(ExitCode::AddressRelocation, fmt::format("{} (the kernel is never run at other addresses)", verdict.fatal.front()));
}

// The runner's device operations for the shared full-vm flow (capture::run_full_vm).
class HsaReplayDevice : public capture::ReplayDevice {
 public:
  HsaReplayDevice(ReplayMemory& memory, ReplayKernel& kernel, const capture::Manifest& m,
                  const std::vector<uint64_t>& addresses, double timeout_s)
      : memory_(memory), kernel_(kernel), m_(m), addresses_(addresses), timeout_s_(timeout_s) {}
  void restore(const std::vector<bool>& regions) override { memory_.restore_pristine(m_, addresses_, regions); }
  bool restores_by_fill(std::size_t region) const override { return memory_.restores_by_fill(region); }
  void set_restore_ranges(std::size_t region, std::vector<capture::ByteRange> ranges) override {
    memory_.set_restore_ranges(region, std::move(ranges));
  }
  void touch(std::size_t region, uint64_t offset, uint64_t size) override {
    memory_.touch(m_, addresses_, region, offset, size);
  }
  uint64_t cache_bytes() override { return memory_.cache_bytes(); }
  double launch() override { return kernel_.dispatch(timeout_s_); }
  void flush_cache() override { memory_.flush_cache(); }
  void read_back(std::size_t region, uint64_t offset, std::byte* into, std::size_t size) override {
    memory_.read(addresses_[region] + offset, into, size);
  }

 private:
  ReplayMemory& memory_;
  ReplayKernel& kernel_;
  const capture::Manifest& m_;
  const std::vector<uint64_t>& addresses_;
  double timeout_s_;
};

class Replay {
 public:
  Replay(const ReplayOptions& o, capture::ReplayReport& report) : o_(o), report_(report) {}
  void run();

 private:
  void read_capture();
  void steer_and_start_runtime();
  void full_vm();

  const ReplayOptions& o_;
  capture::ReplayReport& report_;
  capture::Manifest m_;
  amd::AmdReplayLaunch launch_;
  fs::path dir_;
  std::vector<capture::PlannedMapping> plan_;
  std::optional<HsaRuntime> rt_;
  std::optional<Device> device_;
  std::unique_ptr<ReplayMemory> memory_;
  std::unique_ptr<ReplayKernel> kernel_;
  Clock::time_point start_ = Clock::now();
};

void Replay::read_capture() {
  dir_ = o_.capture_dir;
  m_ = capture::read_manifest(dir_);
  report_.capture_dir = o_.capture_dir;
  report_.platform = m_.platform;
  report_.kernel = m_.kernel;
  report_.geometry = m_.geometry;
  report_.code_object_path = o_.code_object;
  report_.iterations = o_.iterations;
  report_.recopy = o_.recopy;
  report_.restore_source = "device";  // the plan; keep_pristine says "host" if device memory runs out
  if (m_.platform != "rocm")
    throw Error(ExitCode::InputInvalid,
                fmt::format("{} is a {} capture; this runner replays ROCm (HSA) captures", o_.capture_dir, m_.platform));
  launch_ = amd::read_launch(m_, (dir_ / capture::kManifestName).string());
  report_.granularity = launch_.granularity;
  // ROCr honours a vmem reservation hint at the allocation granularity, so each reservation is one mapping
  // span: reserved, then backed whole.
  report_.reservation_alignment = launch_.granularity;
  plan_.clear();
  for (const capture::PlannedReservation& r : capture::plan_reservations(m_, launch_.granularity, launch_.granularity)) {
    capture::PlannedMapping span{r.address, r.size, {}};
    for (const capture::PlannedMapping& p : r.mappings) span.regions.insert(span.regions.end(), p.regions.begin(), p.regions.end());
    plan_.push_back(std::move(span));
  }
}

// Before hsa_init: placeholders over every planned range, so ROCr's SVM apertures go elsewhere; a range this
// process already maps cannot be reserved and stops the replay here. Then the runtime, then the
// placeholders go.
void Replay::steer_and_start_runtime() {
  std::vector<capture::SteerRange> ranges;
  for (const auto& p : plan_) ranges.push_back({p.address, p.size, {}});
  for (std::size_t i = 0; i < plan_.size(); ++i)
    for (std::size_t index : plan_[i].regions) ranges[i].region_ids.push_back(m_.regions[index].id);
  capture::ApertureSteering steering(capture::system_placeholder_mapper());
  const auto& results = steering.place(ranges);
  const capture::SteeringVerdict verdict = capture::judge_steering(results);
  for (const std::string& w : verdict.warnings) std::fprintf(stderr, "rpl_replay_hsa: warning: %s\n", w.c_str());
  if (!verdict.fatal.empty()) {
    steering.remove();
    capture::restart_in_fresh_process(3, "rpl_replay_hsa");  // another process, another layout
    throw_occupied(results, verdict, plan_, m_, report_);
  }

  rt_ = load_hsa_runtime();
  const hsa_status_t status = rt_->init();
  if (status != HSA_STATUS_SUCCESS)
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("hsa_init failed: {} (is there an AMD GPU, /dev/kfd, and access to it?)", rt_->describe(status)));
  steering.remove();
  device_ = find_device(*rt_, m_.device_ordinal, launch_.agent_name);
  report_.device_name = device_->name;
  if (!launch_.isa_name.empty() && !device_->isa.empty() && launch_.isa_name != device_->isa)
    std::fprintf(stderr, "rpl_replay_hsa: warning: captured for %s, this GPU is %s\n", launch_.isa_name.c_str(),
                 device_->isa.c_str());
}

void Replay::full_vm() {
  memory_->map(plan_, m_, launch_);
  std::vector<uint64_t> addresses(m_.regions.size(), 0);
  for (std::size_t i = 0; i < m_.regions.size(); ++i)
    if (capture::reserved_by_replay(m_.regions[i])) addresses[i] = m_.regions[i].address;

  const std::vector<std::byte> image =
      o_.code_object.empty() ? capture::read_blob(dir_, m_.code_object) : read_file_bytes(o_.code_object);
  const std::string what = o_.code_object.empty() ? "the captured code object" : o_.code_object;
  kernel_ = std::make_unique<ReplayKernel>(*rt_, *device_);
  kernel_->load(image, what, launch_);
  // Code-object variables: wherever this process's loader put them, restored by name.
  for (std::size_t i = 0; i < m_.regions.size(); ++i) {
    const capture::Region& g = m_.regions[i];
    if (capture::reserved_by_replay(g)) continue;
    addresses[i] = kernel_->variable_address(g.symbol, g.size, what);
    for (auto& r : report_.regions)
      if (r.id == g.id) r.replay_address = addresses[i];
  }
  kernel_->set_arguments(capture::read_blob(dir_, m_.arguments));
  memory_->restore(dir_, m_, addresses);
  report_.restore_source = o_.recopy ? memory_->keep_pristine(m_, addresses) : std::string("device");
  HsaReplayDevice device(*memory_, *kernel_, m_, addresses, o_.knobs.kernel_timeout_s);
  capture::run_full_vm(o_, dir_, m_, device, report_, start_);
  if (!o_.dump_dir.empty()) memory_->dump(o_.dump_dir, m_, addresses);
}

void Replay::run() {
  read_capture();
  steer_and_start_runtime();
  memory_ = std::make_unique<ReplayMemory>(*rt_, *device_);
  const bool all_exact = memory_->reserve(plan_, m_, report_);
  if (!all_exact) throw_relocation(report_);
  if (o_.mode == capture::ReplayMode::FullVm) full_vm();
  report_.total_wall_ns = since_ns(start_);
  // Everything goes (reservations, queue, executable) before the runtime shuts down.
  kernel_.reset();
  memory_.reset();
  rt_->shut_down();
  capture::throw_if_mismatch(report_);
}

}  // namespace

void run_hsa_replay(const ReplayOptions& options, capture::ReplayReport& report) {
  Replay replay(options, report);
  replay.run();
}

}  // namespace rpl::hsa_replay
