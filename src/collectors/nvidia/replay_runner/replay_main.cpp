// rpl_replay_cuda: the CUDA replay runner that `rocm-perf replay` starts as a fresh process (so that no CUDA
// allocation precedes the address reservation). Internal interface:
//   rpl_replay_cuda reserve-check|full-vm --capture-dir DIR --result FILE [--iterations N] [--no-recopy]
//                   [--code-object PATH] [--dump-dir DIR]
// Writes the replay document (schemas/replay.schema.json) to FILE whenever it got far enough to have one, logs
// on stderr, and exits with rocm-perf's exit codes (12 relocation, 13 verification mismatch, ...).
#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "collectors/nvidia/replay_runner/cuda_replay.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "rpl_replay_cuda: %s\nusage: rpl_replay_cuda reserve-check|full-vm --capture-dir DIR --result FILE "
                       "[--iterations N] [--no-recopy] [--code-object PATH] [--dump-dir DIR]\n", why.c_str());
  std::exit(rpl::to_int(rpl::ExitCode::Usage));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rpl;
  cuda_capture::ReplayOptions o;
  std::string result_file;
  if (argc < 2) usage("no mode");
  o.mode = argv[1];
  if (o.mode != "reserve-check" && o.mode != "full-vm") usage("unknown mode " + o.mode);
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--capture-dir") o.capture_dir = value();
    else if (a == "--result") result_file = value();
    else if (a == "--iterations") {
      std::string v = value();
      char* end = nullptr;
      unsigned long n = std::strtoul(v.c_str(), &end, 10);
      if (*end || n == 0 || n > 1000000) usage("--iterations " + v + ": expected 1 to 1000000");
      o.iterations = unsigned(n);
    } else if (a == "--no-recopy") o.recopy = false;
    else if (a == "--code-object") o.code_object = value();
    else if (a == "--dump-dir") o.dump_dir = value();
    else usage("unknown argument " + a);
  }
  if (o.capture_dir.empty()) usage("--capture-dir is required");

  capture::ReplayReport report;
  report.mode = o.mode;
  report.runner = argv[0];
  int code = 0;
  try {
    run_cuda_replay(o, report);
  } catch (const Error& e) {
    std::fprintf(stderr, "rpl_replay_cuda: %s\n", e.what());
    code = to_int(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpl_replay_cuda: internal error: %s\n", e.what());
    code = to_int(ExitCode::Internal);
  }
  // A document exists once the manifest was read (the kernel is known).
  if (!result_file.empty() && !report.kernel.mangled_name.empty()) {
    try {
      std::string text = capture::to_json(report).dump(1);
      write_file_atomically(result_file, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
    } catch (const Error& e) {
      std::fprintf(stderr, "rpl_replay_cuda: %s\n", e.what());
      if (code == 0) code = to_int(e.code());
    }
  }
  return code;
}
