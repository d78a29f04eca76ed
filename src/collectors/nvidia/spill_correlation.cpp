#include "collectors/nvidia/spill_correlation.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace rpl::collectors {

SpillCorrelationIndex::SpillCorrelationIndex(const spill::SpillContents& s) : s_(s) {
  index_api_calls();
  choose_event_identity();
}

uint32_t SpillCorrelationIndex::thread_of(uint32_t corr) const {
  auto it = api_by_corr_.find(corr);
  return it != api_by_corr_.end() ? s_.api_calls[it->second].thread_id : static_cast<uint32_t>(s_.header.pid);
}

uint32_t SpillCorrelationIndex::copy_correlation(const spill::CopyRecord& c) const {
  if (c.runtime_correlation_id != 0 && api_by_corr_.count(c.runtime_correlation_id)) return c.runtime_correlation_id;
  return c.correlation_id;
}

std::vector<rocpd::ArgRow> SpillCorrelationIndex::sync_args(uint32_t corr) const {
  std::vector<rocpd::ArgRow> args;
  if (auto e = event_by_corr_.find(corr); e != event_by_corr_.end()) {
    const auto& r = s_.event_records[e->second];
    args.push_back(stream_arg(r.stream_id));
    args.push_back(event_arg(r.event_id, r.event_sync_id));
    return args;
  }
  auto y = sync_by_corr_.find(corr);
  if (y == sync_by_corr_.end()) return args;
  const auto& r = s_.syncs[y->second];
  switch (static_cast<spill::SyncType>(r.type)) {
    case spill::SyncType::StreamWaitEvent:
      args.push_back(stream_arg(r.stream_id));
      args.push_back(event_arg(r.event_id, r.event_sync_id));
      break;
    case spill::SyncType::StreamSynchronize: args.push_back(stream_arg(r.stream_id)); break;
    case spill::SyncType::EventSynchronize: args.push_back(event_arg(r.event_id, r.event_sync_id)); break;
    default: break;
  }
  return args;
}

void SpillCorrelationIndex::index_api_calls() {
  api_by_corr_.reserve(s_.api_calls.size());
  for (uint32_t i = 0; i < s_.api_calls.size(); ++i) {
    const auto& a = s_.api_calls[i];
    if (a.domain == uint8_t(spill::ApiDomain::Marker)) continue;  // NVTX ranges correlate with no work
    auto [it, inserted] = api_by_corr_.emplace(a.correlation_id, i);
    // The runtime call is the outer one when a driver call shares its correlation id.
    if (!inserted && a.domain == uint8_t(spill::ApiDomain::Runtime) &&
        s_.api_calls[it->second].domain != uint8_t(spill::ApiDomain::Runtime))
      it->second = i;
  }
  sync_by_corr_.reserve(s_.syncs.size());
  for (uint32_t i = 0; i < s_.syncs.size(); ++i) sync_by_corr_.emplace(s_.syncs[i].correlation_id, i);
  event_by_corr_.reserve(s_.event_records.size());
  for (uint32_t i = 0; i < s_.event_records.size(); ++i) event_by_corr_.emplace(s_.event_records[i].correlation_id, i);
}

// Events are matched record -> wait by CUPTI's cudaEventSyncId, unique per cudaEventRecord, so a reused
// event handle cannot pair a wait with an older record. Where CUPTI gave no sync ids, its event ids
// (unique per event object) are the fallback; the reader then pairs a wait with the latest record.
void SpillCorrelationIndex::choose_event_identity() {
  use_sync_ids_ = std::all_of(s_.event_records.begin(), s_.event_records.end(),
                              [](const auto& e) { return e.event_sync_id != spill::kInvalidId64; });
}

rocpd::ArgRow SpillCorrelationIndex::stream_arg(uint32_t stream_id) const {
  return rocpd::ArgRow{"cudaStream_t", "stream", fmt::format("{}", stream_id),
                       fmt::format(R"({{"stream_id": {}}})", stream_id)};
}

rocpd::ArgRow SpillCorrelationIndex::event_arg(uint32_t event_id, uint64_t sync_id) const {
  uint64_t identity = use_sync_ids_ ? sync_id : uint64_t{event_id};
  return rocpd::ArgRow{"cudaEvent_t", "event", fmt::format("0x{:x}", identity),
                       fmt::format(R"({{"cuda_event_id": {}, "cuda_event_sync_id": {}, "identity": "{}"}})",
                                   event_id == spill::kInvalidId32 ? -1 : int64_t{event_id},
                                   sync_id == spill::kInvalidId64 ? -1 : int64_t(sync_id),
                                   use_sync_ids_ ? "sync_id" : "event_id")};
}

}  // namespace rpl::collectors
