// Queue interception: every queue the application creates becomes a ROCr intercept queue whose submitted
// packets pass through on_submit before they reach the hardware queue.
//
// Until the capture, each forwarded batch is followed by a barrier-AND packet (barrier bit set) whose
// completion decrements the queue's in-flight signal, so "all preceding work on this queue has finished"
// is the signal reaching 0. At the launch to capture: every other submission is held back at the gate, the
// launch's own queue gets the preceding packets of its batch, then all queues' in-flight signals and all
// asynchronous copies are waited for (bounded by RPL_CAPTURE_DRAIN_TIMEOUT_S); the before-snapshot is
// taken; the launch is submitted alone, followed by a barrier whose signal says it finished; the
// after-snapshot is taken; the gate opens and interception stops adding packets. The first implementation
// snapshotted while earlier kernels could still be running. UNVALIDATED ON AMD HARDWARE.
#include <array>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <unistd.h>
#include <exception>
#include <span>

#include "collectors/amd/aql_packet.hpp"
#include "collectors/amd/capture_injection/interceptors.hpp"

namespace rpl::hsa_capture {
namespace {

namespace amd = collectors::amd;
using Writer = hsa_amd_queue_intercept_packet_writer;
using PacketBytes = std::span<const std::byte, amd::kAqlPacketSize>;

static_assert(sizeof(hsa_kernel_dispatch_packet_t) == amd::kAqlPacketSize);
static_assert(offsetof(hsa_kernel_dispatch_packet_t, kernel_object) == amd::dispatch_offset::kernel_object);
static_assert(offsetof(hsa_kernel_dispatch_packet_t, kernarg_address) == amd::dispatch_offset::kernarg_address);
static_assert(offsetof(hsa_kernel_dispatch_packet_t, completion_signal) == amd::dispatch_offset::completion_signal);
static_assert(offsetof(hsa_kernel_dispatch_packet_t, group_segment_size) == amd::dispatch_offset::group_segment);
static_assert(offsetof(hsa_barrier_and_packet_t, completion_signal) == amd::barrier_offset::completion_signal);

// A barrier-AND packet with the barrier bit and system-scope release (earlier kernels' writes reach memory
// before its signal drops, so host copies of device memory see them).
std::array<std::byte, amd::kAqlPacketSize> drain_barrier(hsa_signal_t signal) {
  std::array<std::byte, amd::kAqlPacketSize> p{};
  amd::encode_barrier_body(p, signal.handle);
  const uint16_t header = amd::kPacketTypeBarrierAnd | (1u << amd::kHeaderBarrierBit) |
                          (amd::kFenceScopeSystem << amd::kHeaderAcquireScopeShift) |
                          (amd::kFenceScopeSystem << amd::kHeaderReleaseScopeShift);
  std::memcpy(p.data(), &header, sizeof header);
  return p;
}

// Waits until `signal` drops below `below`; false when `timeout_s` passes first.
bool wait_below(hsa_signal_t signal, hsa_signal_value_t below, double timeout_s) {
  const CoreApiTable* core = state().rt.core;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (core->hsa_signal_wait_scacquire_fn(signal, HSA_SIGNAL_CONDITION_LT, below, 100'000'000,
                                            HSA_WAIT_STATE_BLOCKED) >= below) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
  return true;
}

// Forwards packets and, while the capture is pending, the in-flight marker after them.
void forward(QueueState* q, const std::byte* packets, uint64_t count, Writer writer) {
  if (count == 0) return;
  writer(packets, count);
  if (state().finished) return;
  state().rt.core->hsa_signal_add_screlease_fn(q->inflight, 1);
  const auto marker = drain_barrier(q->inflight);
  writer(marker.data(), 1);
}

struct GateEntry {
  GateEntry() {
    ToolState& s = state();
    std::unique_lock lock(s.gate_mutex);
    s.gate_cv.wait(lock, [&] { return !s.capturing; });
    ++s.submitting;
  }
  ~GateEntry() {
    ToolState& s = state();
    {
      std::lock_guard lock(s.gate_mutex);
      --s.submitting;
    }
    s.gate_cv.notify_all();
  }
};

// Holds every other submission back (waiting for those already inside to leave) for its lifetime.
struct ExclusiveCapture {
  ExclusiveCapture() {
    ToolState& s = state();
    std::unique_lock lock(s.gate_mutex);
    s.capturing = true;
    s.gate_cv.wait(lock, [&] { return s.submitting == 1; });  // only the capturing submission itself
  }
  ~ExclusiveCapture() {
    ToolState& s = state();
    s.finished = true;
    {
      std::lock_guard lock(s.gate_mutex);
      s.capturing = false;
    }
    s.gate_cv.notify_all();
  }
};

// Every queue's earlier work and every asynchronous copy, finished. An empty string, or what did not finish.
std::string drain_everything(double timeout_s) {
  ToolState& s = state();
  std::vector<std::pair<uint64_t, hsa_signal_t>> signals;
  {
    std::lock_guard lock(s.mutex);
    for (const auto& [queue, qs] : s.queues) signals.emplace_back(qs->queue->id, qs->inflight);
  }
  for (const auto& [id, signal] : signals)
    if (!wait_below(signal, 1, timeout_s)) return fmt::format("earlier work on queue {} did not finish", id);
  if (!wait_for_copies(timeout_s)) return "an earlier asynchronous copy did not finish";
  return {};
}

void capture_launch(QueueState* q, const std::byte* packet, const KernelInfo& kernel, Writer writer) {
  ToolState& s = state();
  const double timeout = s.config.drain_timeout_s;
  if (const std::string stuck = drain_everything(timeout); !stuck.empty()) {
    report("capture abandoned: {} within {} s (RPL_CAPTURE_DRAIN_TIMEOUT_S); the application continues", stuck,
           timeout);
    writer(packet, 1);
    return;
  }
  hsa_signal_t done{};
  if (s.rt.core->hsa_signal_create_fn(1, 0, nullptr, &done) != HSA_STATUS_SUCCESS) {
    report("capture abandoned: cannot create a signal");
    writer(packet, 1);
    return;
  }
  bool submitted = false;
  const auto run_kernel = [&]() {
    writer(packet, 1);
    submitted = true;
    const auto marker = drain_barrier(done);
    writer(marker.data(), 1);
    return wait_below(done, 1, timeout);
  };
  CaptureRequest request{&kernel, packet, q->agent};
  std::string outcome;
  bool captured = false;
  try {
    outcome = write_capture(request, run_kernel);
    captured = true;
  } catch (const std::exception& e) {
    outcome = std::string("capture failed: ") + e.what();
  }
  if (!submitted) writer(packet, 1);  // the launch always happens, captured or not
  s.rt.core->hsa_signal_destroy_fn(done);
  report("{}", outcome);
  if (s.config.exit_after && captured) {  // the launch has finished: write_capture waited for it
    std::fflush(nullptr);
    _exit(0);
  }
}

void on_submit(const void* in, uint64_t count, uint64_t, void* data, Writer writer) {
  ToolState& s = state();
  auto* q = static_cast<QueueState*>(data);
  const auto* packets = static_cast<const std::byte*>(in);
  if (s.finished) {
    writer(in, count);
    return;
  }
  GateEntry gate;
  uint64_t next = 0;  // first packet not yet forwarded
  for (uint64_t i = 0; i < count; ++i) {
    const PacketBytes packet(packets + i * amd::kAqlPacketSize, amd::kAqlPacketSize);
    if (amd::packet_type(packet) != amd::kPacketTypeKernelDispatch) continue;
    const uint64_t object = amd::decode_dispatch(packet).kernel_object;
    KernelInfo kernel;
    {
      std::lock_guard lock(s.mutex);
      auto it = s.kernels.find(object);
      if (it == s.kernels.end()) continue;  // loaded in a way not intercepted: cannot be named
      kernel = it->second;
    }
    bool capture_now = false;
    {
      std::lock_guard lock(s.capture_mutex);
      capture_now = !s.finished && s.selector->on_launch(kernel.mangled, kernel.demangled);
    }
    if (!capture_now) continue;
    ExclusiveCapture exclusive;
    forward(q, packets + next * amd::kAqlPacketSize, i - next, writer);
    capture_launch(q, packet.data(), kernel, writer);
    next = i + 1;
    break;  // `finished` is set: the rest goes through untouched
  }
  if (s.finished)
    writer(packets + next * amd::kAqlPacketSize, count - next);
  else
    forward(q, packets + next * amd::kAqlPacketSize, count - next, writer);
}

// Makes an intercept queue ours: our handler, an in-flight signal, and the queue's agent.
hsa_status_t adopt(hsa_queue_t* queue, hsa_agent_t agent) {
  ToolState& s = state();
  auto qs = std::make_unique<QueueState>();
  qs->queue = queue;
  qs->agent = agent;
  if (s.rt.core->hsa_signal_create_fn(0, 0, nullptr, &qs->inflight) != HSA_STATUS_SUCCESS)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  QueueState* raw = qs.get();
  {
    std::lock_guard lock(s.mutex);
    s.queues[queue] = std::move(qs);
  }
  const hsa_status_t status = s.rt.queue_intercept_register(queue, on_submit, raw);
  if (status != HSA_STATUS_SUCCESS) {
    std::lock_guard lock(s.mutex);
    s.rt.core->hsa_signal_destroy_fn(raw->inflight);
    s.queues.erase(queue);
  }
  return status;
}

}  // namespace

hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                          void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                          uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t** queue) {
  ToolState& s = state();
  hsa_status_t status = s.rt.queue_intercept_create(agent, size, type, callback, data, private_segment_size,
                                                    group_segment_size, queue);
  if (status == HSA_STATUS_SUCCESS && adopt(*queue, agent) == HSA_STATUS_SUCCESS) return status;
  if (status == HSA_STATUS_SUCCESS) s.rt.queue_destroy(*queue);
  report("a queue could not be intercepted; launches on it are not seen by the capture");
  return s.rt.queue_create(agent, size, type, callback, data, private_segment_size, group_segment_size, queue);
}

hsa_status_t queue_intercept_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                    void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                    uint32_t private_segment_size, uint32_t group_segment_size,
                                    hsa_queue_t** queue) {
  ToolState& s = state();
  const hsa_status_t status = s.rt.queue_intercept_create(agent, size, type, callback, data, private_segment_size,
                                                          group_segment_size, queue);
  if (status == HSA_STATUS_SUCCESS && adopt(*queue, agent) != HSA_STATUS_SUCCESS)
    report("an application intercept queue could not be hooked; launches on it are not seen by the capture");
  return status;
}

hsa_status_t queue_destroy(hsa_queue_t* queue) {
  ToolState& s = state();
  std::unique_ptr<QueueState> gone;
  {
    std::lock_guard lock(s.mutex);
    if (auto it = s.queues.find(queue); it != s.queues.end()) {
      gone = std::move(it->second);
      s.queues.erase(it);
    }
  }
  const hsa_status_t status = s.rt.queue_destroy(queue);
  if (gone) s.rt.core->hsa_signal_destroy_fn(gone->inflight);  // after the queue: no marker refers to it now
  return status;
}

}  // namespace rpl::hsa_capture
