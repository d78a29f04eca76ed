#include "capture/manifest.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "support/atomic_file.hpp"
#include "support/checked_math.hpp"
#include "support/errors.hpp"
#include "support/input_file.hpp"

namespace rpl::capture {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

json blob_json(const BlobRef& b) {
  return {{"file", b.file}, {"size", b.size}, {"stored_size", b.stored_size}, {"xxh64", to_hex(b.xxh64)},
          {"encoding", "zstd"}};
}

json attribute_json(const Attribute& a, bool raw) {
  json j{{"id", a.id}, {"name", a.name}};
  if (raw) j["value_hex"] = a.value_hex;
  else j["value"] = a.value;
  return j;
}

// Field access that names the manifest and the field's path in every error.
class Reader {
 public:
  explicit Reader(std::string what) : what_(std::move(what)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw Error(ExitCode::InputCorrupt, fmt::format("capture manifest {}: {}: {}", what_, path, why));
  }
  const json& field(const json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) fail(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(path + "." + key, "missing");
    return *it;
  }
  std::string str(const json& obj, const std::string& path, const char* key) const {
    const json& v = field(obj, path, key);
    if (!v.is_string()) fail(path + "." + key, "expected a string");
    return v.get<std::string>();
  }
  uint64_t u64(const json& obj, const std::string& path, const char* key) const {
    const json& v = field(obj, path, key);
    if (!v.is_number_unsigned()) fail(path + "." + key, "expected a non-negative integer");
    return v.get<uint64_t>();
  }
  int64_t i64(const json& obj, const std::string& path, const char* key) const {
    const json& v = field(obj, path, key);
    if (!v.is_number_integer()) fail(path + "." + key, "expected an integer");
    return v.get<int64_t>();
  }
  uint64_t hex(const json& obj, const std::string& path, const char* key) const {
    std::string s = str(obj, path, key);
    try {
      return from_hex(s);
    } catch (const std::invalid_argument&) {
      fail(path + "." + key, fmt::format("\"{}\" is not a hex number like 0x1f", s));
    }
  }
  const json& array(const json& obj, const std::string& path, const char* key) const {
    const json& v = field(obj, path, key);
    if (!v.is_array()) fail(path + "." + key, "expected an array");
    return v;
  }
  BlobRef blob(const json& obj, const std::string& path, const char* key) const {
    const json& b = field(obj, path, key);
    std::string p = path + "." + key;
    if (str(b, p, "encoding") != "zstd") fail(p + ".encoding", "only zstd is supported");
    return BlobRef{str(b, p, "file"), u64(b, p, "size"), u64(b, p, "stored_size"), hex(b, p, "xxh64")};
  }
  std::array<uint32_t, 3> dim3(const json& obj, const std::string& path, const char* key) const {
    const json& a = array(obj, path, key);
    if (a.size() != 3) fail(path + "." + key, "expected 3 numbers");
    std::array<uint32_t, 3> d{};
    for (int i = 0; i < 3; ++i) {
      if (!a[i].is_number_unsigned() || a[i].get<uint64_t>() == 0 || a[i].get<uint64_t>() > UINT32_MAX)
        fail(fmt::format("{}.{}[{}]", path, key, i), "expected a positive 32-bit integer");
      d[i] = a[i].get<uint32_t>();
    }
    return d;
  }
  std::vector<Attribute> attributes(const json& obj, const std::string& path, const char* key, bool raw) const {
    std::vector<Attribute> out;
    const json& arr = array(obj, path, key);
    for (std::size_t i = 0; i < arr.size(); ++i) {
      std::string p = fmt::format("{}.{}[{}]", path, key, i);
      Attribute a;
      a.id = i64(arr[i], p, "id");
      a.name = str(arr[i], p, "name");
      if (raw) a.value_hex = str(arr[i], p, "value_hex");
      else a.value = i64(arr[i], p, "value");
      out.push_back(std::move(a));
    }
    return out;
  }

 private:
  std::string what_;
};

}  // namespace

std::string region_blob_file(uint64_t region_id, bool after) {
  return fmt::format("memory/{}/r{:06d}.zst", after ? "after" : "before", region_id);
}

