// rpl_replay_hsa: the AMD replay runner that `rocm-perf replay` starts as a fresh process (so that nothing
// has mapped memory before the address reservation). Same internal interface as rpl_replay_cuda:
//   rpl_replay_hsa reserve-check|full-vm --capture-dir DIR --result FILE [--iterations N] [--no-recopy]
//                  [--code-object PATH] [--dump-dir DIR]
// Writes the replay document (schemas/replay.schema.json) to FILE whenever it got far enough to have one, logs
// on stderr, and exits with rocm-perf's exit codes: 8 no HSA runtime / no AMD GPU / runtime failure, 12 a
// range not reservable at its address, 13 verification mismatch, 2-7 bad arguments or capture.
// Environment: RPL_HSA_RUNTIME (the HSA runtime library to load), RPL_REPLAY_TIMEOUT_S (per dispatch, 120).
// UNVALIDATED ON AMD HARDWARE.
#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "collectors/amd/replay_runner/hsa_replay.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace {

constexpr const char* kUsage =
    "usage: rpl_replay_hsa reserve-check|full-vm --capture-dir DIR --result FILE [--iterations N] [--no-recopy] "
    "[--code-object PATH] [--dump-dir DIR]";

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "rpl_replay_hsa: %s\n%s\n", why.c_str(), kUsage);
  std::exit(rpl::to_int(rpl::ExitCode::Usage));
}

rpl::hsa_replay::ReplayOptions parse(int argc, char** argv, std::string& result_file) {
  rpl::hsa_replay::ReplayOptions o;
  if (argc < 2) usage("no mode");
  o.mode = argv[1];
  if (o.mode != "reserve-check" && o.mode != "full-vm") usage("unknown mode " + o.mode);
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--capture-dir") {
      o.capture_dir = value();
    } else if (arg == "--result") {
      result_file = value();
    } else if (arg == "--iterations") {
      const std::string v = value();
      char* end = nullptr;
      const unsigned long n = std::strtoul(v.c_str(), &end, 10);
      if (v.empty() || *end || v[0] == '-' || n == 0 || n > 1000000) usage("--iterations " + v + ": expected 1 to 1000000");
      o.iterations = static_cast<unsigned>(n);
    } else if (arg == "--no-recopy") {
      o.recopy = false;
    } else if (arg == "--code-object") {
      o.code_object = value();
    } else if (arg == "--dump-dir") {
      o.dump_dir = value();
    } else {
      usage("unknown argument " + arg);
    }
  }
  if (o.capture_dir.empty()) usage("--capture-dir is required");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rpl;
  std::string result_file;
  const hsa_replay::ReplayOptions options = parse(argc, argv, result_file);
  capture::ReplayReport report;
  report.mode = options.mode;
  report.runner = argv[0];
  int code = 0;
  try {
    hsa_replay::run_hsa_replay(options, report);
  } catch (const Error& e) {
    std::fprintf(stderr, "rpl_replay_hsa: %s\n", e.what());
    code = to_int(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpl_replay_hsa: internal error: %s\n", e.what());
    code = to_int(ExitCode::Internal);
  }
  // A document exists once the manifest was read (the kernel is known).
  if (!result_file.empty() && !report.kernel.mangled_name.empty()) {
    try {
      const std::string text = capture::to_json(report).dump(1);
      write_file_atomically(result_file, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
    } catch (const Error& e) {
      std::fprintf(stderr, "rpl_replay_hsa: %s\n", e.what());
      if (code == 0) code = to_int(e.code());
    }
  }
  return code;
}
