#include "capture/replay_runner.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "capture/blob.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::capture {
namespace {

[[noreturn]] void usage(const char* runner, const std::string& why) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s reserve-check|full-vm --capture-dir DIR --result FILE [--iterations N] [--no-recopy] "
               "[--code-object PATH] [--dump-dir DIR]\n",
               runner, why.c_str(), runner);
  std::exit(to_int(ExitCode::Usage));
}

}  // namespace

ReplayRunnerOptions parse_replay_runner_args(int argc, char** argv, const char* runner) {
  ReplayRunnerOptions o;
  if (argc < 2) usage(runner, "no mode");
  o.mode = argv[1];
  if (o.mode != "reserve-check" && o.mode != "full-vm") usage(runner, "unknown mode " + o.mode);
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(runner, arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--capture-dir") {
      o.capture_dir = value();
    } else if (arg == "--result") {
      o.result_file = value();
    } else if (arg == "--iterations") {
      const std::string v = value();
      char* end = nullptr;
      const unsigned long n = std::strtoul(v.c_str(), &end, 10);
      if (v.empty() || *end || v[0] == '-' || n == 0 || n > 1000000)
        usage(runner, "--iterations " + v + ": expected 1 to 1000000");
      o.iterations = static_cast<unsigned>(n);
    } else if (arg == "--no-recopy") {
      o.recopy = false;
    } else if (arg == "--code-object") {
      o.code_object = value();
    } else if (arg == "--dump-dir") {
      o.dump_dir = value();
    } else {
      usage(runner, "unknown argument " + arg);
    }
  }
  if (o.capture_dir.empty()) usage(runner, "--capture-dir is required");
  return o;
}

int run_replay_runner(const ReplayRunnerOptions& options, const char* runner, const std::string& argv0,
                      const std::function<void(ReplayReport&)>& replay) {
  ReplayReport report;
  report.mode = options.mode;
  report.runner = argv0;
  int code = 0;
  try {
    replay(report);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: %s\n", runner, e.what());
    code = to_int(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", runner, e.what());
    code = to_int(ExitCode::Internal);
  }
  // A document exists once the manifest was read (the kernel is known).
  if (!options.result_file.empty() && !report.kernel.mangled_name.empty()) {
    try {
      const std::string text = to_json(report).dump(1);
      write_file_atomically(options.result_file, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
    } catch (const Error& e) {
      std::fprintf(stderr, "%s: %s\n", runner, e.what());
      if (code == 0) code = to_int(e.code());
    }
  }
  return code;
}

Verification compare_with_after_snapshot(const std::filesystem::path& capture_dir, const Manifest& manifest,
                                         const ReadBack& read_back) {
  Verification v;
  std::vector<std::byte> replayed;
  for (std::size_t i = 0; i < manifest.regions.size(); ++i) {
    const Region& g = manifest.regions[i];
    if (!g.after) continue;
    RegionDifference diff{g.id, g.address, g.size, g.kind, g.symbol, 0, 0};
    uint64_t offset = 0;
    read_blob(capture_dir, *g.after, [&](const std::byte* expected, std::size_t n) {
      replayed.resize(n);
      read_back(i, offset, replayed.data(), n);
      if (std::memcmp(replayed.data(), expected, n) != 0)
        for (std::size_t k = 0; k < n; ++k)
          if (replayed[k] != expected[k] && diff.bytes_differing++ == 0) diff.first_difference = offset + k;
      offset += n;
    });
    ++v.regions_compared;
    v.bytes_compared += g.size;
    v.bytes_differing += diff.bytes_differing;
    if (diff.bytes_differing) v.differing.push_back(diff);
  }
  if (v.regions_compared == 0) {
    v.status = "skipped";
    v.reason = "the capture holds no after-snapshot";
    return v;
  }
  v.status = v.differing.empty() ? "match" : "mismatch";
  return v;
}

}  // namespace rpl::capture
