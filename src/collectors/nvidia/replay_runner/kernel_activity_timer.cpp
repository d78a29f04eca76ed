#include "collectors/nvidia/replay_runner/kernel_activity_timer.hpp"

#include <cupti.h>
#include <fmt/core.h>

#include <atomic>
#include <cstdlib>

namespace rpl::cuda_capture {
namespace {

constexpr size_t kBufferBytes = 1 << 20;
std::atomic<int64_t> g_last_ns{-1};

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);  // the record version CUPTI 13 writes
    if (k->end > k->start) g_last_ns.store(int64_t(k->end - k->start));
  }
  std::free(buffer);
}

}  // namespace

bool KernelActivityTimer::start(bool wanted, std::string& why_not) {
  if (!wanted) {
    why_not = "RPL_REPLAY_TIMER=events";
    return false;
  }
  if (CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    why_not = fmt::format("cuptiActivityRegisterCallbacks: {}", s ? s : "error");
    return false;
  }
  if (CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    why_not = fmt::format("cuptiActivityEnable: {}", s ? s : "error");
    return false;
  }
  started_ = true;
  return true;
}

int64_t KernelActivityTimer::take_last_kernel_ns() {
  if (!started_) return -1;
  g_last_ns.store(-1);
  cuptiActivityFlushAll(1);
  return g_last_ns.load();
}

KernelActivityTimer::~KernelActivityTimer() {
  if (started_) {
    cuptiActivityFlushAll(1);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  }
}

}  // namespace rpl::cuda_capture
