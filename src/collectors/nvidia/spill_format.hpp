#pragma once
// The spill file: what the CUDA collector (librpl_cuda_collector.so, CUPTI) appends while the application
// runs, and what spill_to_rocpd converts into a rocpd database afterwards, in the same process at exit or
// in the parent (`rocm-perf`) when the application crashed.
//
// Layout: one FileHeader, then a sequence of chunks, each a ChunkHeader followed by `payload_bytes` of
// payload. Record chunks hold `count` fixed-size POD records of one type; a String chunk holds `count`
// StringEntry headers each followed by its bytes, padded to 8. Chunks are appended with one write(2)
// each, so a crash can only truncate the last one; the reader keeps every whole record before the cut.
// Unknown chunk types are skipped (forward compatibility within a format version).
//
// Every timestamp is in nanoseconds; add FileHeader::clock_offset_ns to get CLOCK_BOOTTIME, the clock
// rocprofv3 writes (the collector normally makes CUPTI report CLOCK_BOOTTIME, and the offset is 0).
// Nothing here depends on CUPTI: field meanings are CUPTI's, values are copied, not interpreted.
#include <cstdint>
#include <type_traits>

namespace rpl::spill {

inline constexpr char kMagic[8] = {'R', 'P', 'L', 'S', 'P', 'I', 'L', 'L'};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr const char* kSpillExtension = ".rplspill";
// CUPTI's "not applicable" value for ids in synchronization records.
inline constexpr uint32_t kInvalidId32 = 0xffffffffu;
inline constexpr uint64_t kInvalidId64 = 0xffffffffffffffffull;

enum class Clock : uint32_t {
  Boottime = 1,       // records are CLOCK_BOOTTIME already (clock_offset_ns == 0)
  CuptiDefault = 2,   // CUPTI's own clock (CLOCK_REALTIME on Linux); clock_offset_ns converts
};

struct FileHeader {
  char magic[8];
  uint32_t version = kFormatVersion;
  uint32_t header_bytes = sizeof(FileHeader);
  int64_t pid = 0;
  int64_t ppid = 0;
  int64_t init_ns = 0;          // when the collector started, in record clock
  int64_t clock_offset_ns = 0;  // record time + offset = CLOCK_BOOTTIME
  uint32_t clock = static_cast<uint32_t>(Clock::Boottime);
  uint32_t reserved0 = 0;
  uint64_t reserved1 = 0;
};

enum class ChunkType : uint32_t {
  String = 1,
  Kernel = 2,
  Copy = 3,
  Api = 4,
  Sync = 5,
  EventRecord = 6,
  Device = 7,
  Context = 8,
  Stream = 9,
  Process = 10,
  Footer = 11,
  LaunchEnv = 12,
};

struct ChunkHeader {
  uint32_t type = 0;
  uint32_t count = 0;
  uint64_t payload_bytes = 0;
};

// Followed by `length` bytes (no terminator), then zero padding to a multiple of 8.
struct StringEntry {
  uint32_t id = 0;  // 0 is reserved for "no string"
  uint32_t length = 0;
};

// A kernel as it ran (CUPTI CONCURRENT_KERNEL). Graph-launched kernels come one record per node.
struct KernelRecord {
  int64_t start = 0, end = 0;
  uint64_t graph_node_id = 0;  // 0: not launched through a graph
  uint32_t correlation_id = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0;
  uint32_t name_id = 0;        // mangled name (String id)
  uint32_t graph_id = 0;
  int32_t grid[3] = {0, 0, 0};   // blocks
  int32_t block[3] = {0, 0, 0};  // threads per block
  int32_t static_shared_bytes = 0;
  int32_t dynamic_shared_bytes = 0;
  uint32_t local_bytes_per_thread = 0;
  uint16_t registers_per_thread = 0;
  uint8_t launch_type = 0;     // CUpti_ActivityLaunchType
  uint8_t flags = 0;           // kKernelDeviceLaunched
  uint32_t cluster[3] = {0, 0, 0};
  uint32_t reserved = 0;
};
inline constexpr uint8_t kKernelDeviceLaunched = 1;

enum class CopyOp : uint8_t { Memcpy = 1, Memset = 2, PeerMemcpy = 3 };

// CUPTI's CUpti_ActivityMemcpyKind values, as stored in CopyRecord::copy_kind.
enum class CuptiCopyKind : uint8_t {
  Unknown = 0, HtoD = 1, DtoH = 2, HtoA = 3, AtoH = 4, AtoA = 5, AtoD = 6, DtoA = 7, DtoD = 8, HtoH = 9,
  PtoP = 10,
};

// A memcpy, peer memcpy or memset (CUPTI MEMCPY, MEMCPY2, MEMSET).
struct CopyRecord {
  int64_t start = 0, end = 0;
  uint64_t bytes = 0;
  uint64_t graph_node_id = 0;
  uint32_t correlation_id = 0;
  uint32_t runtime_correlation_id = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0, graph_id = 0;
  uint32_t src_device_id = kInvalidId32, dst_device_id = kInvalidId32;  // peer copies only
  uint32_t memset_value = 0;
  uint8_t op = 0;         // CopyOp
  uint8_t copy_kind = 0;  // CuptiCopyKind (memcpy); 0 for memset
  uint8_t src_kind = 0;   // CUpti_ActivityMemoryKind (memset: the memory kind set)
  uint8_t dst_kind = 0;
};

// Marker: an NVTX push/pop or start/end range (CUPTI MARKER start and end paired); name_id is its message,
// cbid and correlation_id are 0 (a range correlates with no GPU work).
enum class ApiDomain : uint8_t { Runtime = 1, Driver = 2, Marker = 3 };

// A host API call (CUPTI RUNTIME / DRIVER).
struct ApiRecord {
  int64_t start = 0, end = 0;
  uint32_t correlation_id = 0;
  uint32_t thread_id = 0;   // OS thread id
  uint32_t name_id = 0;     // CUPTI's callback name, as CUPTI spells it ("cudaLaunchKernel_v7000")
  uint32_t cbid = 0;
  uint32_t return_value = 0;
  uint8_t domain = 0;       // ApiDomain
  uint8_t reserved[3] = {0, 0, 0};
};

// CUpti_ActivitySynchronizationType values.
enum class SyncType : uint32_t {
  Unknown = 0, EventSynchronize = 1, StreamWaitEvent = 2, StreamSynchronize = 3, ContextSynchronize = 4,
};

// A synchronisation API call with the stream / event it concerns (CUPTI SYNCHRONIZATION).
struct SyncRecord {
  int64_t start = 0, end = 0;
  uint64_t event_sync_id = kInvalidId64;  // the event record this waits for (unique per record)
  uint32_t correlation_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = kInvalidId32;
  uint32_t event_id = kInvalidId32;
  uint32_t type = 0;  // SyncType
  uint32_t return_value = 0;
};

// A cudaEventRecord (CUPTI CUDA_EVENT): which stream the event captured, and the unique record id.
struct EventRecordRecord {
  uint64_t event_sync_id = kInvalidId64;
  int64_t device_timestamp = 0;  // 0 unless device timestamps were enabled
  uint32_t correlation_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t event_id = 0;
  uint32_t device_id = 0;
  uint32_t reserved = 0;
};

struct DeviceRecord {
  uint64_t global_memory_bytes = 0;
  uint64_t global_memory_bandwidth_kbps = 0;
  uint32_t device_id = 0;
  uint32_t name_id = 0;
  uint32_t sm_count = 0;
  uint32_t compute_major = 0, compute_minor = 0;
  uint32_t warp_size = 0;
  uint32_t max_warps_per_sm = 0;
  uint32_t max_blocks_per_sm = 0;
  uint32_t max_threads_per_block = 0;
  uint32_t shared_bytes_per_sm = 0;
  uint32_t shared_bytes_per_block = 0;
  uint32_t registers_per_sm = 0;
  uint32_t registers_per_block = 0;
  uint32_t core_clock_khz = 0;
  uint32_t l2_bytes = 0;
  uint32_t memcpy_engines = 0;
  uint8_t uuid[16] = {};
};

struct ContextRecord {
  uint32_t context_id = 0;
  uint32_t device_id = 0;
  uint32_t null_stream_id = 0;
  uint32_t reserved = 0;
};

// CUpti_ActivityStreamFlag values.
enum class StreamFlag : uint32_t { Unknown = 0, Default = 1, NonBlocking = 2, Null = 3 };

struct StreamRecord {
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t priority = 0;
  uint32_t flag = 0;  // StreamFlag
  uint32_t correlation_id = 0;
  uint32_t reserved = 0;
};

// Written once at start-up.
struct ProcessRecord {
  int64_t start_ns = 0;       // record clock
  uint32_t command_id = 0;    // String: the command line, arguments separated by spaces
  uint32_t hostname_id = 0;   // String
};

// Written once at start-up (older readers skip the chunk): what the launcher's environment says about
// the process (model/rank_identity.hpp), as a JSON string.
struct LaunchEnvRecord {
  uint32_t rank_json_id = 0;  // String: rank_identity_json(...)
  uint32_t reserved = 0;
};

enum class EndReason : uint32_t { Exit = 0 };  // otherwise the signal number

// Written last by a clean exit or by the fatal-signal handler.
struct FooterRecord {
  int64_t end_ns = 0;
  uint64_t dropped_records = 0;  // records CUPTI reported dropped, plus buffers we could not provide
  uint32_t reason = 0;           // EndReason or signal number
  uint32_t reserved = 0;
};

template <typename T>
inline constexpr bool kIsSpillRecord = std::is_trivially_copyable_v<T> && sizeof(T) % 8 == 0;

static_assert(sizeof(FileHeader) == 64);
static_assert(sizeof(ChunkHeader) == 16);
static_assert(sizeof(KernelRecord) == 104 && kIsSpillRecord<KernelRecord>);
static_assert(sizeof(CopyRecord) == 72 && kIsSpillRecord<CopyRecord>);
static_assert(sizeof(ApiRecord) == 40 && kIsSpillRecord<ApiRecord>);
static_assert(sizeof(SyncRecord) == 48 && kIsSpillRecord<SyncRecord>);
static_assert(sizeof(EventRecordRecord) == 40 && kIsSpillRecord<EventRecordRecord>);
static_assert(sizeof(DeviceRecord) == 96 && kIsSpillRecord<DeviceRecord>);
static_assert(sizeof(ContextRecord) == 16 && kIsSpillRecord<ContextRecord>);
static_assert(sizeof(StreamRecord) == 24 && kIsSpillRecord<StreamRecord>);
static_assert(sizeof(ProcessRecord) == 16 && kIsSpillRecord<ProcessRecord>);
static_assert(sizeof(FooterRecord) == 24 && kIsSpillRecord<FooterRecord>);
static_assert(sizeof(LaunchEnvRecord) == 8 && kIsSpillRecord<LaunchEnvRecord>);

// The chunk type each record type is written as.
template <typename T> struct ChunkTypeOf;
template <> struct ChunkTypeOf<KernelRecord> { static constexpr ChunkType value = ChunkType::Kernel; };
template <> struct ChunkTypeOf<CopyRecord> { static constexpr ChunkType value = ChunkType::Copy; };
template <> struct ChunkTypeOf<ApiRecord> { static constexpr ChunkType value = ChunkType::Api; };
template <> struct ChunkTypeOf<SyncRecord> { static constexpr ChunkType value = ChunkType::Sync; };
template <> struct ChunkTypeOf<EventRecordRecord> { static constexpr ChunkType value = ChunkType::EventRecord; };
template <> struct ChunkTypeOf<DeviceRecord> { static constexpr ChunkType value = ChunkType::Device; };
template <> struct ChunkTypeOf<ContextRecord> { static constexpr ChunkType value = ChunkType::Context; };
template <> struct ChunkTypeOf<StreamRecord> { static constexpr ChunkType value = ChunkType::Stream; };
template <> struct ChunkTypeOf<ProcessRecord> { static constexpr ChunkType value = ChunkType::Process; };
template <> struct ChunkTypeOf<FooterRecord> { static constexpr ChunkType value = ChunkType::Footer; };
template <> struct ChunkTypeOf<LaunchEnvRecord> { static constexpr ChunkType value = ChunkType::LaunchEnv; };

}  // namespace rpl::spill
