#pragma once
// A kernel capture: everything needed to launch one dispatch again in a fresh process, at the same virtual
// addresses, and to check its result. The directory holds manifest.json (schemas/capture-manifest.schema.json)
// and the blobs it names (capture/blob.hpp). Vendor-neutral: collectors (CUDA's CUPTI capture, AMD's HSA
// capture) fill it in; vendor-specific launch details go into `vendor`, a free-form JSON object.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "capture/blob.hpp"

namespace rpl::capture {

inline constexpr const char* kSchemaVersion = "1.0";
inline constexpr const char* kManifestName = "manifest.json";

// One range of device-visible memory that was live at the launch.
struct Region {
  uint64_t id = 0;
  uint64_t address = 0;
  uint64_t size = 0;
  // How the application obtained it. CUDA: "device" (cuMemAlloc), "pitched" (cuMemAllocPitch),
  // "stream_ordered" (cuMemAllocAsync / pools), "virtual" (cuMemCreate + cuMemMap), "global" (a __device__ or
  // __constant__ variable of the kernel's module). AMD collectors add their own.
  std::string kind;
  std::string symbol;            // kind "global": the variable's name in the code object
  std::optional<BlobRef> before; // contents just before the launch (all preceding work completed)
  std::optional<BlobRef> after;  // contents after the kernel finished
};

struct KernelIdentity {
  std::string mangled_name;    // what the loader looks up in the code object
  std::string demangled_name;
  std::string match_regex;     // what the user asked for
  uint64_t dispatch_index = 1; // K: the K-th launch of this kernel (1-based)
};

struct Geometry {
  std::array<uint32_t, 3> grid{1, 1, 1};   // in blocks (CUDA) / work-groups (HIP)
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t dynamic_shared_bytes = 0;
};

// A launch or function attribute as the driver knows it: numeric id, readable name, and its value (raw bytes
// in hex for launch attributes, whose values are unions; an integer for function attributes).
struct Attribute {
  int64_t id = 0;
  std::string name;
  std::string value_hex;   // launch attributes
  int64_t value = 0;       // function attributes
};

struct Parameter {
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct Manifest {
  std::string schema_version = kSchemaVersion;
  std::string platform;            // "cuda" or "rocm"
  std::string producer;            // e.g. "rocm-perf 0.1.0 cuda-capture"
  std::string created_utc;         // ISO 8601
  std::string device_name;
  std::string device_arch;         // "sm_90", "gfx942"
  int device_ordinal = 0;
  std::vector<std::string> command;
  int64_t pid = 0;

  KernelIdentity kernel;
  BlobRef code_object;
  std::string code_object_format;  // "cubin", "hsaco"
  BlobRef arguments;               // the kernel's parameter buffer, exactly as launched
  std::vector<Parameter> parameters;
  Geometry geometry;
  std::vector<Attribute> launch_attributes;
  std::vector<Attribute> function_attributes;
  std::vector<Region> regions;     // sorted by address, disjoint
  nlohmann::json vendor = nlohmann::json::object();
};

nlohmann::json to_json(const Manifest& m);
// Throws rpl::Error(InputCorrupt) naming `what` (the manifest's path) and the offending field.
Manifest manifest_from_json(const nlohmann::json& j, const std::string& what);

// Writes <dir>/manifest.json atomically (a killed writer leaves no half manifest).
void write_manifest(const std::filesystem::path& dir, const Manifest& m);

// Reads and checks <dir>/manifest.json. Throws rpl::Error: InputMissing (no directory / no manifest),
// InputCorrupt (not JSON, truncated, wrong version, bad field), InputInvalid (regions overlap).
Manifest read_manifest(const std::filesystem::path& dir);

// The file a region's snapshot goes to: "memory/before/r000012.zst".
std::string region_blob_file(uint64_t region_id, bool after);

// Every blob the manifest names, read and checksummed. Throws at the first damaged one (naming its file).
void verify_capture(const std::filesystem::path& dir, const Manifest& m);

// Total bytes of all regions (uncompressed).
uint64_t total_region_bytes(const Manifest& m);

}  // namespace rpl::capture
