#include "collectors/nvidia/trace_injection/cupti_translate.hpp"

#include <algorithm>
#include <cstring>

namespace rpl::cuda {
namespace {

// Typical records per 8 MiB buffer: enough that staging never grows in steady state.
constexpr std::size_t kStagingReserve = 1 << 15;

int64_t ts(uint64_t cupti_ns) { return static_cast<int64_t>(cupti_ns); }

}  // namespace

RecordTranslator::RecordTranslator()
    : runtime_names_(CUPTI_RUNTIME_TRACE_CBID_SIZE + 64, 0), driver_names_(CUPTI_DRIVER_TRACE_CBID_SIZE + 64, 0) {
  kernels_.reserve(kStagingReserve);
  api_calls_.reserve(2 * kStagingReserve);
  copies_.reserve(1024);
  syncs_.reserve(1024);
  event_records_.reserve(1024);
  name_by_pointer_.reserve(1024);
  id_by_text_.reserve(1024);
}

uint32_t RecordTranslator::intern(std::string_view text) {
  auto it = id_by_text_.find(std::string(text));
  if (it != id_by_text_.end()) return it->second;
  uint32_t id = next_string_id_++;
  id_by_text_.emplace(std::string(text), id);
  strings_.add(id, text);
  return id;
}

uint32_t RecordTranslator::kernel_name_id(const char* name) {
  if (!name) return 0;
  auto it = name_by_pointer_.find(name);
  if (it != name_by_pointer_.end()) return it->second;
  uint32_t id = intern(name);
  name_by_pointer_.emplace(name, id);
  return id;
}

uint32_t RecordTranslator::api_name_id(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  auto& table = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_names_ : driver_names_;
  if (cbid >= table.size()) table.resize(cbid + 1, 0);
  if (table[cbid] == 0) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name) name = "";
    std::string text = *name ? std::string(name)
                             : std::string(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "cudaUnknown_" : "cuUnknown_") +
                                   std::to_string(cbid);
    table[cbid] = intern(text);
  }
  return table[cbid];
}

void RecordTranslator::add_kernel(const CUpti_ActivityKernel10& k) {
  spill::KernelRecord r;
  r.start = ts(k.start);
  r.end = ts(k.end);
  r.graph_node_id = k.graphNodeId;
  r.correlation_id = k.correlationId;
  r.device_id = k.deviceId;
  r.context_id = k.contextId;
  r.stream_id = k.streamId;
  r.name_id = kernel_name_id(k.name);
  r.graph_id = k.graphId;
  r.grid[0] = k.gridX;
  r.grid[1] = k.gridY;
  r.grid[2] = k.gridZ;
  r.block[0] = k.blockX;
  r.block[1] = k.blockY;
  r.block[2] = k.blockZ;
  r.static_shared_bytes = k.staticSharedMemory;
  r.dynamic_shared_bytes = k.dynamicSharedMemory;
  r.local_bytes_per_thread = k.localMemoryPerThread;
  r.registers_per_thread = k.registersPerThread;
  r.launch_type = k.launchType;
  r.flags = k.isDeviceLaunched ? spill::kKernelDeviceLaunched : 0;
  r.cluster[0] = k.clusterX;
  r.cluster[1] = k.clusterY;
  r.cluster[2] = k.clusterZ;
  kernels_.push_back(r);
  ++stats_.kernels;
}

void RecordTranslator::add_api(const CUpti_ActivityAPI& a, spill::ApiDomain domain) {
  spill::ApiRecord r;
  r.start = ts(a.start);
  r.end = ts(a.end);
  r.correlation_id = a.correlationId;
  r.thread_id = a.threadId;
  r.cbid = a.cbid;
  r.return_value = a.returnValue;
  r.domain = static_cast<uint8_t>(domain);
  r.name_id = api_name_id(domain == spill::ApiDomain::Runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                          a.cbid);
  api_calls_.push_back(r);
  ++stats_.api_calls;
}

