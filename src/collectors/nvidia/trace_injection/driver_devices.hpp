#pragma once
// Device properties straight from the CUDA driver, for when CUPTI delivers no DEVICE records. The driver
// is already loaded (it loaded us); its entry points are looked up with dlsym, so the collector does not
// link libcuda. Called on CUPTI's buffer-completion thread or at exit, never on an application thread.
#include <vector>

#include "collectors/nvidia/trace_injection/cupti_translate.hpp"

namespace rpl::cuda {

// One record per visible device; names are interned in `translator`. Empty when the driver is not loaded.
std::vector<spill::DeviceRecord> query_devices_from_driver(RecordTranslator& translator);

}  // namespace rpl::cuda
