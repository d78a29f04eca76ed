#pragma once
// Turns the records of one completed CUPTI activity buffer into our compact spill records. Runs on the
// thread CUPTI completes buffers on (its worker, or whoever flushes), never on an application thread
// that CUPTI did not choose. Staging vectors and the string table are reused, so after warm-up a buffer
// costs no allocation beyond new kernel names.
#include <cupti.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collectors/nvidia/spill_file.hpp"

namespace rpl::cuda {

struct TranslateStats {
  uint64_t kernels = 0, copies = 0, api_calls = 0, markers = 0, syncs = 0, event_records = 0, devices = 0, contexts = 0,
           streams = 0, other = 0, buffers = 0;
};

class RecordTranslator {
 public:
  RecordTranslator();

  // Converts every record of the buffer into staging.
  void translate(uint8_t* buffer, std::size_t valid_bytes);
  // Appends everything staged (strings first) in one batch and clears staging; false on a write error.
  bool write(spill::SpillWriter& writer);
  void discard();

  // A string id for `text` (deduplicated by content); new strings are staged for the next write.
  uint32_t intern(std::string_view text);

  // Stages a device record that did not come from CUPTI (see driver_devices.hpp).
  void add_device(const spill::DeviceRecord& d) {
    devices_.push_back(d);
    ++stats_.devices;
  }

  const TranslateStats& stats() const { return stats_; }

 private:
  uint32_t kernel_name_id(const char* name);
  uint32_t api_name_id(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  void add_kernel(const CUpti_ActivityKernel10& k);
  void add_api(const CUpti_ActivityAPI& a, spill::ApiDomain domain);
  // Copies and fills share one record; each CUPTI kind fills its own fields after the common ones.
  template <typename Activity>
  spill::CopyRecord copy_record(const Activity& m, spill::CopyOp op);
  void add_copy(const spill::CopyRecord& r);
  void add_memcpy(const CUpti_ActivityMemcpy6& m);
  void add_peer_memcpy(const CUpti_ActivityMemcpyPtoP4& m);
  void add_memset(const CUpti_ActivityMemset4& m);
  void add_sync(const CUpti_ActivitySynchronization2& y);
  void add_event_record(const CUpti_ActivityCudaEvent2& e);
  void add_device(const CUpti_ActivityDevice5& d);
  void add_marker(const CUpti_ActivityMarker2& m);

  // NVTX ranges whose start was seen and whose end was not yet (the end may come in a later buffer).
  struct OpenRange {
    int64_t start = 0;
    uint32_t name_id = 0;
    uint32_t thread_id = 0;
  };
  std::unordered_map<uint32_t, OpenRange> open_ranges_;  // by CUPTI marker id

  std::unordered_map<const void*, uint32_t> name_by_pointer_;  // CUPTI's kernel name pointers are stable
  std::unordered_map<std::string, uint32_t> id_by_text_;
  std::vector<uint32_t> runtime_names_, driver_names_;         // by cbid; 0 = not looked up yet
  uint32_t next_string_id_ = 1;

  spill::StringChunkBuilder strings_;
  std::vector<spill::KernelRecord> kernels_;
  std::vector<spill::CopyRecord> copies_;
  std::vector<spill::ApiRecord> api_calls_;
  std::vector<spill::SyncRecord> syncs_;
  std::vector<spill::EventRecordRecord> event_records_;
  std::vector<spill::DeviceRecord> devices_;
  std::vector<spill::ContextRecord> contexts_;
  std::vector<spill::StreamRecord> streams_;
  TranslateStats stats_;
};

}  // namespace rpl::cuda
