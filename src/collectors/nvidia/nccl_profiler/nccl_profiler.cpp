// librpl_nccl_profiler.so: an NCCL profiler plugin (NCCL >= 2.26, interface versions 4 and 5), loaded by
// NCCL when NCCL_PROFILER_PLUGIN names this file (`rocm-perf profile` sets it on NVIDIA). It records every
// collective and point-to-point call with its communicator (id, size, the process's rank in it), sequence
// number, operation, data type, count, root / peer, the algorithm and protocol NCCL chose, the group it was
// issued in, and the host time NCCL started its event (CLOCK_BOOTTIME, the CUDA collector's clock), one line
// per call, written when the call starts (a call's stop is not needed and not every NCCL version stops it), in
// <RPL_TRACE_DIR>/<hostname>/<pid>.rplnccl. The CUDA collector imports that file into the process's rocpd
// database at exit (collectors/nvidia/nccl_profile_file.hpp describes the format); nothing here links rpl.
//
// Cost: one mutex and one buffered line per call, on the thread that makes the call. Group events are
// enabled only to give calls of one group one id (NCCL launches one kernel per communicator per group).
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <sys/stat.h>

#include "collectors/nvidia/nccl_profiler/nccl_profiler_abi.hpp"

namespace {

using namespace rpl::nccl_abi;

constexpr uint64_t kGroupMagic = 0x72706c67726f7570ull;  // "rplgroup"

struct Context {
  uint64_t comm_id = 0;
  int nranks = 0, rank = -1, nodes = 0;
  std::atomic<uint64_t> p2p_sequence{0};
};

struct GroupEvent {
  uint64_t magic = kGroupMagic;
  uint64_t id = 0;
};

struct CallEvent {
  Context* context = nullptr;
  bool p2p = false;
  uint64_t sequence = 0, group = 0, count = 0;
  int root = -1, peer = -1, channels = 0;
  char func[24] = {}, datatype[24] = {}, algo[24] = {}, proto[16] = {};
  int64_t start = 0;
};

std::mutex g_mutex;
FILE* g_file = nullptr;
bool g_failed = false;
std::atomic<uint64_t> g_groups{0};

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void copy(char* dst, std::size_t n, const char* src) {
  std::snprintf(dst, n, "%s", src ? src : "");
  for (char* p = dst; *p; ++p)
    if (*p == '\t' || *p == '\n') *p = ' ';
}

void flush_at_exit() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_file) std::fflush(g_file);
}

// Opens the output on the first communicator (under g_mutex). A failure is reported once and disables us.
bool open_output(int version) {
  if (g_file) return true;
  if (g_failed) return false;
  const char* dir = std::getenv("RPL_TRACE_DIR");
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string folder = std::string(dir && *dir ? dir : ".") + "/" + host;
  mkdir(folder.c_str(), 0777);  // may exist (the CUDA collector makes it too)
  const std::string path = folder + "/" + std::to_string(getpid()) + ".rplnccl";
  g_file = std::fopen(path.c_str(), "w");
  if (!g_file) {
    std::fprintf(stderr, "rpl-nccl: cannot write %s (%s): NCCL calls are not recorded\n", path.c_str(),
                 std::strerror(errno));
    g_failed = true;
    return false;
  }
  std::setvbuf(g_file, nullptr, _IOFBF, 1 << 20);
  std::fprintf(g_file, "rpl-nccl-profile\t1\tv%d\n", version);
  std::atexit(flush_at_exit);
  return true;
}

Result init_common(void** context, int version, uint64_t comm_id, int* mask, int nodes, int nranks, int rank) {
  *context = nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!open_output(version)) return 1;  // NCCL then disables the plugin for this communicator
  auto* c = new Context;
  c->comm_id = comm_id;
  c->nranks = nranks;
  c->rank = rank;
  c->nodes = nodes;
  *context = c;
  *mask = static_cast<int>(kGroup | kColl | kP2p);
  std::fprintf(g_file, "C\t0x%016" PRIx64 "\t%d\t%d\t%d\n", comm_id, nranks, rank, nodes);
  return kSuccess;
}

