#pragma once
// What a spill's records share through CUPTI correlation ids, for the spill converter (spill_to_rocpd): the
// API call (and its thread) behind a kernel, copy or synchronisation, and the stream/event arguments a
// synchronisation call carries in rocpd.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "collectors/nvidia/spill_file.hpp"
#include "store/rocpd_writer.hpp"

namespace rpl::collectors {

class SpillCorrelationIndex {
 public:
  explicit SpillCorrelationIndex(const spill::SpillContents& s);

  // The thread of the call with this correlation id; the main thread when it was not traced.
  uint32_t thread_of(uint32_t corr) const;
  // The correlation id under which a copy's API call was recorded: the runtime's if that call was traced.
  uint32_t copy_correlation(const spill::CopyRecord& c) const;
  bool has_api_call(uint32_t corr) const { return api_by_corr_.count(corr) > 0; }
  // Whether api_calls[i] is the outer call of its correlation id (the runtime call around a driver call).
  bool is_outer_call(uint32_t corr, uint32_t i) const { return api_by_corr_.at(corr) == i; }
  // Args of the synchronisation call with this correlation id (empty for other calls).
  std::vector<rocpd::ArgRow> sync_args(uint32_t corr) const;

 private:
  void index_api_calls();
  void choose_event_identity();
  rocpd::ArgRow stream_arg(uint32_t stream_id) const;
  rocpd::ArgRow event_arg(uint32_t event_id, uint64_t sync_id) const;

  const spill::SpillContents& s_;
  bool use_sync_ids_ = true;
  std::unordered_map<uint32_t, uint32_t> api_by_corr_, sync_by_corr_, event_by_corr_;
};

}  // namespace rpl::collectors
