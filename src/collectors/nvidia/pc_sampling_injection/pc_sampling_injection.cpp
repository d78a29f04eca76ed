// The NVIDIA PC-sampling pass (librpl_pc_sampling.so), loaded by the CUDA driver through
// CUDA_INJECTION64_PATH when `rocm-perf profile --pc-sampling` runs the application once more. CUPTI's PC
// Sampling API in continuous mode (kernels are not serialised): every context gets PC sampling enabled and
// configured when it is created; samples are drained with cuptiPCSamplingGetData at kernel launches (at
// most every 50 ms), module unloads and context teardown, then the rest comes from the configured buffer
// after cuptiPCSamplingDisable, as CUPTI's documentation describes. Each loaded cubin is kept (and written
// as cubin_<crc>.cubin) so that rocm-perf can disassemble it; source lines come from
// cuptiGetSassToSourceCorrelation where the cubin has line information (-lineinfo or -G).
//
// Environment: RPL_PC_SAMPLING_DIR (required) where pc_samples_<pid>.csv and the cubins go;
// RPL_PC_SAMPLING_PERIOD (5..31, default 8: one sample per 2^(5+N) cycles per SM); RPL_PC_SAMPLING_VERBOSE=1.
// Output format: collectors/nvidia/pc_sampling_files.hpp.
#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "collectors/nvidia/cupti_launch_callbacks.hpp"

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

constexpr size_t kPcsPerBuffer = 20000;
constexpr std::string_view kStallPrefix = "smsp__pcsamp_warps_issue_stalled_";

// A CUpti_PCSamplingData with room for kPcsPerBuffer PCs of `reasons` stall reasons each.
struct SampleBuffer {
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<CUpti_PCSamplingStallReason> reasons;
  SampleBuffer(size_t reason_count) : pcs(kPcsPerBuffer), reasons(kPcsPerBuffer * reason_count) {
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = kPcsPerBuffer;
    data.pPcData = pcs.data();
    for (size_t i = 0; i < kPcsPerBuffer; ++i) {
      pcs[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs[i].stallReason = reasons.data() + i * reason_count;
    }
  }
};

struct Context {
  std::vector<uint32_t> reason_index;  // the stall reasons configured (not the "_not_issued" duplicates)
  std::unique_ptr<SampleBuffer> config_buffer, drain_buffer;
  bool enabled = false;
};

struct State {
  std::mutex mutex;
  CUpti_SubscriberHandle subscriber{};
  std::string out_dir;
  uint32_t period = 8;
  bool verbose = false;
  std::map<CUcontext, Context> contexts;
  std::map<uint32_t, std::string> reason_names;  // CUPTI index -> short name ("long_scoreboard")
  std::map<std::tuple<uint64_t, std::string, uint64_t, uint32_t>, uint64_t> counts;  // crc, fn, pc, reason
  std::map<uint64_t, std::vector<char>> cubins;                                      // crc -> cubin
  std::chrono::steady_clock::time_point last_drain = std::chrono::steady_clock::now();
  uint64_t dropped = 0;
  bool written = false;
};
State* g = nullptr;

void warn(const char* what, CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "rpl-pcsampling: %s failed: %s\n", what, text ? text : "?");
}

void accumulate(const CUpti_PCSamplingData& d) {
  for (size_t i = 0; i < d.totalNumPcs && i < d.collectNumPcs; ++i) {
    const CUpti_PCSamplingPCData& pc = d.pPcData[i];
    const std::string fn = pc.functionName ? pc.functionName : "";
    const uint64_t crc = pc.cubinCrc, offset = pc.pcOffset;  // copies: the structures are packed
    for (size_t j = 0; j < pc.stallReasonCount; ++j) {
      const uint32_t reason = pc.stallReason[j].pcSamplingStallReasonIndex, samples = pc.stallReason[j].samples;
      if (samples) g->counts[{crc, fn, offset, reason}] += samples;
    }
  }
  g->dropped += d.droppedSamples;
}

// Everything CUPTI holds for the context so far (called with g->mutex held).
void drain(CUcontext ctx, Context& c) {
  if (!c.enabled) return;
  for (int guard = 0; guard < 10000; ++guard) {
    CUpti_PCSamplingGetDataParams p{};
    p.size = CUpti_PCSamplingGetDataParamsSize;
    p.ctx = ctx;
    p.pcSamplingData = &c.drain_buffer->data;
    CUptiResult r = cuptiPCSamplingGetData(&p);
    if (r != CUPTI_SUCCESS) {
      if (g->verbose) warn("cuptiPCSamplingGetData", r);
      return;
    }
    accumulate(c.drain_buffer->data);
    if (c.drain_buffer->data.remainingNumPcs == 0) return;
  }
}

