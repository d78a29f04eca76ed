// rpl_cupti_metrics: what the CUPTI profiler can count on an NVIDIA GPU, for `rocm-perf counters list` and
// for checking `profile --counters FILE` before anything runs. A separate program so that CUPTI and the
// driver are loaded only here (and in the injection libraries), never into rocm-perf itself.
//
//   rpl_cupti_metrics [--device N | --chip NAME] list          every base metric and its submetrics
//   rpl_cupti_metrics [--device N | --chip NAME] check NAME...  whether each full metric name is collectable
//
// Output (stdout, tab-separated, one record per line; collectors/nvidia/cupti_metrics.cpp parses it):
//   device <TAB> N <TAB> CHIP <TAB> sm_XY        (with --device; --chip prints "chip <TAB> CHIP")
//   metric <TAB> NAME <TAB> TYPE <TAB> HW_UNIT <TAB> DIM_UNIT <TAB> SUBMETRICS(comma-separated) <TAB> DESCRIPTION
//   ok <TAB> NAME          |   unsupported <TAB> NAME
// Exit status: 0 done, 2 bad command line, 3 no such device or CUPTI failed (a message on stderr).
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(int code, const std::string& message) {
  std::fprintf(stderr, "rpl_cupti_metrics: %s\n", message.c_str());
  std::exit(code);
}

std::string cupti_error(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

// Tabs and newlines in descriptions would break the record format.
std::string one_field(const char* s) {
  std::string out = s ? s : "";
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out;
}

std::string chip_of_device(int device) {
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS) fail(3, "cuInit failed (" + std::to_string(r) + "): no NVIDIA driver?");
  int count = 0;
  cuDeviceGetCount(&count);
  if (device < 0 || device >= count)
    fail(3, "no CUDA device " + std::to_string(device) + " (this machine has " + std::to_string(count) + ")");
  CUdevice dev = 0;
  cuDeviceGet(&dev, device);
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  CUpti_Profiler_Initialize_Params init{};
  init.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
  if (CUptiResult r = cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) fail(3, "cuptiProfilerInitialize: " + cupti_error(r));
  CUpti_Device_GetChipName_Params cn{};
  cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  cn.deviceIndex = static_cast<size_t>(device);
  if (CUptiResult r = cuptiDeviceGetChipName(&cn); r != CUPTI_SUCCESS) fail(3, "cuptiDeviceGetChipName: " + cupti_error(r));
  std::printf("device\t%d\t%s\tsm_%d%d\n", device, cn.pChipName, major, minor);
  return cn.pChipName;
}

CUpti_Profiler_Host_Object* host_object(const std::string& chip) {
  CUpti_Profiler_Host_Initialize_Params p{};
  p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  if (CUptiResult r = cuptiProfilerHostInitialize(&p); r != CUPTI_SUCCESS)
    fail(3, "cuptiProfilerHostInitialize for chip " + chip + ": " + cupti_error(r));
  return p.pHostObject;
}

void host_release(CUpti_Profiler_Host_Object* h) {
  CUpti_Profiler_Host_Deinitialize_Params p{};
  p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
  p.pHostObject = h;
  cuptiProfilerHostDeinitialize(&p);
}

const char* type_name(CUpti_MetricType t) {
  switch (t) {
    case CUPTI_METRIC_TYPE_COUNTER: return "counter";
    case CUPTI_METRIC_TYPE_RATIO: return "ratio";
    case CUPTI_METRIC_TYPE_THROUGHPUT: return "throughput";
    default: return "other";
  }
}

void list_metrics(const std::string& chip) {
  CUpti_Profiler_Host_Object* h = host_object(chip);
  for (CUpti_MetricType type : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    CUpti_Profiler_Host_GetBaseMetrics_Params b{};
    b.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
    b.pHostObject = h;
    b.metricType = type;
    if (CUptiResult r = cuptiProfilerHostGetBaseMetrics(&b); r != CUPTI_SUCCESS)
      fail(3, "cuptiProfilerHostGetBaseMetrics: " + cupti_error(r));
    for (size_t i = 0; i < b.numMetrics; ++i) {
      const char* name = b.ppMetricNames[i];
      CUpti_Profiler_Host_GetSubMetrics_Params s{};
      s.structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE;
      s.pHostObject = h;
      s.metricType = type;
      s.pMetricName = name;
      std::string subs;
      if (cuptiProfilerHostGetSubMetrics(&s) == CUPTI_SUCCESS)
        for (size_t k = 0; k < s.numOfSubmetrics; ++k) subs += (k ? "," : "") + std::string(s.ppSubMetrics[k]);
      CUpti_Profiler_Host_GetMetricProperties_Params m{};
      m.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
      m.pHostObject = h;
      m.pMetricName = name;
      const bool props = cuptiProfilerHostGetMetricProperties(&m) == CUPTI_SUCCESS;
      std::printf("metric\t%s\t%s\t%s\t%s\t%s\t%s\n", name, type_name(type), props ? one_field(m.pHwUnit).c_str() : "",
                  props ? one_field(m.pDimUnit).c_str() : "", subs.c_str(),
                  props ? one_field(m.pDescription).c_str() : "");
    }
  }
  host_release(h);
}

// A full metric name (base.rollup[.submetric]) is collectable when the range profiler's configuration
// accepts it on its own.
void check_metrics(const std::string& chip, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    CUpti_Profiler_Host_Object* h = host_object(chip);
    const char* one[] = {name.c_str()};
    CUpti_Profiler_Host_ConfigAddMetrics_Params p{};
    p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    p.pHostObject = h;
    p.ppMetricNames = one;
    p.numMetrics = 1;
    const bool ok = cuptiProfilerHostConfigAddMetrics(&p) == CUPTI_SUCCESS;
    std::printf("%s\t%s\n", ok ? "ok" : "unsupported", name.c_str());
    host_release(h);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0;
  std::string chip, command;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (command.empty() && a == "--device" && i + 1 < argc) {
      char* end = nullptr;
      device = static_cast<int>(std::strtol(argv[++i], &end, 10));
      if (*end != '\0') fail(2, std::string("--device expects a number, not '") + argv[i] + "'");
    } else if (command.empty() && a == "--chip" && i + 1 < argc) {
      chip = argv[++i];
    } else if (command.empty() && (a == "list" || a == "check")) {
      command = a;
    } else if (command == "check") {
      names.push_back(a);
    } else {
      fail(2, "usage: rpl_cupti_metrics [--device N | --chip NAME] list | check METRIC...");
    }
  }
  if (command.empty()) fail(2, "usage: rpl_cupti_metrics [--device N | --chip NAME] list | check METRIC...");
  if (chip.empty()) chip = chip_of_device(device);
  else std::printf("chip\t%s\n", chip.c_str());
  if (command == "list") list_metrics(chip);
  else check_metrics(chip, names);
  return std::fflush(stdout) == 0 ? 0 : 3;
}
