// librpl_cuda_collector.so: the CUDA injection library (CUDA_INJECTION64_PATH). The CUDA driver loads it
// at cuInit and calls InitializeInjection; the application is neither modified nor relinked, and nothing
// is preloaded.
//
// What runs where:
// - application threads: only CUPTI's own activity recording, plus (rarely) our buffer-request callback,
//   which pops a preallocated buffer from a pool. No formatting, allocation or SQLite work.
// - the thread CUPTI completes buffers on: translation into compact spill records and one writev(2) per
//   buffer to <RPL_TRACE_DIR>/<hostname>/<pid>.rplspill.
// - exit (atexit): force-flush CUPTI, write the footer, convert the spill into <pid>_results.db (rocpd)
//   and delete the spill.
// - SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT/SIGTERM/SIGINT (where the application left the default action):
//   force-flush CUPTI (best effort, bounded by a 5 s alarm), write the footer, then die of the signal as
//   before; the spill stays for the parent (`rocm-perf`) to convert.
//
// Environment:
//   RPL_TRACE_DIR        where spills and databases go (default: the working directory)
//   RPL_CUDA_API         deps (default: launches, copies, syncs, event record/wait) | all | none
//   RPL_CUDA_BUFFER_MB   size of one CUPTI activity buffer (default 8)
//   RPL_CUDA_BUFFERS     buffers preallocated (and prefaulted) at start-up (default 4; at most 64 in all)
//   RPL_CUDA_FLUSH_MS    periodic CUPTI flush, 0 = only when buffers fill (default 0)
//   RPL_CUDA_CONVERT     0: leave the spill at exit for the parent to convert (default 1)
//   RPL_CUDA_CLOCK       boottime (default: CUPTI reports CLOCK_BOOTTIME, as rocprofv3) | cupti
//   RPL_CUDA_HWTRACE     1: ask CUPTI for hardware-event tracing (where the GPU supports it)
//   RPL_CUDA_VERBOSE     1: print what was recorded at exit
//   RPL_CUDA_DISCARD     1: drop every record instead of writing it (benchmarking CUPTI's own cost)
//   RPL_CUDA_DEVICE_BUFFER_MB  CUPTI's device-side timestamp buffer per context (0: CUPTI's default, 3.2 MB)
//   RPL_CUDA_DEVICE_BUFFERS    such buffers CUPTI preallocates per context (0: CUPTI's default, 3)
//   RPL_CUDA_PINNED            1: CUPTI keeps that buffer in pinned host memory instead of device memory
//   RPL_CUDA_PER_THREAD        0: one shared activity buffer instead of CUPTI's per-thread buffers
#include <cupti.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectors/nvidia/trace_injection/cupti_translate.hpp"
#include "collectors/nvidia/trace_injection/driver_devices.hpp"
#include "collectors/nvidia/spill_file.hpp"
#include "collectors/nvidia/spill_to_rocpd.hpp"
#include "model/rank_identity.hpp"

