// librpl_cupti_counters.so: the in-process counter pass on NVIDIA. The CUDA driver loads it through
// CUDA_INJECTION64_PATH (nothing is recompiled, relinked or preloaded); it profiles kernel launches with
// CUPTI's range profiler (auto range: one range per kernel; kernel replay: CUPTI replays each kernel once per
// counter pass, inside the launch, saving and restoring device memory) and writes the values as an ncu
// `--csv --page raw --print-units base` table, so that the counter pass reads it with the same parser and
// pairs it with the trace by the same rules as ncu's (collectors/nvidia/ncu_csv.hpp).
//
// Why: ncu is a separate process that attaches to the application and replays each kernel through its own
// IPC. Measured on an H100 with the roofline + classifier metrics, this library costs 124-194 ms per kernel
// instance where ncu costs 247-334 ms (bench/RESULTS.md). Unlike ncu (--cache-control all) CUPTI's replay
// does not flush the caches between passes: DRAM bytes of a kernel whose data stays in L2 are warm-cache
// values, lower than ncu's.
//
// Environment (set by `rocm-perf profile --roofline`; collectors/counter_pass.cpp):
//   RPL_COUNTERS_METRICS  comma-separated metric names (ncu's names: the same metrics library)
//   RPL_COUNTERS_OUT      folder; this process writes counters-<pid>.csv there at exit
//   RPL_COUNTERS_KERNEL   optional RE2 regex on the demangled kernel name (else the mangled one)
//   RPL_COUNTERS_PER_KERNEL  profile at most this many launches of each kernel (0 or unset: all)
//   RPL_COUNTERS_BATCH    kernel ranges per counter-data image before it is decoded (default 1: measured no
//                         cheaper with 64, and a kernel's tensor screen is known before its next launch)
//   RPL_COUNTERS_VERBOSE  "1": say what is done on stderr
//
// A metric this GPU's CUPTI cannot collect (ncu-only derived metrics such as launch statistics) gets the
// value "n/a" in every row and a "==RPL== unsupported metric" line before the table. Kernels launched into
// CUDA graphs or during stream capture are not profiled (ranges are per launch call), and said so. Ranges are
// matched to launches in the order the launch callbacks ran: threads launching into one context at the same
// time could interleave differently (the pairing's grid/block check then warns).
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cxxabi.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectors/nvidia/cuda_driver/driver_launch.hpp"
#include "collectors/nvidia/counter_csv.hpp"
#include "collectors/nvidia/cupti_launch_callbacks.hpp"
#include "support/user_regex.hpp"

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

std::string cupti_error(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

// One profiled launch awaiting its range; its context's properties (device, context id) are the ContextState's.
struct Launch {
  std::string mangled;
  std::array<unsigned, 3> grid{}, block{};
  uint64_t stream_id = 0;
  void* function = nullptr;
};

// One metric configuration on one chip: the host object evaluates the counter data of every context on it.
struct Config {
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> config_image;
  std::vector<std::string> names;  // metrics in the configuration
  std::vector<const char*> names_c;
  size_t passes = 0;
  std::vector<int> request_column;  // per requested metric (State::metrics): its index in `names`, or -1
  int screen = -1;                  // the tensor screen's index in `names`, or -1
  int index_of(const std::string& m) const {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == m) return static_cast<int>(i);
    return -1;
  }
};

// Tensor-core FLOPs (sm__ops_path_tensor_*) take 6 of the ~12 replay passes on an H100, yet most kernels
// issue no tensor instruction at all. So each kernel's first launch is measured with every metric ("full");
// a kernel whose tensor pipe did nothing is measured afterwards without the tensor metrics but with one
// screen metric ("light"), and its tensor FLOPs are written as exactly 0 while the screen reads 0 (no tensor
// instruction executed means no tensor FLOP). A light launch whose screen is not 0 gets "n/a" tensor values
// and sends that kernel back to the full configuration.
constexpr const char* kTensorScreen = "sm__inst_executed_pipe_tensor.sum";
bool is_tensor_metric(const std::string& m) { return m.rfind("sm__ops_path_tensor_", 0) == 0; }

struct ChipConfig {
  Config full;
  Config light;  // no host object when no tensor metric was asked for (or the set was refused)
  bool has_light() const { return light.host != nullptr; }
};

