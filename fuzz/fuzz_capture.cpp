// Capture directories: the manifest reader and the blob reader (zstd, sizes, checksums, paths), as
// `rocm-perf replay` checks a capture before it starts the runner. A fixed capture with real blobs is made
// once; the fuzzer's bytes replace manifest.json (first byte even) or one blob file (odd).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "capture/blob.hpp"
#include "capture/manifest.hpp"
#include "harness.hpp"

namespace {

namespace fs = std::filesystem;
using namespace rpl::capture;

struct Capture {
  fs::path dir;
  Manifest manifest;
  std::string manifest_bytes, blob_bytes;  // the files as made, put back after each input
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const Capture& capture_dir() {
  static const Capture c = [] {
    Capture out;
    out.dir = fs::path(rpl::fuzz::scratch_dir()) / "capture";
    fs::create_directories(out.dir);
    std::vector<std::byte> code(256, std::byte{0x7f}), args(32, std::byte{1}), memory(4096, std::byte{3});
    Manifest& m = out.manifest;
    m.platform = "cuda";
    m.producer = "fuzz";
    m.device_name = "fuzz device";
    m.device_arch = "sm_90";
    m.command = {"app"};
    m.kernel.mangled_name = "_Z4fuzzPf";
    m.kernel.demangled_name = "fuzz(float*)";
    m.kernel.match_regex = "fuzz";
    m.kernel.dispatch_index = 1;
    m.code_object_format = "cubin";
    m.code_object = write_blob(out.dir, "code.zst", code);
    m.arguments = write_blob(out.dir, "args.zst", args);
    m.parameters = {Parameter{0, 8}, Parameter{8, 8}};
    m.geometry.grid = {1, 1, 1};
    m.geometry.block = {32, 1, 1};
    Region r;
    r.id = 1;
    r.address = 0x7f0000000000;
    r.size = memory.size();
    r.kind = "device";
    r.before = write_blob(out.dir, region_blob_file(1, false), memory);
    m.regions.push_back(r);
    write_manifest(out.dir, m);
    out.manifest_bytes = read_file(out.dir / "manifest.json");
    out.blob_bytes = read_file(out.dir / r.before->file);
    if (const char* seed = std::getenv("RPL_FUZZ_WRITE_SEED")) fs::copy_file(out.dir / "manifest.json", seed, fs::copy_options::overwrite_existing);
    return out;
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Capture& c = capture_dir();
  if (size == 0) return 0;
  const bool manifest = data[0] % 2 == 0;
  const fs::path target = manifest ? c.dir / "manifest.json" : c.dir / c.manifest.regions[0].before->file;
  rpl::fuzz::write_bytes(target.string(), data + 1, size - 1);
  rpl::fuzz::expect_only_rpl_errors([&] {
    Manifest m = read_manifest(c.dir);
    verify_capture(c.dir, m);
    rpl::fuzz::check_schema("capture-manifest", to_json(m).dump(), "manifest (re-encoded)");
  });
  // Restore for the next input (the bytes made at start-up: no re-encoding or compression per input).
  const std::string& original = manifest ? c.manifest_bytes : c.blob_bytes;
  rpl::fuzz::write_bytes(target.string(), reinterpret_cast<const uint8_t*>(original.data()), original.size());
  return 0;
}