namespace rpl::cuda {
namespace {

enum class ApiMode { Deps, All, None };

struct Config {
  std::string trace_dir = ".";
  ApiMode api = ApiMode::Deps;
  std::size_t buffer_bytes = 8u << 20;
  unsigned preallocated_buffers = 4;
  unsigned max_buffers = 64;
  uint32_t flush_ms = 0;
  bool convert_at_exit = true;
  bool boottime_clock = true;
  bool hw_trace = false;
  bool verbose = false;
  bool discard = false;
  unsigned device_buffer_mb = 0;
  unsigned device_buffers = 0;
  int pinned = -1;      // -1: CUPTI's default
  int per_thread = -1;  // -1: CUPTI's default
  bool nvtx = true;     // record NVTX ranges (RPL_CUDA_NVTX=0: off)
};

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

unsigned env_unsigned(const char* name, unsigned fallback, unsigned lo, unsigned hi) {
  const char* v = env(name);
  if (!v) return fallback;
  char* end = nullptr;
  unsigned long n = std::strtoul(v, &end, 10);
  if (*end != '\0' || n < lo || n > hi) {
    std::fprintf(stderr, "rpl-cuda: %s=%s is not a number in [%u, %u]; using %u\n", name, v, lo, hi, fallback);
    return fallback;
  }
  return static_cast<unsigned>(n);
}

Config read_config() {
  Config c;
  if (const char* d = env("RPL_TRACE_DIR")) c.trace_dir = d;
  if (const char* a = env("RPL_CUDA_API")) {
    std::string s = a;
    if (s == "all") c.api = ApiMode::All;
    else if (s == "none") c.api = ApiMode::None;
    else if (s != "deps") std::fprintf(stderr, "rpl-cuda: RPL_CUDA_API=%s: expected deps, all or none; using deps\n", a);
  }
  c.buffer_bytes = std::size_t{env_unsigned("RPL_CUDA_BUFFER_MB", 8, 1, 256)} << 20;
  c.preallocated_buffers = env_unsigned("RPL_CUDA_BUFFERS", 4, 1, 64);
  c.flush_ms = env_unsigned("RPL_CUDA_FLUSH_MS", 0, 0, 3600000);
  c.convert_at_exit = env_unsigned("RPL_CUDA_CONVERT", 1, 0, 1) == 1;
  if (const char* k = env("RPL_CUDA_CLOCK")) c.boottime_clock = std::string(k) != "cupti";
  c.hw_trace = env_unsigned("RPL_CUDA_HWTRACE", 0, 0, 1) == 1;
  c.verbose = env_unsigned("RPL_CUDA_VERBOSE", 0, 0, 1) == 1;
  c.discard = env_unsigned("RPL_CUDA_DISCARD", 0, 0, 1) == 1;
  c.device_buffer_mb = env_unsigned("RPL_CUDA_DEVICE_BUFFER_MB", 0, 0, 1024);
  c.device_buffers = env_unsigned("RPL_CUDA_DEVICE_BUFFERS", 0, 0, 64);
  if (env("RPL_CUDA_PINNED")) c.pinned = static_cast<int>(env_unsigned("RPL_CUDA_PINNED", 0, 0, 1));
  if (env("RPL_CUDA_PER_THREAD")) c.per_thread = static_cast<int>(env_unsigned("RPL_CUDA_PER_THREAD", 1, 0, 1));
  c.nvtx = env_unsigned("RPL_CUDA_NVTX", 1, 0, 1) == 1;
  return c;
}

// NVTX calls reach CUPTI only when the NVTX library finds CUPTI through NVTX_INJECTION64_PATH, which it
// reads on the application's first NVTX call. This runs inside cuInit, before a framework's first range
// in the usual case; an application that already set the variable (or made NVTX calls before CUDA) keeps
// its choice and may record no ranges.
void route_nvtx_to_cupti() {
  if (env("NVTX_INJECTION64_PATH")) return;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) == 0 || !info.dli_fname) return;
  setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}

// Activity buffers for CUPTI. Requests come from application threads when CUPTI fills a buffer, so the
// pool hands out preallocated, prefaulted, zeroed buffers (CUPTI is told they are zeroed, so it does not
// clear 8 MiB on the application thread); it allocates more only when all are in flight, up to a cap,
// and beyond it refuses (CUPTI then drops records, which the footer counts). A used buffer is zeroed
// again on the completion thread before it goes back.
class BufferPool {
 public:
  void init(std::size_t bytes, unsigned preallocated, unsigned max) {
    bytes_ = bytes;
    max_ = max;
    free_.reserve(max);
    for (unsigned i = 0; i < preallocated; ++i)
      if (uint8_t* b = allocate(true)) free_.push_back(b);
  }
  uint8_t* acquire() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {
      uint8_t* b = free_.back();
      free_.pop_back();
      return b;
    }
    return created_ < max_ ? allocate(false) : nullptr;
  }
  void release(uint8_t* b) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(b);  // capacity reserved: never allocates
  }
  std::size_t bytes() const { return bytes_; }
  unsigned created() const { return created_; }

 private:
  uint8_t* allocate(bool prefault) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (prefault ? MAP_POPULATE : 0),
                   -1, 0);
    if (p == MAP_FAILED) return nullptr;
    ++created_;
    return static_cast<uint8_t*>(p);
  }
  std::mutex mutex_;
  std::vector<uint8_t*> free_;
  std::size_t bytes_ = 0;
  unsigned created_ = 0, max_ = 0;
};