struct ContextState {
  CUpti_RangeProfiler_Object* profiler = nullptr;
  ChipConfig* chip = nullptr;
  Config* active = nullptr;  // the configuration counter_data was set up for
  std::vector<uint8_t> counter_data;
  std::vector<Launch> pending;  // launches whose ranges are in counter_data, in order
  bool started = false;
  bool image_ready = false;  // counter_data initialised for `active` and not yet decoded
  bool broken = false;
  int device = 0;
  std::string cc;
  uint32_t context_id = 0;
};

struct State {
  std::mutex mutex;
  std::vector<std::string> metrics;
  std::unique_ptr<rpl::UserRegex> kernel;
  std::string out_dir;
  size_t batch = 1;
  bool verbose = false;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::map<std::string, ChipConfig> chips;
  std::map<CUcontext, ContextState> contexts;
  std::map<void*, std::pair<std::string, bool>> functions;  // handle -> mangled name, matches
  std::map<void*, bool> uses_tensor;                          // measured once in full: does it use tensor cores?
  size_t light_rows = 0;
  std::vector<std::string> rows;    // CSV rows (counter_csv_row), in launch order per context
  std::vector<std::string> notes;   // ==RPL== lines
  std::map<std::string, bool> unsupported;  // metric -> noted
  size_t dropped = 0;
  size_t skipped_capture = 0;
  size_t per_kernel = 0;                   // RPL_COUNTERS_PER_KERNEL; 0: no limit
  std::map<void*, size_t> profiled_launches;
  size_t skipped_limit = 0;
  bool written = false;
  bool profiler_initialized = false;
};
State* g = nullptr;

void note(const std::string& text) {
  g->notes.push_back("==RPL== " + text);
  if (g->verbose) std::fprintf(stderr, "rpl-counters: %s\n", text.c_str());
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : mangled;
  std::free(d);
  return out;
}

bool host_init(const std::string& chip, const std::vector<uint8_t>& availability, CUpti_Profiler_Host_Object** out) {
  CUpti_Profiler_Host_Initialize_Params p{};
  p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  if (cuptiProfilerHostInitialize(&p) != CUPTI_SUCCESS) return false;
  *out = p.pHostObject;
  return true;
}

void host_deinit(CUpti_Profiler_Host_Object* h) {
  CUpti_Profiler_Host_Deinitialize_Params p{};
  p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
  p.pHostObject = h;
  cuptiProfilerHostDeinitialize(&p);
}

bool add_metrics(CUpti_Profiler_Host_Object* h, std::vector<const char*>& names) {
  CUpti_Profiler_Host_ConfigAddMetrics_Params p{};
  p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
  p.pHostObject = h;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  return cuptiProfilerHostConfigAddMetrics(&p) == CUPTI_SUCCESS;
}