json to_json(const Manifest& m) {
  json regions = json::array();
  for (const Region& r : m.regions) {
    json j{{"id", r.id}, {"address", to_hex(r.address)}, {"size", r.size}, {"kind", r.kind}};
    if (!r.symbol.empty()) j["symbol"] = r.symbol;
    if (r.before) j["before"] = blob_json(*r.before);
    if (r.after) j["after"] = blob_json(*r.after);
    regions.push_back(std::move(j));
  }
  json params = json::array();
  for (const Parameter& p : m.parameters) params.push_back({{"offset", p.offset}, {"size", p.size}});
  json launch_attrs = json::array(), function_attrs = json::array();
  for (const Attribute& a : m.launch_attributes) launch_attrs.push_back(attribute_json(a, true));
  for (const Attribute& a : m.function_attributes) function_attrs.push_back(attribute_json(a, false));
  return {
      {"schema_version", m.schema_version},
      {"format", "rocm-perf-capture"},
      {"platform", m.platform},
      {"producer", m.producer},
      {"created_utc", m.created_utc},
      {"device", {{"name", m.device_name}, {"arch", m.device_arch}, {"ordinal", m.device_ordinal}}},
      {"application", {{"command", m.command}, {"pid", m.pid}}},
      {"kernel",
       {{"mangled_name", m.kernel.mangled_name},
        {"demangled_name", m.kernel.demangled_name},
        {"match_regex", m.kernel.match_regex},
        {"dispatch_index", m.kernel.dispatch_index}}},
      {"code_object", {{"format", m.code_object_format}, {"blob", blob_json(m.code_object)}}},
      {"arguments", {{"blob", blob_json(m.arguments)}, {"parameters", params}}},
      {"geometry",
       {{"grid", m.geometry.grid}, {"block", m.geometry.block}, {"dynamic_shared_bytes", m.geometry.dynamic_shared_bytes}}},
      {"launch_attributes", launch_attrs},
      {"function_attributes", function_attrs},
      {"regions", regions},
      {"vendor", m.vendor},
  };
}