template <typename Activity>
spill::CopyRecord RecordTranslator::copy_record(const Activity& m, spill::CopyOp op) {
  spill::CopyRecord r;
  r.start = ts(m.start);
  r.end = ts(m.end);
  r.bytes = m.bytes;
  r.graph_node_id = m.graphNodeId;
  r.correlation_id = m.correlationId;
  r.device_id = m.deviceId;
  r.context_id = m.contextId;
  r.stream_id = m.streamId;
  r.graph_id = m.graphId;
  r.op = static_cast<uint8_t>(op);
  return r;
}

void RecordTranslator::add_copy(const spill::CopyRecord& r) {
  copies_.push_back(r);
  ++stats_.copies;
}

void RecordTranslator::add_memcpy(const CUpti_ActivityMemcpy6& m) {
  spill::CopyRecord r = copy_record(m, spill::CopyOp::Memcpy);
  r.runtime_correlation_id = m.runtimeCorrelationId;
  r.copy_kind = m.copyKind;
  r.src_kind = m.srcKind;
  r.dst_kind = m.dstKind;
  add_copy(r);
}

void RecordTranslator::add_peer_memcpy(const CUpti_ActivityMemcpyPtoP4& m) {
  spill::CopyRecord r = copy_record(m, spill::CopyOp::PeerMemcpy);
  r.src_device_id = m.srcDeviceId;
  r.dst_device_id = m.dstDeviceId;
  r.copy_kind = m.copyKind;
  r.src_kind = m.srcKind;
  r.dst_kind = m.dstKind;
  add_copy(r);
}

void RecordTranslator::add_memset(const CUpti_ActivityMemset4& m) {
  spill::CopyRecord r = copy_record(m, spill::CopyOp::Memset);
  r.memset_value = m.value;
  r.src_kind = r.dst_kind = static_cast<uint8_t>(m.memoryKind);
  add_copy(r);
}

void RecordTranslator::add_sync(const CUpti_ActivitySynchronization2& y) {
  spill::SyncRecord r;
  r.start = ts(y.start);
  r.end = ts(y.end);
  r.event_sync_id = y.cudaEventSyncId;
  r.correlation_id = y.correlationId;
  r.context_id = y.contextId;
  r.stream_id = y.streamId;
  r.event_id = y.cudaEventId;
  r.type = static_cast<uint32_t>(y.type);
  r.return_value = y.returnValue;
  syncs_.push_back(r);
  ++stats_.syncs;
}

void RecordTranslator::add_event_record(const CUpti_ActivityCudaEvent2& e) {
  spill::EventRecordRecord r;
  r.event_sync_id = e.cudaEventSyncId;
  r.device_timestamp = ts(e.deviceTimestamp);
  r.correlation_id = e.correlationId;
  r.context_id = e.contextId;
  r.stream_id = e.streamId;
  r.event_id = e.eventId;
  r.device_id = e.deviceId;
  event_records_.push_back(r);
  ++stats_.event_records;
}

void RecordTranslator::add_device(const CUpti_ActivityDevice5& d) {
  spill::DeviceRecord r;
  r.global_memory_bytes = d.globalMemorySize;
  r.global_memory_bandwidth_kbps = d.globalMemoryBandwidth;
  r.device_id = d.id;
  r.name_id = d.name ? intern(d.name) : 0;
  r.sm_count = d.numMultiprocessors;
  r.compute_major = d.computeCapabilityMajor;
  r.compute_minor = d.computeCapabilityMinor;
  r.warp_size = d.numThreadsPerWarp;
  r.max_warps_per_sm = d.maxWarpsPerMultiprocessor;
  r.max_blocks_per_sm = d.maxBlocksPerMultiprocessor;
  r.max_threads_per_block = d.maxThreadsPerBlock;
  r.shared_bytes_per_sm = d.maxSharedMemoryPerMultiprocessor;
  r.shared_bytes_per_block = d.maxSharedMemoryPerBlock;
  r.registers_per_sm = d.maxRegistersPerMultiprocessor;
  r.registers_per_block = d.maxRegistersPerBlock;
  r.core_clock_khz = d.coreClockRate;
  r.l2_bytes = d.l2CacheSize;
  r.memcpy_engines = d.numMemcpyEngines;
  static_assert(sizeof(d.uuid) == sizeof(r.uuid));
  std::memcpy(r.uuid, &d.uuid, sizeof r.uuid);
  devices_.push_back(r);
  ++stats_.devices;
}