struct State {
  Config config;
  pid_t pid = 0;
  std::string spill_path;
  std::atomic<bool> finished{false};
  std::atomic<bool> in_signal{false};
  bool devices_checked = false;  // under write_mutex
  std::atomic<uint64_t> dropped{0};
  std::atomic<uint64_t> refused_buffers{0};
  std::mutex write_mutex;  // guards translator and writer
  spill::SpillWriter writer;
  RecordTranslator translator;
  BufferPool pool;
};

// Never destroyed: CUPTI may call back during static destruction and after our atexit handler.
State* g_state = nullptr;

uint64_t CUPTIAPI boottime_ns() {
  timespec t{};
  clock_gettime(CLOCK_BOOTTIME, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

// Offset from CUPTI's clock to CLOCK_BOOTTIME, from the tightest of a few paired readings.
int64_t measure_clock_offset() {
  int64_t best_width = INT64_MAX, offset = 0;
  for (int i = 0; i < 16; ++i) {
    uint64_t before = boottime_ns(), cupti = 0;
    cuptiGetTimestamp(&cupti);
    uint64_t after = boottime_ns();
    auto width = int64_t(after - before);
    if (width < best_width) {
      best_width = width;
      offset = int64_t(before + (after - before) / 2) - int64_t(cupti);
    }
  }
  return offset;
}

int64_t now_in_record_clock() {
  if (g_state && g_state->config.boottime_clock) return int64_t(boottime_ns());
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return int64_t(t);
}

void warn_cupti(const char* what, CUptiResult r) {
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  std::fprintf(stderr, "rpl-cuda: %s failed: %s\n", what, msg ? msg : "unknown CUPTI error");
}

// Once work has been recorded: if CUPTI gave no DEVICE records, ask the driver (agents need SM counts).
// Called with write_mutex held, never from a signal handler.
void ensure_device_records(State& s) {
  const TranslateStats& st = s.translator.stats();
  if (s.devices_checked || st.kernels + st.copies == 0) return;
  s.devices_checked = true;
  if (st.devices > 0) return;
  for (const auto& d : query_devices_from_driver(s.translator)) s.translator.add_device(d);
}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  *buffer = g_state->pool.acquire();
  *size = *buffer ? g_state->pool.bytes() : 0;
  if (!*buffer) g_state->refused_buffers.fetch_add(1, std::memory_order_relaxed);
}

// In a signal handler the interrupted thread may hold the lock: wait a bounded time, then give up.
bool lock_for_write(std::unique_lock<std::mutex>& lock) {
  if (!g_state->in_signal.load(std::memory_order_relaxed)) {
    lock.lock();
    return true;
  }
  for (int i = 0; i < 1000; ++i) {
    if (lock.try_lock()) return true;
    timespec pause{0, 1000000};
    nanosleep(&pause, nullptr);
  }
  return false;
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  State& s = *g_state;
  if (valid > 0 && getpid() == s.pid && !s.config.discard) {  // a forked child never writes its parent's spill
    std::unique_lock<std::mutex> lock(s.write_mutex, std::defer_lock);
    if (lock_for_write(lock)) {
      s.translator.translate(buffer, valid);
      if (!s.in_signal.load(std::memory_order_relaxed)) ensure_device_records(s);
      if (s.writer.is_open())
        s.translator.write(s.writer);
      else
        s.translator.discard();
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped)
    s.dropped.fetch_add(dropped, std::memory_order_relaxed);
  std::memset(buffer, 0, valid);  // CUPTI wrote only [0, valid)
  s.pool.release(buffer);
}

// Async-signal-safe: writev only.
void write_footer(uint32_t reason) {
  State& s = *g_state;
  spill::FooterRecord f;
  f.end_ns = now_in_record_clock();
  f.dropped_records = s.dropped.load() + s.refused_buffers.load();
  f.reason = reason;
  s.writer.append_records(&f, 1);
}

void print_stats(double convert_s, const std::string& db) {
  State& s = *g_state;
  const TranslateStats& st = s.translator.stats();
  std::fprintf(stderr,
               "rpl-cuda: pid %d: %llu kernels, %llu copies, %llu API calls, %llu syncs, %llu event records, "
               "%llu devices, %llu other; %llu buffers (%u allocated), %llu dropped; conversion %.3f s -> %s\n",
               int(s.pid), (unsigned long long)st.kernels, (unsigned long long)st.copies,
               (unsigned long long)st.api_calls, (unsigned long long)st.syncs, (unsigned long long)st.event_records,
               (unsigned long long)st.devices, (unsigned long long)st.other, (unsigned long long)st.buffers,
               s.pool.created(), (unsigned long long)(s.dropped.load() + s.refused_buffers.load()), convert_s,
               db.empty() ? "(spill kept)" : db.c_str());
}

void on_exit() {
  State* s = g_state;
  if (!s || getpid() != s->pid || s->finished.exchange(true)) return;
  CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (r != CUPTI_SUCCESS) warn_cupti("cuptiActivityFlushAll at exit", r);
  {
    std::lock_guard<std::mutex> lock(s->write_mutex);
    ensure_device_records(*s);
    s->translator.write(s->writer);
    write_footer(static_cast<uint32_t>(spill::EndReason::Exit));
    s->writer.close();
  }
  std::string db;
  auto t0 = std::chrono::steady_clock::now();
  if (s->config.convert_at_exit) {
    try {
      db = collectors::convert_spill(s->spill_path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rpl-cuda: converting %s failed: %s (the spill is kept)\n", s->spill_path.c_str(),
                   e.what());
    }
  }
  double convert_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (s->config.verbose) print_stats(convert_s, db);
}

void on_fatal_signal(int sig) {
  State* s = g_state;
  int saved_errno = errno;
  if (s && getpid() == s->pid && !s->finished.exchange(true)) {
    // A flush that deadlocks (the crash hit inside CUPTI or the driver) must not hang the process.
    signal(SIGALRM, SIG_DFL);
    alarm(5);
    s->in_signal.store(true);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    write_footer(static_cast<uint32_t>(sig));
    alarm(0);
  }
  errno = saved_errno;
  // SA_RESETHAND restored the default action; the signal is re-raised once this handler returns.
  raise(sig);
}

void install_signal_handlers() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(sig, &sa, nullptr);
  }
}

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  return buf;
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw)
    if (c == '\0') c = ' ';
  return raw;
}