bool build_config(const std::string& chip, const std::vector<uint8_t>& availability, std::vector<std::string> names,
                  Config& c) {
  c.names = std::move(names);
  if (c.names.empty() || !host_init(chip, availability, &c.host)) return false;
  for (const auto& m : c.names) c.names_c.push_back(m.c_str());
  if (!add_metrics(c.host, c.names_c)) {
    note("the metric configuration was rejected for chip " + chip);
    host_deinit(c.host);
    c.host = nullptr;
    return false;
  }
  CUpti_Profiler_Host_GetConfigImageSize_Params sz{};
  sz.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
  sz.pHostObject = c.host;
  cuptiProfilerHostGetConfigImageSize(&sz);
  c.config_image.resize(sz.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params ci{};
  ci.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
  ci.pHostObject = c.host;
  ci.configImageSize = c.config_image.size();
  ci.pConfigImage = c.config_image.data();
  cuptiProfilerHostGetConfigImage(&ci);
  CUpti_Profiler_Host_GetNumOfPasses_Params np{};
  np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
  np.configImageSize = c.config_image.size();
  np.pConfigImage = c.config_image.data();
  cuptiProfilerHostGetNumOfPasses(&np);
  c.passes = np.numOfPasses;
  for (const auto& m : g->metrics) c.request_column.push_back(c.index_of(m));
  c.screen = c.index_of(kTensorScreen);
  return true;
}

// Builds the chip's configurations from every requested metric that CUPTI accepts on its own (ncu-only
// metrics are rejected one by one rather than failing the whole set).
ChipConfig* chip_config(const std::string& chip, const std::vector<uint8_t>& availability) {
  auto it = g->chips.find(chip);
  if (it != g->chips.end()) return it->second.full.host ? &it->second : nullptr;
  ChipConfig& c = g->chips[chip];
  std::vector<std::string> supported;
  bool tensor = false;
  std::vector<std::string> wanted = g->metrics;
  for (const auto& m : g->metrics) tensor = tensor || is_tensor_metric(m);
  if (tensor) wanted.push_back(kTensorScreen);
  for (const auto& m : wanted) {
    CUpti_Profiler_Host_Object* probe = nullptr;
    if (!host_init(chip, availability, &probe)) {
      note("cuptiProfilerHostInitialize failed for chip " + chip);
      return nullptr;
    }
    std::vector<const char*> one{m.c_str()};
    if (add_metrics(probe, one)) supported.push_back(m);
    else if (!g->unsupported[m]) {
      g->unsupported[m] = true;
      note("unsupported metric " + m + " (CUPTI range profiler on " + chip + ")");
    }
    host_deinit(probe);
  }
  if (!build_config(chip, availability, supported, c.full)) return nullptr;
  note("chip " + chip + ": " + std::to_string(c.full.names.size()) + " metric(s) in " + std::to_string(c.full.passes) +
       " replay pass(es)");
  if (tensor && c.full.index_of(kTensorScreen) >= 0) {
    std::vector<std::string> light;
    for (const auto& m : supported)
      if (!is_tensor_metric(m)) light.push_back(m);
    if (build_config(chip, availability, light, c.light))
      note("chip " + chip + ": " + std::to_string(c.light.passes) + " replay pass(es) for kernels without tensor-core work");
  }
  return &c;
}

bool init_counter_data(ContextState& s) {
  std::vector<const char*>& names = s.active->names_c;
  CUpti_RangeProfiler_GetCounterDataSize_Params sz{};
  sz.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
  sz.pRangeProfilerObject = s.profiler;
  sz.pMetricNames = names.data();
  sz.numMetrics = names.size();
  sz.maxNumOfRanges = g->batch;
  sz.maxNumRangeTreeNodes = static_cast<uint32_t>(g->batch);
  if (CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&sz); r != CUPTI_SUCCESS) {
    note("cuptiRangeProfilerGetCounterDataSize: " + cupti_error(r));
    return false;
  }
  s.counter_data.assign(sz.counterDataSize, 0);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params in{};
  in.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
  in.pRangeProfilerObject = s.profiler;
  in.counterDataSize = s.counter_data.size();
  in.pCounterData = s.counter_data.data();
  if (CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&in); r != CUPTI_SUCCESS) {
    note("cuptiRangeProfilerCounterDataImageInitialize: " + cupti_error(r));
    return false;
  }
  CUpti_RangeProfiler_SetConfig_Params sc{};
  sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
  sc.pRangeProfilerObject = s.profiler;
  sc.configSize = s.active->config_image.size();
  sc.pConfig = s.active->config_image.data();
  sc.counterDataImageSize = s.counter_data.size();
  sc.pCounterDataImage = s.counter_data.data();
  sc.range = CUPTI_AutoRange;
  sc.replayMode = CUPTI_KernelReplay;
  sc.maxRangesPerPass = g->batch;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  if (CUptiResult r = cuptiRangeProfilerSetConfig(&sc); r != CUPTI_SUCCESS) {
    note("cuptiRangeProfilerSetConfig: " + cupti_error(r));
    return false;
  }
  return true;
}