void finish(CUcontext ctx, Context& c) {
  if (!c.enabled) return;
  drain(ctx, c);
  CUpti_PCSamplingDisableParams p{};
  p.size = CUpti_PCSamplingDisableParamsSize;
  p.ctx = ctx;
  if (CUptiResult r = cuptiPCSamplingDisable(&p); r != CUPTI_SUCCESS) warn("cuptiPCSamplingDisable", r);
  accumulate(c.config_buffer->data);  // what the disable flushed into the configured buffer
  c.enabled = false;
}

void set_attributes(CUcontext ctx, std::vector<CUpti_PCSamplingConfigurationInfo>& info) {
  CUpti_PCSamplingConfigurationInfoParams p{};
  p.size = CUpti_PCSamplingConfigurationInfoParamsSize;
  p.ctx = ctx;
  p.numAttributes = info.size();
  p.pPCSamplingConfigurationInfo = info.data();
  if (CUptiResult r = cuptiPCSamplingSetConfigurationAttribute(&p); r != CUPTI_SUCCESS)
    warn("cuptiPCSamplingSetConfigurationAttribute", r);
}

void on_context_created(CUcontext ctx) {
  Context& c = g->contexts[ctx];
  CUpti_PCSamplingEnableParams enable{};
  enable.size = CUpti_PCSamplingEnableParamsSize;
  enable.ctx = ctx;
  if (CUptiResult r = cuptiPCSamplingEnable(&enable); r != CUPTI_SUCCESS) {
    warn("cuptiPCSamplingEnable (does this GPU support PC sampling?)", r);
    return;
  }
  size_t count = 0;
  CUpti_PCSamplingGetNumStallReasonsParams num{};
  num.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
  num.ctx = ctx;
  num.numStallReasons = &count;
  if (CUptiResult r = cuptiPCSamplingGetNumStallReasons(&num); r != CUPTI_SUCCESS) return warn("GetNumStallReasons", r);
  std::vector<uint32_t> index(count);
  std::vector<std::vector<char>> storage(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> names(count);
  for (size_t i = 0; i < count; ++i) names[i] = storage[i].data();
  CUpti_PCSamplingGetStallReasonsParams reasons{};
  reasons.size = CUpti_PCSamplingGetStallReasonsParamsSize;
  reasons.ctx = ctx;
  reasons.numStallReasons = count;
  reasons.stallReasonIndex = index.data();
  reasons.stallReasons = names.data();
  if (CUptiResult r = cuptiPCSamplingGetStallReasons(&reasons); r != CUPTI_SUCCESS) return warn("GetStallReasons", r);
  for (size_t i = 0; i < count; ++i) {
    std::string name = names[i];
    // Each reason comes twice, all samples and "_not_issued" ones: keep the first, so samples add up.
    if (name.ends_with("_not_issued")) continue;
    if (name.rfind(kStallPrefix, 0) == 0) name = name.substr(kStallPrefix.size());
    g->reason_names[index[i]] = name;
    c.reason_index.push_back(index[i]);
  }
  c.config_buffer = std::make_unique<SampleBuffer>(c.reason_index.size());
  c.drain_buffer = std::make_unique<SampleBuffer>(c.reason_index.size());

  std::vector<CUpti_PCSamplingConfigurationInfo> info(5);
  info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  info[0].attributeData.stallReasonData.stallReasonCount = c.reason_index.size();
  info[0].attributeData.stallReasonData.pStallReasonIndex = c.reason_index.data();
  info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
  info[1].attributeData.samplingPeriodData.samplingPeriod = g->period;
  info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  info[2].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  info[3].attributeData.samplingDataBufferData.samplingDataBuffer = &c.config_buffer->data;
  info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
  info[4].attributeData.scratchBufferSizeData.scratchBufferSize = size_t(64) << 20;
  set_attributes(ctx, info);
  c.enabled = true;
  if (g->verbose)
    std::fprintf(stderr, "rpl-pcsampling: enabled on context %p (%zu stall reasons, period %u)\n",
                 static_cast<void*>(ctx), c.reason_index.size(), g->period);
}

void on_module_loaded(const CUpti_ModuleResourceData& m) {
  if (!m.pCubin || m.cubinSize == 0) return;
  CUpti_GetCubinCrcParams p{};
  p.size = CUpti_GetCubinCrcParamsSize;
  p.cubin = m.pCubin;
  p.cubinSize = m.cubinSize;
  if (CUptiResult r = cuptiGetCubinCrc(&p); r != CUPTI_SUCCESS) return warn("cuptiGetCubinCrc", r);
  g->cubins.try_emplace(p.cubinCrc, m.pCubin, m.pCubin + m.cubinSize);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch == '\n' ? ' ' : ch);
  return out + "\"";
}

