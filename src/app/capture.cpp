#include "support/user_regex.hpp"
#include "app/capture.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/capture_sweep.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/libexec.hpp"
#include "support/log.hpp"
#include "support/temp_file.hpp"

namespace rpl::app {
namespace fs = std::filesystem;
namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// The capture goes into an empty (or new) directory: never mix with, or overwrite, what is there.
void prepare_output_dir(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      throw Error(ExitCode::OutputFailed, fmt::format("{} exists and is not a directory", dir.string()));
    if (!fs::is_empty(dir, ec))
      throw Error(ExitCode::OutputFailed,
                  fmt::format("{} is not empty; captures go into a new or empty directory (choose another -o)", dir.string()));
  }
  fs::create_directories(dir, ec);
  if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create {}: {}", dir.string(), ec.message()));
}

std::string runner_for(const std::string& platform) {
  if (platform == "cuda") return "rpl_replay_cuda";
  if (platform == "rocm") return "rpl_replay_hsa";
  throw Error(ExitCode::InputInvalid, fmt::format("captures of platform \"{}\" cannot be replayed", platform));
}

}  // namespace

CaptureResults run_capture(const CaptureOptions& o) {
  UserRegex check(o.kernel_regex, "--kernel");  // fails before the application starts
  if (o.argv.empty()) throw Error(ExitCode::Usage, "no application given");
  if (!find_executable(o.argv[0]))
    throw Error(ExitCode::ApplicationFailed, fmt::format("application {}: not found or not executable", o.argv[0]));
  const platform::Kind kind = o.platform ? *o.platform : platform::detect();
  const bool rocm = kind == platform::Kind::Rocm;
  if (rocm && o.all_kernels)
    throw Error(ExitCode::Usage, "--all-kernels is implemented for NVIDIA (CUDA) only; on ROCm capture one kernel at a time");
  // NVIDIA: CUPTI's injection entry point; AMD: ROCr's tools-library loader (HSA_TOOLS_LIB). Neither
  // recompiles, relinks or preloads the application.
  const char* library_name = rocm ? "librpl_hsa_capture.so" : "librpl_cuda_capture.so";
  const char* library_env = rocm ? "RPL_HSA_CAPTURE" : "RPL_CUDA_CAPTURE";
  std::string library;
  if (auto found = find_libexec(library_name, library_env)) library = *found;
  else
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("the capture library {} was not found in {} (it is built only where the {} are found); set {} "
                            "to its path",
                            library_name, libexec_locations(), rocm ? "HSA headers" : "CUDA toolkit", library_env));
  fs::path dir = fs::absolute(o.output_dir);
  prepare_output_dir(dir);

  ProcessSpec spec;
  spec.argv = o.argv;
  spec.env = {{rocm ? "HSA_TOOLS_LIB" : "CUDA_INJECTION64_PATH", library},
              {"RPL_CAPTURE_DIR", dir.string()},
              {"RPL_CAPTURE_KERNEL", o.kernel_regex},
              {"RPL_CAPTURE_DISPATCH", std::to_string(o.dispatch)},
              {"RPL_CAPTURE_COMMAND", nlohmann::json(o.argv).dump()}};
  // The cubin is copied when its module loads; lazily loaded modules would load inside the very launch.
  if (!rocm && !std::getenv("CUDA_MODULE_LOADING")) spec.env.emplace_back("CUDA_MODULE_LOADING", "EAGER");
  if (o.exit_after_capture) spec.env.emplace_back("RPL_CAPTURE_EXIT", "1");
  if (o.all_kernels) {
    spec.env.emplace_back("RPL_CAPTURE_ALL", "1");
    spec.env.emplace_back("RPL_CAPTURE_MAX_KERNELS", std::to_string(o.max_kernels));
  }
  if (o.debug) spec.env.emplace_back("RPL_CAPTURE_VERBOSE", "1");
  spec.stdout_to_stderr = true;  // stdout carries only our summary
  spec.timeout_s = o.timeout_s;
  if (o.all_kernels)
    log::info("capturing launch {} of every kernel matching /{}/ from {}{}", o.dispatch, o.kernel_regex, o.argv[0],
              o.max_kernels ? fmt::format(" (at most {})", o.max_kernels) : "");
  else
    log::info("capturing launch {} of the first kernel matching /{}/ from {}", o.dispatch, o.kernel_regex, o.argv[0]);

  CaptureResults out;
  out.dir = dir.string();
  out.process = run_process(spec);
  if (o.all_kernels) {
    auto entries = read_sweep_log(dir / capture::kSweepLogName);
    out.index = sweep_index(entries, {o.argv, o.kernel_regex, o.dispatch, o.max_kernels, out.process.describe()});
    std::string text = out.index.dump(2) + "\n";
    write_file_atomically((dir / capture::kSweepIndexName).string(),
                          [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
    if (out.index["summary"]["captured"].get<uint64_t>() == 0) {
      if (!out.process.ok() && entries.empty())
        throw Error(ExitCode::ApplicationFailed,
                    fmt::format("the application {} before any kernel was captured", out.process.describe()));
      throw Error(ExitCode::CaptureFailed,
                  fmt::format("no kernel captured into {} ({} distinct kernels seen; see {}){}", dir.string(),
                              entries.size(), (dir / capture::kSweepIndexName).string(),
                              out.process.ok() ? "" : fmt::format(" (the application {})", out.process.describe())));
    }
    if (!out.process.ok()) log::warn("the application {} during the sweep", out.process.describe());
    return out;
  }
  fs::path manifest = dir / capture::kManifestName;
  if (!fs::exists(manifest)) {
    std::string status = read_text(dir / "capture_status.txt");
    if (!out.process.ok() && status.empty())
      throw Error(ExitCode::ApplicationFailed,
                  fmt::format("the application {} before anything was captured", out.process.describe()));
    throw Error(ExitCode::CaptureFailed,
                fmt::format("no capture written to {}: {}{}", dir.string(),
                            status.empty() ? "the capture library reported nothing (was it loaded? does the application use this GPU runtime?)" : status,
                            out.process.ok() ? "" : fmt::format(" (the application {})", out.process.describe())));
  }
  if (!out.process.ok()) log::warn("the application {} after the capture was written", out.process.describe());
  out.manifest = capture::read_manifest(dir);
  capture::verify_capture(dir, out.manifest);
  return out;
}

std::string replay_runner_path(const std::string& platform) {
  const std::string runner_name = runner_for(platform);
  if (auto found = find_libexec(runner_name, "RPL_REPLAY_RUNNER")) return *found;
  throw Error(ExitCode::ProfilerFailed, fmt::format("the replay runner {} was not found in {}; set RPL_REPLAY_RUNNER to its path",
                                                    runner_name, libexec_locations()));
}

std::string replay_temporary_file(const std::string& stem) {
  // Where TMPDIR says, /tmp when it is unset.
  const fs::path tmp_dir = temporary_directory();
  std::string path = (tmp_dir / (stem + "-XXXXXX")).string();
  int fd = mkstemp(path.data());
  if (fd < 0) throw Error(ExitCode::OutputFailed, fmt::format("cannot create a temporary file under {}", tmp_dir.string()));
  close(fd);
  return path;
}

std::vector<std::string> replay_timing_args(const ReplayOptions& o) {
  return {"--cache", capture::to_string(o.cache), "--verify-replays", std::to_string(o.verify_replays), "--warmup-ms",
          fmt::format("{}", o.warmup_ms)};
}

bool replay_exit_documented(int exit_code) {
  return exit_code == 0 || exit_code == to_int(ExitCode::AddressRelocation) || exit_code == to_int(ExitCode::VerificationMismatch);
}

ExitCode replay_runner_error(int exit_code) {
  return exit_code >= 2 && exit_code <= 13 ? ExitCode(exit_code) : ExitCode::ProfilerFailed;
}

ReplayOutcome run_replay(const ReplayOptions& o) {
  // Every file of the capture is checked (paths inside the directory, zstd, sizes, checksums) before the
  // runner starts and touches the GPU.
  capture::Manifest m = capture::read_manifest(o.capture_dir);
  capture::verify_capture(o.capture_dir, m);
  if (!o.code_object.empty() && access(o.code_object.c_str(), R_OK) != 0)
    throw Error(ExitCode::InputMissing, fmt::format("--code-object {}: no such readable file", o.code_object));
  const std::string runner = replay_runner_path(m.platform);
  const std::string result_file = replay_temporary_file("rocm-perf-replay");

  ProcessSpec spec;
  spec.argv = {runner, capture::to_string(o.mode), "--capture-dir", o.capture_dir, "--result", result_file};
  if (o.mode == capture::ReplayMode::FullVm) {
    spec.argv.insert(spec.argv.end(), {"--iterations", std::to_string(o.iterations)});
    if (!o.recopy) spec.argv.push_back("--no-recopy");
    if (!o.code_object.empty()) spec.argv.insert(spec.argv.end(), {"--code-object", o.code_object});
    if (!o.dump_dir.empty()) spec.argv.insert(spec.argv.end(), {"--dump-dir", o.dump_dir});
    const std::vector<std::string> timing = replay_timing_args(o);
    spec.argv.insert(spec.argv.end(), timing.begin(), timing.end());
  }
  spec.stdout_to_stderr = true;
  spec.timeout_s = o.timeout_s;
  ProcessResult p = run_process(spec);
  std::string text = read_text(result_file);
  fs::remove(result_file);

  ReplayOutcome out;
  out.exit_code = p.signal ? to_int(ExitCode::ProfilerFailed) : p.exit_code;
  if (!text.empty()) out.document = nlohmann::json::parse(text, nullptr, false);
  if (replay_exit_documented(out.exit_code) && out.document.is_object()) return out;
  // The runner said why on stderr; pass its code on where it is one of ours.
  ExitCode code = !p.signal && !p.timed_out ? replay_runner_error(out.exit_code) : ExitCode::ProfilerFailed;
  throw Error(code, fmt::format("the replay runner {} {}", runner, p.describe()));
}

}  // namespace rpl::app