ContextState* context_state(CUcontext ctx) {
  auto it = g->contexts.find(ctx);
  if (it != g->contexts.end()) return it->second.broken ? nullptr : &it->second;
  ContextState& s = g->contexts[ctx];
  s.broken = true;  // until set up
  // The profiler can be initialised only once the driver is (not inside cuInit, where InitializeInjection runs).
  if (!g->profiler_initialized) {
    CUpti_Profiler_Initialize_Params pi{};
    pi.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    if (CUptiResult r = cuptiProfilerInitialize(&pi); r != CUPTI_SUCCESS) {
      note("cuptiProfilerInitialize: " + cupti_error(r));
      return nullptr;
    }
    g->profiler_initialized = true;
  }
  cuptiGetContextId(ctx, &s.context_id);
  CUdevice dev = 0;
  if (cuCtxGetDevice(&dev) != CUDA_SUCCESS) return nullptr;
  s.device = static_cast<int>(dev);
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  s.cc = std::to_string(major) + "." + std::to_string(minor);
  CUpti_Device_GetChipName_Params cn{};
  cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  cn.deviceIndex = static_cast<size_t>(dev);
  if (CUptiResult r = cuptiDeviceGetChipName(&cn); r != CUPTI_SUCCESS) {
    note("cuptiDeviceGetChipName: " + cupti_error(r));
    return nullptr;
  }
  std::vector<uint8_t> availability;
  CUpti_Profiler_GetCounterAvailability_Params av{};
  av.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
  av.ctx = ctx;
  if (cuptiProfilerGetCounterAvailability(&av) == CUPTI_SUCCESS && av.counterAvailabilityImageSize) {
    availability.resize(av.counterAvailabilityImageSize);
    av.pCounterAvailabilityImage = availability.data();
    if (CUptiResult r = cuptiProfilerGetCounterAvailability(&av); r != CUPTI_SUCCESS) {
      note("cuptiProfilerGetCounterAvailability: " + cupti_error(r) +
           (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? " (counters are restricted to admin users on this machine)" : ""));
      return nullptr;
    }
  }
  s.chip = chip_config(cn.pChipName, availability);
  if (!s.chip) return nullptr;
  s.active = &s.chip->full;
  CUpti_RangeProfiler_Enable_Params en{};
  en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
  en.ctx = ctx;
  if (CUptiResult r = cuptiRangeProfilerEnable(&en); r != CUPTI_SUCCESS) {
    note("cuptiRangeProfilerEnable: " + cupti_error(r));
    return nullptr;
  }
  s.profiler = en.pRangeProfilerObject;
  s.broken = false;
  return &s;
}

// Stops profiling, decodes the image and turns each range into a CSV row (ranges are in launch order).
void flush(ContextState& s) {
  if (s.started) {
    CUpti_RangeProfiler_Stop_Params st{};
    st.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    st.pRangeProfilerObject = s.profiler;
    if (CUptiResult r = cuptiRangeProfilerStop(&st); r != CUPTI_SUCCESS) note("cuptiRangeProfilerStop: " + cupti_error(r));
    s.started = false;
  }
  if (s.pending.empty()) return;
  CUpti_RangeProfiler_DecodeData_Params dd{};
  dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
  dd.pRangeProfilerObject = s.profiler;
  if (CUptiResult r = cuptiRangeProfilerDecodeData(&dd); r != CUPTI_SUCCESS) {
    note("cuptiRangeProfilerDecodeData: " + cupti_error(r));
    g->dropped += s.pending.size();
    s.pending.clear();
    s.image_ready = false;
    return;
  }
  g->dropped += dd.numOfRangeDropped;
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{};
  info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
  info.pCounterDataImage = s.counter_data.data();
  info.counterDataImageSize = s.counter_data.size();
  cuptiRangeProfilerGetCounterDataInfo(&info);
  if (info.numTotalRanges != s.pending.size())
    note(std::to_string(s.pending.size()) + " launch(es) profiled but " + std::to_string(info.numTotalRanges) +
         " range(s) decoded; only the first min() are paired in launch order");
  const size_t n = std::min<size_t>(info.numTotalRanges, s.pending.size());
  const Config& c = *s.active;
  const bool light = &c == &s.chip->light;
  const int screen = c.screen;
  std::vector<double> values(c.names.size());
  static char host[256] = {0};
  if (!host[0]) gethostname(host, sizeof host - 1);
  for (size_t i = 0; i < n; ++i) {
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{};
    ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
    ev.pHostObject = c.host;
    ev.pCounterDataImage = s.counter_data.data();
    ev.counterDataImageSize = s.counter_data.size();
    ev.rangeIndex = i;
    ev.ppMetricNames = const_cast<const char**>(c.names_c.data());
    ev.numMetrics = c.names_c.size();
    ev.pMetricValues = values.data();
    const bool ok = cuptiProfilerHostEvaluateToGpuValues(&ev) == CUPTI_SUCCESS;
    const Launch& l = s.pending[i];
    const bool tensor_seen = ok && screen >= 0 && values[screen] > 0;
    if (ok && screen >= 0) g->uses_tensor[l.function] = tensor_seen;
    if (light) ++g->light_rows;
    rpl::collectors::CounterCsvRow row;
    row.kernel = l.mangled;
    row.process_id = getpid();
    row.process_name = program_invocation_short_name;
    row.host_name = host;
    row.context_id = s.context_id;
    row.stream_id = l.stream_id;
    row.grid = l.grid;
    row.block = l.block;
    row.device = s.device;
    row.compute_capability = s.cc;
    for (size_t j = 0; j < g->metrics.size(); ++j) {
      const std::string& m = g->metrics[j];
      const int k = c.request_column[j];
      if (k >= 0 && ok) row.values.emplace_back(values[k]);
      else if (light && ok && is_tensor_metric(m) && !tensor_seen) row.values.emplace_back(0.0);
      else row.values.emplace_back(std::nullopt);
    }
    g->rows.push_back(rpl::collectors::counter_csv_row(g->rows.size(), row));
  }
  s.pending.clear();
  s.image_ready = false;  // initialised again before the next Start, for whichever configuration it needs
}