void enable_api_tracing(ApiMode mode) {
  if (mode == ApiMode::None) return;
  if (mode == ApiMode::All) {
    for (auto kind : {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER})
      if (CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS) warn_cupti("enabling API tracing", r);
    return;
  }
  // Per-API enabling: launches and synchronisation pay CUPTI's API-record cost, nothing else does.
  struct Domain {
    CUpti_CallbackDomain domain;
    uint32_t size;
    CUptiResult (*enable)(CUpti_CallbackId, uint8_t);
  };
  const Domain domains[] = {{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, cuptiActivityEnableRuntimeApi},
                            {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, cuptiActivityEnableDriverApi}};
  for (const Domain& d : domains) {
    for (uint32_t cbid = 1; cbid < d.size; ++cbid) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(d.domain, cbid, &name) != CUPTI_SUCCESS || !name) continue;
      if (!collectors::is_cuda_dependency_api(collectors::normalize_cuda_api_name(name))) continue;
      if (CUptiResult r = d.enable(cbid, 1); r != CUPTI_SUCCESS) {
        warn_cupti("enabling per-API tracing", r);
        return;
      }
    }
  }
}

void start() {
  auto* s = new State();
  s->config = read_config();
  s->pid = getpid();
  const Config& c = s->config;

  std::string host = hostname();
  s->spill_path = collectors::spill_path_for(c.trace_dir, host, s->pid);
  std::filesystem::create_directories(std::filesystem::path(s->spill_path).parent_path());

  spill::FileHeader header;
  header.pid = s->pid;
  header.ppid = getppid();
  g_state = s;  // callbacks below may fire as soon as activities are enabled

  if (c.boottime_clock) {
    CUptiResult r = cuptiActivityRegisterTimestampCallback(boottime_ns);
    if (r != CUPTI_SUCCESS) {
      warn_cupti("cuptiActivityRegisterTimestampCallback (falling back to CUPTI's clock plus an offset)", r);
      s->config.boottime_clock = false;
    }
  }
  header.clock = static_cast<uint32_t>(c.boottime_clock ? spill::Clock::Boottime : spill::Clock::CuptiDefault);
  header.clock_offset_ns = c.boottime_clock ? 0 : measure_clock_offset();
  header.init_ns = now_in_record_clock();
  s->writer.open(s->spill_path, header);

  spill::ProcessRecord process;
  process.start_ns = header.init_ns;
  process.command_id = s->translator.intern(command_line());
  process.hostname_id = s->translator.intern(host);
  spill::LaunchEnvRecord launch_env;
  launch_env.rank_json_id = s->translator.intern(rank_identity_json(rank_identity_from_env(std::getenv)));
  s->translator.write(s->writer);
  s->writer.append_records(&process, 1);
  s->writer.append_records(&launch_env, 1);

  s->pool.init(c.buffer_bytes, c.preallocated_buffers, std::max(c.preallocated_buffers, 64u));

  if (CUptiResult r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM); r != CUPTI_SUCCESS)
    warn_cupti("cuptiSetThreadIdType", r);
  uint8_t zeroed = 1;
  size_t zeroed_size = sizeof zeroed;
  if (CUptiResult r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size, &zeroed);
      r != CUPTI_SUCCESS)
    warn_cupti("telling CUPTI that activity buffers come zeroed", r);
  // CUPTI's device-side buffers (kernel timestamps): set before the first context exists, which holds
  // here (the injection entry point runs inside cuInit).
  auto set_size = [](CUpti_ActivityAttribute attr, std::size_t value, const char* what) {
    size_t size = sizeof value;
    if (CUptiResult r = cuptiActivitySetAttribute(attr, &size, &value); r != CUPTI_SUCCESS) warn_cupti(what, r);
  };
  auto set_flag = [](CUpti_ActivityAttribute attr, uint8_t value, const char* what) {
    size_t size = sizeof value;
    if (CUptiResult r = cuptiActivitySetAttribute(attr, &size, &value); r != CUPTI_SUCCESS) warn_cupti(what, r);
  };
  if (c.device_buffer_mb)
    set_size(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, std::size_t{c.device_buffer_mb} << 20, "device buffer size");
  if (c.device_buffers)
    set_size(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, c.device_buffers, "device buffers preallocated");
  if (c.pinned >= 0)
    set_flag(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, static_cast<uint8_t>(c.pinned), "pinned device buffer");
  if (c.per_thread >= 0)
    set_flag(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, static_cast<uint8_t>(c.per_thread), "per-thread buffers");
  if (CUptiResult r = cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed); r != CUPTI_SUCCESS) {
    warn_cupti("cuptiActivityRegisterCallbacks (this process is not traced)", r);
    s->writer.close();
    return;
  }
  if (c.hw_trace)
    if (CUptiResult r = cuptiActivityEnableHWTrace(1); r != CUPTI_SUCCESS) warn_cupti("cuptiActivityEnableHWTrace", r);

  // DEVICE, CONTEXT and STREAM records are few; they name agents and streams.
  for (auto kind : {CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_STREAM,
                    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_CUDA_EVENT}) {
    CUptiResult r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS && kind != CUPTI_ACTIVITY_KIND_DEVICE) {
      char what[64];
      std::snprintf(what, sizeof what, "enabling CUPTI activity kind %d", int(kind));
      warn_cupti(what, r);
    }
  }
  enable_api_tracing(c.api);
  if (c.nvtx) {
    if (CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER); r != CUPTI_SUCCESS)
      warn_cupti("enabling NVTX range recording", r);
    else
      route_nvtx_to_cupti();
  }
  if (c.flush_ms > 0) cuptiActivityFlushPeriod(c.flush_ms);

  std::atexit(on_exit);
  install_signal_handlers();
  if (c.verbose)
    std::fprintf(stderr, "rpl-cuda: tracing pid %d into %s (clock %s)\n", int(s->pid), s->spill_path.c_str(),
                 c.boottime_clock ? "CLOCK_BOOTTIME" : "CUPTI + offset");
}

}  // namespace
}  // namespace rpl::cuda

// Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names this library.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> started{false};
  if (started.exchange(true)) return 1;
  try {
    rpl::cuda::start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpl-cuda: %s; this process is not traced\n", e.what());
  }
  return 1;  // never fail the application's cuInit
}