uint64_t group_of(void* parent) {
  auto* g = static_cast<GroupEvent*>(parent);
  return g && g->magic == kGroupMagic ? g->id : 0;
}

void write_call(const CallEvent& e) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_file) return;
  std::fprintf(g_file,
               "E\t0x%016" PRIx64 "\t%d\t%d\t%d\t%c\t%" PRIu64 "\t%s\t%" PRIu64 "\t%s\t%d\t%d\t%s\t%s\t%d\t%" PRIu64
               "\t%" PRId64 "\t0\n",
               e.context->comm_id, e.context->nranks, e.context->rank, e.context->nodes, e.p2p ? 'p' : 'c', e.sequence,
               e.func, e.count, e.datatype, e.root, e.peer, e.algo, e.proto, e.channels, e.group, e.start);
}

// `coll` / `p2p`: the descriptor's union seen as the event's kind (only the one `type` names is read).
Result start_common(void* context, void** handle, uint64_t type, const CollV4* coll, const P2pV4* p2p,
                    void* group_parent) {
  *handle = nullptr;
  auto* c = static_cast<Context*>(context);
  if (!c) return kSuccess;
  if (type == kGroup) {
    auto* g = new GroupEvent;
    g->id = ++g_groups;
    *handle = g;
    return kSuccess;
  }
  if (type != kColl && type != kP2p) return kSuccess;
  CallEvent e;
  e.context = c;
  e.group = group_of(group_parent);
  e.start = now_ns();
  if (type == kColl) {
    e.sequence = coll->seqNumber;
    e.count = coll->count;
    e.root = coll->root;
    e.channels = coll->nChannels;
    copy(e.func, sizeof e.func, coll->func);
    copy(e.datatype, sizeof e.datatype, coll->datatype);
    copy(e.algo, sizeof e.algo, coll->algo);
    copy(e.proto, sizeof e.proto, coll->proto);
  } else {
    e.p2p = true;
    e.sequence = c->p2p_sequence++;  // NCCL numbers collectives only; our order per communicator
    e.count = p2p->count;
    e.peer = p2p->peer;
    e.channels = p2p->nChannels;
    copy(e.func, sizeof e.func, p2p->func);
    copy(e.datatype, sizeof e.datatype, p2p->datatype);
  }
  write_call(e);
  return kSuccess;  // no handle: the call is written when it starts (NCCL's stop of it is not needed)
}

Result stop_event(void* handle) {
  auto* g = static_cast<GroupEvent*>(handle);  // only groups have handles
  if (g && g->magic == kGroupMagic) {
    g->magic = 0;
    delete g;
  }
  return kSuccess;
}

Result record_state(void*, int, void*) { return kSuccess; }

Result finalize(void* context) {
  delete static_cast<Context*>(context);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_file) std::fflush(g_file);
  return kSuccess;
}

Result init_v4(void** context, int* mask, const char*, uint64_t comm_hash, int nodes, int nranks, int rank, Logger) {
  return init_common(context, 4, comm_hash, mask, nodes, nranks, rank);
}
Result start_v4(void* context, void** handle, DescrV4* d) {
  if (!d) return *handle = nullptr, kSuccess;
  return start_common(context, handle, d->type, &d->coll, &d->p2p, d->parentObj);
}
Result init_v5(void** context, uint64_t comm_id, int* mask, const char*, int nodes, int nranks, int rank, Logger) {
  return init_common(context, 5, comm_id, mask, nodes, nranks, rank);
}
Result start_v5(void* context, void** handle, DescrV5* d) {
  if (!d) return *handle = nullptr, kSuccess;
  void* group = d->type == kColl ? d->coll.parentGroup : d->type == kP2p ? d->p2p.parentGroup : nullptr;
  return start_common(context, handle, d->type, &d->coll.v4, &d->p2p.v4, group ? group : d->parentObj);
}

}  // namespace

extern "C" {
__attribute__((visibility("default"))) ProfilerV5 ncclProfiler_v5 = {"rocm-perf", init_v5, start_v5, stop_event,
                                                                       record_state, finalize};
__attribute__((visibility("default"))) ProfilerV4 ncclProfiler_v4 = {"rocm-perf", init_v4, start_v4, stop_event,
                                                                       record_state, finalize};
}