void write_csv() {
  if (g->written) return;
  g->written = true;
  for (auto& [ctx, s] : g->contexts)
    if (!s.broken) flush(s);
  if (g->skipped_capture)
    note(std::to_string(g->skipped_capture) + " launch(es) during stream capture were not profiled");
  if (g->skipped_limit)
    note(std::to_string(g->skipped_limit) + " launch(es) not profiled: past the first " + std::to_string(g->per_kernel) +
         " launch(es) of their kernel (RPL_COUNTERS_PER_KERNEL)");
  if (g->dropped) note(std::to_string(g->dropped) + " range(s) dropped by CUPTI");
  if (g->light_rows)
    note(std::to_string(g->light_rows) + " launch(es) of kernels without tensor-core work measured without the tensor "
         "metrics (" + kTensorScreen + " = 0: tensor FLOPs written as 0)");
  const std::string path = g->out_dir + "/counters-" + std::to_string(getpid()) + ".csv";
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "rpl-counters: cannot write %s: %s\n", tmp.c_str(), std::strerror(errno));
    return;
  }
  for (const auto& n : g->notes) std::fprintf(f, "%s\n", n.c_str());
  std::fputs(rpl::collectors::counter_csv_header(g->metrics).c_str(), f);
  for (const auto& r : g->rows) std::fputs(r.c_str(), f);
  const bool ok = std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  std::fclose(f);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0)
    std::fprintf(stderr, "rpl-counters: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
  else if (g->verbose)
    std::fprintf(stderr, "rpl-counters: %zu kernel instance(s) written to %s\n", g->rows.size(), path.c_str());
}

const std::pair<std::string, bool>& identify(void* handle) {
  auto it = g->functions.find(handle);
  if (it != g->functions.end()) return it->second;
  CUfunction fn = nullptr;
  if (cuKernelGetFunction(&fn, static_cast<CUkernel>(handle)) != CUDA_SUCCESS || !fn) fn = static_cast<CUfunction>(handle);
  const char* name = nullptr;
  std::string mangled = cuFuncGetName(&name, fn) == CUDA_SUCCESS && name ? name : "";
  const bool matches = !g->kernel || g->kernel->search(demangle(mangled)) ||
                       g->kernel->search(mangled);
  return g->functions.emplace(handle, std::make_pair(mangled, matches)).first->second;
}