void RecordTranslator::add_marker(const CUpti_ActivityMarker2& m) {
  // Only ranges: an instantaneous mark has no duration to measure a window by.
  if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    OpenRange r;
    r.start = ts(m.timestamp);
    r.name_id = intern(m.name ? std::string_view(m.name) : std::string_view("<unnamed range>"));
    if (m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) r.thread_id = m.objectId.pt.threadId;
    open_ranges_[m.id] = r;
    return;
  }
  if (!(m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END)) return;
  auto it = open_ranges_.find(m.id);
  if (it == open_ranges_.end()) return;  // its start was lost (dropped buffer)
  spill::ApiRecord r;
  r.start = it->second.start;
  r.end = std::max(ts(m.timestamp), r.start);
  r.thread_id = it->second.thread_id;
  r.name_id = it->second.name_id;
  r.domain = static_cast<uint8_t>(spill::ApiDomain::Marker);
  open_ranges_.erase(it);
  api_calls_.push_back(r);
  ++stats_.markers;
}

void RecordTranslator::translate(uint8_t* buffer, std::size_t valid_bytes) {
  ++stats_.buffers;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        add_kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY: add_memcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record)); break;
      case CUPTI_ACTIVITY_KIND_MEMCPY2:
        add_peer_memcpy(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET: add_memset(*reinterpret_cast<const CUpti_ActivityMemset4*>(record)); break;
      case CUPTI_ACTIVITY_KIND_RUNTIME:
        add_api(*reinterpret_cast<const CUpti_ActivityAPI*>(record), spill::ApiDomain::Runtime);
        break;
      case CUPTI_ACTIVITY_KIND_DRIVER:
        add_api(*reinterpret_cast<const CUpti_ActivityAPI*>(record), spill::ApiDomain::Driver);
        break;
      case CUPTI_ACTIVITY_KIND_MARKER:
        add_marker(*reinterpret_cast<const CUpti_ActivityMarker2*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        add_sync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
        add_event_record(*reinterpret_cast<const CUpti_ActivityCudaEvent2*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_DEVICE: add_device(*reinterpret_cast<const CUpti_ActivityDevice5*>(record)); break;
      case CUPTI_ACTIVITY_KIND_CONTEXT: {
        const auto& c = *reinterpret_cast<const CUpti_ActivityContext3*>(record);
        contexts_.push_back(spill::ContextRecord{c.contextId, c.deviceId, c.nullStreamId, 0});
        ++stats_.contexts;
        break;
      }
      case CUPTI_ACTIVITY_KIND_STREAM: {
        const auto& s = *reinterpret_cast<const CUpti_ActivityStream*>(record);
        streams_.push_back(spill::StreamRecord{s.contextId, s.streamId, s.priority, static_cast<uint32_t>(s.flag),
                                               s.correlationId, 0});
        ++stats_.streams;
        break;
      }
      default: ++stats_.other; break;
    }
  }
}

bool RecordTranslator::write(spill::SpillWriter& writer) {
  // Strings first: a reader that stops at a crash-truncated chunk still has every name already seen.
  const spill::ChunkView chunks[] = {
      strings_.chunk(),
      spill::records_chunk(devices_.data(), devices_.size()),
      spill::records_chunk(contexts_.data(), contexts_.size()),
      spill::records_chunk(streams_.data(), streams_.size()),
      spill::records_chunk(api_calls_.data(), api_calls_.size()),
      spill::records_chunk(syncs_.data(), syncs_.size()),
      spill::records_chunk(event_records_.data(), event_records_.size()),
      spill::records_chunk(copies_.data(), copies_.size()),
      spill::records_chunk(kernels_.data(), kernels_.size()),
  };
  bool ok = writer.append(chunks, std::size(chunks));
  discard();
  return ok;
}

void RecordTranslator::discard() {
  strings_.clear();
  kernels_.clear();
  copies_.clear();
  api_calls_.clear();
  syncs_.clear();
  event_records_.clear();
  devices_.clear();
  contexts_.clear();
  streams_.clear();
}

}  // namespace rpl::cuda