Manifest manifest_from_json(const json& j, const std::string& what) {
  Reader r(what);
  Manifest m;
  m.schema_version = r.str(j, "$", "schema_version");
  if (m.schema_version != kSchemaVersion)
    r.fail("$.schema_version", fmt::format("version {} is not supported (this rocm-perf reads {})", m.schema_version,
                                           kSchemaVersion));
  if (r.str(j, "$", "format") != "rocm-perf-capture") r.fail("$.format", "not a rocm-perf capture");
  m.platform = r.str(j, "$", "platform");
  if (m.platform != "cuda" && m.platform != "rocm") r.fail("$.platform", "expected \"cuda\" or \"rocm\"");
  m.producer = r.str(j, "$", "producer");
  m.created_utc = r.str(j, "$", "created_utc");
  const json& dev = r.field(j, "$", "device");
  m.device_name = r.str(dev, "$.device", "name");
  m.device_arch = r.str(dev, "$.device", "arch");
  const int64_t ordinal = r.i64(dev, "$.device", "ordinal");
  if (ordinal < 0 || ordinal > INT32_MAX) r.fail("$.device.ordinal", "expected a device index (0 or more)");
  m.device_ordinal = int(ordinal);
  const json& app = r.field(j, "$", "application");
  for (const json& c : r.array(app, "$.application", "command")) {
    if (!c.is_string()) r.fail("$.application.command", "expected strings");
    m.command.push_back(c.get<std::string>());
  }
  m.pid = r.i64(app, "$.application", "pid");
  const json& k = r.field(j, "$", "kernel");
  m.kernel.mangled_name = r.str(k, "$.kernel", "mangled_name");
  if (m.kernel.mangled_name.empty()) r.fail("$.kernel.mangled_name", "empty");
  m.kernel.demangled_name = r.str(k, "$.kernel", "demangled_name");
  m.kernel.match_regex = r.str(k, "$.kernel", "match_regex");
  m.kernel.dispatch_index = r.u64(k, "$.kernel", "dispatch_index");
  if (m.kernel.dispatch_index == 0) r.fail("$.kernel.dispatch_index", "launches are counted from 1");
  const json& co = r.field(j, "$", "code_object");
  m.code_object_format = r.str(co, "$.code_object", "format");
  // What the schema allows is what a reader accepts (found by fuzz/fuzz_capture).
  if (m.code_object_format != "cubin" && m.code_object_format != "hsaco")
    r.fail("$.code_object.format", "expected \"cubin\" or \"hsaco\"");
  m.code_object = r.blob(co, "$.code_object", "blob");
  const json& args = r.field(j, "$", "arguments");
  m.arguments = r.blob(args, "$.arguments", "blob");
  const json& params = r.array(args, "$.arguments", "parameters");
  for (std::size_t i = 0; i < params.size(); ++i) {
    std::string p = fmt::format("$.arguments.parameters[{}]", i);
    Parameter prm{r.u64(params[i], p, "offset"), r.u64(params[i], p, "size")};
    // Overflow-safe: offset 2^64-1 with size 2 must not wrap around into range.
    if (!range_within(prm.offset, prm.size, m.arguments.size)) r.fail(p, "lies outside the argument buffer");
    m.parameters.push_back(prm);
  }
  const json& g = r.field(j, "$", "geometry");
  m.geometry.grid = r.dim3(g, "$.geometry", "grid");
  m.geometry.block = r.dim3(g, "$.geometry", "block");
  uint64_t smem = r.u64(g, "$.geometry", "dynamic_shared_bytes");
  if (smem > UINT32_MAX) r.fail("$.geometry.dynamic_shared_bytes", "too large");
  m.geometry.dynamic_shared_bytes = uint32_t(smem);
  m.launch_attributes = r.attributes(j, "$", "launch_attributes", true);
  m.function_attributes = r.attributes(j, "$", "function_attributes", false);
  const json& regions = r.array(j, "$", "regions");
  m.regions.reserve(regions.size());
  for (std::size_t i = 0; i < regions.size(); ++i) {
    std::string p = fmt::format("$.regions[{}]", i);
    const json& rj = regions[i];
    Region reg;
    reg.id = r.u64(rj, p, "id");
    reg.address = r.hex(rj, p, "address");
    reg.size = r.u64(rj, p, "size");
    reg.kind = r.str(rj, p, "kind");
    if (rj.contains("symbol")) reg.symbol = r.str(rj, p, "symbol");
    if (rj.contains("before")) reg.before = r.blob(rj, p, "before");
    if (rj.contains("after")) reg.after = r.blob(rj, p, "after");
    if (reg.size == 0) r.fail(p + ".size", "a region of 0 bytes");
    if (reg.address + reg.size < reg.address) r.fail(p, "wraps around the address space");
    for (const auto* b : {&reg.before, &reg.after})
      if (*b && (*b)->size != reg.size) r.fail(p, "its snapshot's size differs from the region's");
    m.regions.push_back(std::move(reg));
  }
  std::sort(m.regions.begin(), m.regions.end(), [](const Region& a, const Region& b) { return a.address < b.address; });
  for (std::size_t i = 1; i < m.regions.size(); ++i) {
    const Region &a = m.regions[i - 1], &b = m.regions[i];
    if (a.address + a.size > b.address)
      throw Error(ExitCode::InputInvalid,
                  fmt::format("capture manifest {}: regions {} ({}, {} bytes) and {} ({}) overlap", what, a.id,
                              to_hex(a.address), a.size, b.id, to_hex(b.address)));
  }
  if (j.contains("vendor")) {
    if (!j["vendor"].is_object()) r.fail("$.vendor", "expected an object");
    m.vendor = j["vendor"];
  }
  return m;
}

void write_manifest(const fs::path& dir, const Manifest& m) {
  std::string text = to_json(m).dump(1);
  write_file_atomically((dir / kManifestName).string(), [&](std::FILE* f) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fputc('\n', f);
  });
}

Manifest read_manifest(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error(ExitCode::InputMissing, fmt::format("capture directory {} does not exist", dir.string()));
  fs::path path = dir / kManifestName;
  if (!fs::exists(path, ec))
    throw Error(ExitCode::InputMissing,
                fmt::format("{} is missing: {} is not a capture directory (made by rocm-perf capture)", path.string(),
                            dir.string()));
  const std::string text = read_input_file(path.string(), "capture manifest", 64 << 20);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number beyond double's range
    throw Error(ExitCode::InputCorrupt,
                fmt::format("capture manifest {} is not valid JSON (truncated or damaged?): {}", path.string(), e.what()));
  }
  return manifest_from_json(j, path.string());
}

void verify_capture(const fs::path& dir, const Manifest& m) {
  verify_blob(dir, m.code_object);
  verify_blob(dir, m.arguments);
  for (const Region& r : m.regions) {
    if (r.before) verify_blob(dir, *r.before);
    if (r.after) verify_blob(dir, *r.after);
  }
}

uint64_t total_region_bytes(const Manifest& m) {
  uint64_t total = 0;
  for (const Region& r : m.regions) total += r.size;
  return total;
}

}  // namespace rpl::capture