void on_launch(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  rpl::collectors::DriverLaunch d;
  if (!rpl::collectors::decode_driver_launch(cbid, cb, d)) return;
  Launch l;
  void* handle = d.handle;
  CUstream stream = d.stream;
  l.grid = d.grid;
  l.block = d.block;
  std::lock_guard<std::mutex> lock(g->mutex);
  if (g->written) return;
  ContextState* s = context_state(cb->context);
  if (!s) return;
  if (cb->callbackSite == CUPTI_API_EXIT) {
    if (s->pending.size() >= g->batch) flush(*s);
    return;
  }
  const auto& [mangled, matches] = identify(handle);
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  const bool in_capture =
      cuStreamIsCapturing(stream, &capturing) == CUDA_SUCCESS && capturing != CU_STREAM_CAPTURE_STATUS_NONE;
  const bool over_limit = matches && !in_capture && g->per_kernel && g->profiled_launches[handle] >= g->per_kernel;
  if (!matches || in_capture || over_limit) {
    if (in_capture && matches) ++g->skipped_capture;
    if (over_limit) ++g->skipped_limit;
    // A kernel we do not profile: profiling must be off while it runs (and the ranges so far are decoded,
    // so that an image never holds ranges from two Start/Stop spans).
    if (s->started) flush(*s);
    return;
  }
  Config* wanted = &s->chip->full;
  if (s->chip->has_light()) {
    auto known = g->uses_tensor.find(handle);
    if (known != g->uses_tensor.end() && !known->second) wanted = &s->chip->light;
  }
  if (s->pending.size() >= g->batch || (wanted != s->active && (s->started || !s->pending.empty()))) flush(*s);
  if (s->broken) return;
  if (wanted != s->active || !s->image_ready) {
    s->active = wanted;
    if (!init_counter_data(*s)) {
      s->broken = true;
      return;
    }
    s->image_ready = true;
  }
  if (!s->started) {
    CUpti_RangeProfiler_Start_Params st{};
    st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    st.pRangeProfilerObject = s->profiler;
    if (CUptiResult r = cuptiRangeProfilerStart(&st); r != CUPTI_SUCCESS) {
      note("cuptiRangeProfilerStart: " + cupti_error(r));
      s->broken = true;
      return;
    }
    s->started = true;
  }
  l.mangled = mangled;
  l.function = handle;
  ++g->profiled_launches[handle];
  uint32_t sid = 0;
  if (cuptiGetStreamIdEx(cb->context, stream, 0, &sid) == CUPTI_SUCCESS) l.stream_id = sid;
  s->pending.push_back(std::move(l));
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    on_launch(cbid, static_cast<const CUpti_CallbackData*>(data));
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    auto* r = static_cast<const CUpti_ResourceData*>(data);
    std::lock_guard<std::mutex> lock(g->mutex);
    auto it = g->contexts.find(r->context);
    if (it == g->contexts.end()) return;
    if (!it->second.broken) flush(it->second);
    if (it->second.profiler) {
      CUpti_RangeProfiler_Disable_Params d{};
      d.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
      d.pRangeProfilerObject = it->second.profiler;
      cuptiRangeProfilerDisable(&d);
    }
    it->second.broken = true;
    it->second.profiler = nullptr;
  }
}

void at_exit() {
  std::lock_guard<std::mutex> lock(g->mutex);
  write_csv();
}

}  // namespace

// Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names this library.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  if (g) return 1;
  auto* s = new State;
  const char* metrics = env("RPL_COUNTERS_METRICS");
  const char* out = env("RPL_COUNTERS_OUT");
  if (!metrics || !out) {
    std::fprintf(stderr, "rpl-counters: RPL_COUNTERS_METRICS and RPL_COUNTERS_OUT must be set; counters disabled\n");
    return 1;
  }
  for (const char* p = metrics; *p;) {
    const char* e = std::strchr(p, ',');
    std::string m = e ? std::string(p, e) : std::string(p);
    if (!m.empty()) s->metrics.push_back(m);
    if (!e) break;
    p = e + 1;
  }
  s->out_dir = out;
  if (const char* k = env("RPL_COUNTERS_KERNEL")) {
    try {
      s->kernel = std::make_unique<rpl::UserRegex>(k, "RPL_COUNTERS_KERNEL");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rpl-counters: RPL_COUNTERS_KERNEL=%s: %s; counters disabled\n", k, e.what());
      return 1;
    }
  }
  if (const char* k = env("RPL_COUNTERS_PER_KERNEL")) s->per_kernel = std::strtoul(k, nullptr, 10);
  if (const char* b = env("RPL_COUNTERS_BATCH")) s->batch = std::max(1ul, std::strtoul(b, nullptr, 10));
  s->verbose = env("RPL_COUNTERS_VERBOSE") && std::string(env("RPL_COUNTERS_VERBOSE")) == "1";
  if (cuptiSubscribe(&s->subscriber, on_callback, nullptr) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "rpl-counters: cuptiSubscribe failed (another CUPTI tool attached?); counters disabled\n");
    return 1;
  }
  g = s;
  cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  for (CUpti_CallbackId id : rpl::collectors::cupti::kKernelLaunchCallbacks)
    cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  std::atexit(at_exit);
  return 1;
}