void write_output() {
  if (g->written) return;
  g->written = true;
  for (auto& [ctx, c] : g->contexts) finish(ctx, c);
  const std::string dir = g->out_dir;
  for (const auto& [crc, bytes] : g->cubins) {
    std::string path = dir + "/cubin_" + std::to_string(crc) + ".cubin";
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fclose(f);
    }
  }
  std::string path = dir + "/pc_samples_" + std::to_string(getpid()) + ".csv";
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return (void)std::fprintf(stderr, "rpl-pcsampling: cannot write %s\n", path.c_str());
  std::fprintf(f, "function,cubin_crc,pc_offset,stall_reason,samples,file,line\n");
  std::map<std::tuple<uint64_t, std::string, uint64_t>, std::pair<std::string, uint32_t>> lines;  // per PC
  for (const auto& [key, samples] : g->counts) {
    const auto& [crc, fn, pc, reason] = key;
    auto [it, added] = lines.try_emplace({crc, fn, pc});
    if (added) {
      auto cubin = g->cubins.find(crc);
      if (cubin != g->cubins.end()) {
        CUpti_GetSassToSourceCorrelationParams p{};
        p.size = CUpti_GetSassToSourceCorrelationParamsSize;
        p.cubin = cubin->second.data();
        p.cubinSize = cubin->second.size();
        p.functionName = fn.c_str();
        p.pcOffset = pc;
        if (cuptiGetSassToSourceCorrelation(&p) == CUPTI_SUCCESS) {
          std::string file = p.fileName ? p.fileName : "";
          if (p.dirName && *p.dirName && !file.empty() && file[0] != '/') file = std::string(p.dirName) + "/" + file;
          it->second = {file, p.lineNumber};
          std::free(p.fileName);
          std::free(p.dirName);
        }
      }
    }
    auto name = g->reason_names.find(reason);
    std::fprintf(f, "%s,%llu,%llu,%s,%llu,%s,%u\n", csv_field(fn).c_str(), static_cast<unsigned long long>(crc),
                 static_cast<unsigned long long>(pc),
                 csv_field(name != g->reason_names.end() ? name->second : std::to_string(reason)).c_str(),
                 static_cast<unsigned long long>(samples), csv_field(it->second.first).c_str(), it->second.second);
  }
  std::fclose(f);
  if (g->verbose || g->dropped)
    std::fprintf(stderr, "rpl-pcsampling: %zu PC/reason rows, %zu cubins, %llu samples dropped -> %s\n",
                 g->counts.size(), g->cubins.size(), static_cast<unsigned long long>(g->dropped), path.c_str());
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  std::lock_guard<std::mutex> lock(g->mutex);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    auto* rd = static_cast<const CUpti_ResourceData*>(data);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
      on_context_created(rd->context);
    } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      auto it = g->contexts.find(rd->context);
      if (it != g->contexts.end()) finish(it->first, it->second);
    } else if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      if (auto* m = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor)) on_module_loaded(*m);
    } else if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
      // PCs stay unique only until a module is unloaded: drain first.
      auto it = g->contexts.find(rd->context);
      if (it != g->contexts.end()) drain(it->first, it->second);
    }
    return;
  }
  auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || !rpl::collectors::cupti::is_kernel_launch(cbid) ||
      cb->callbackSite != CUPTI_API_EXIT)
    return;
  auto now = std::chrono::steady_clock::now();
  if (now - g->last_drain < std::chrono::milliseconds(50)) return;
  g->last_drain = now;
  auto it = g->contexts.find(cb->context);
  if (it != g->contexts.end()) drain(it->first, it->second);
}

void at_exit() {
  if (!g) return;
  std::lock_guard<std::mutex> lock(g->mutex);
  write_output();
}

}  // namespace

// Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names this library.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  if (g) return 1;
  const char* out = env("RPL_PC_SAMPLING_DIR");
  if (!out) {
    std::fprintf(stderr, "rpl-pcsampling: RPL_PC_SAMPLING_DIR must be set; PC sampling disabled\n");
    return 1;
  }
  auto* s = new State;
  s->out_dir = out;
  if (const char* p = env("RPL_PC_SAMPLING_PERIOD")) s->period = static_cast<uint32_t>(std::strtoul(p, nullptr, 10));
  if (s->period < 5 || s->period > 31) s->period = 8;
  s->verbose = env("RPL_PC_SAMPLING_VERBOSE") != nullptr;
  if (CUptiResult r = cuptiSubscribe(&s->subscriber, on_callback, nullptr); r != CUPTI_SUCCESS) {
    warn("cuptiSubscribe (another CUPTI tool attached?)", r);
    return 1;
  }
  g = s;
  for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
                              CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING})
    cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_RESOURCE, id);
  for (CUpti_CallbackId id : rpl::collectors::cupti::kKernelLaunchCallbacks)
    cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  std::atexit(at_exit);
  return 1;
}
