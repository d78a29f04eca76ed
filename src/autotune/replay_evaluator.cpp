#include "autotune/replay_evaluator.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "app/capture.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

namespace rpl::autotune {
namespace fs = std::filesystem;

namespace {

std::vector<char> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

std::string compare_dumps(const std::string& reference_dir, const std::string& dir, double tolerance) {
  if (!fs::is_directory(reference_dir)) return "no reference dump in " + reference_dir;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(reference_dir))
    if (e.is_regular_file()) files.push_back(e.path().filename());
  std::sort(files.begin(), files.end());
  for (const auto& name : files) {
    const std::vector<char> a = read_bytes(fs::path(reference_dir) / name);
    if (!fs::exists(fs::path(dir) / name)) return fmt::format("region {} missing from the replay's dump", name.string());
    const std::vector<char> b = read_bytes(fs::path(dir) / name);
    if (a.size() != b.size()) return fmt::format("region {}: {} bytes, the original's {}", name.string(), b.size(), a.size());
    if (a == b) continue;
    if (tolerance <= 0) return fmt::format("region {} differs (bit-exact comparison)", name.string());
    std::size_t differing = 0, first = 0;
    const std::size_t n = a.size() / 4;
    for (std::size_t i = 0; i < n; ++i) {
      float x, y;
      std::memcpy(&y, a.data() + 4 * i, 4);
      std::memcpy(&x, b.data() + 4 * i, 4);
      const bool same = (std::isnan(x) && std::isnan(y)) || std::fabs(x - y) <= tolerance * (1.0 + std::fabs(y));
      if (!same && differing++ == 0) first = i;
    }
    for (std::size_t i = 4 * n; i < a.size(); ++i)
      if (a[i] != b[i]) ++differing;
    if (differing)
      return fmt::format("result differs from the original kernel's: region {}, {} of {} values beyond relative "
                         "tolerance {} (first at element {})", name.string(), differing, n, tolerance, first);
  }
  return "";
}

ReplayEvaluator::ReplayEvaluator(const std::string& compile_template, const SearchSpace& space,
                                 ReplayEvaluatorOptions options)
    : compile_(compile_template, space, "--compile-template", {"OUT", "SOURCE"}), options_(std::move(options)) {
  if (!fs::is_directory(options_.capture_dir))
    throw Error(ExitCode::InputMissing, fmt::format("--capture-dir {}: not a directory", options_.capture_dir));
  if (!fs::is_regular_file(options_.kernel_source))
    throw Error(ExitCode::InputMissing, fmt::format("--kernel-source {}: cannot be read", options_.kernel_source));
  if (compile_template.find("{OUT}") == std::string::npos)
    throw Error(ExitCode::Usage, fmt::format("--compile-template \"{}\" never writes {{OUT}}, the code object to replay",
                                             compile_template));
  reference_dir_ = (fs::path(options_.output_dir) / "reference").string();
}

void ReplayEvaluator::replay_reference() {
  fs::remove_all(reference_dir_);
  app::ReplayOptions ro;
  ro.capture_dir = options_.capture_dir;
  ro.iterations = 1;
  ro.dump_dir = reference_dir_;
  ro.timeout_s = options_.timeout_s;
  app::ReplayOutcome out = app::run_replay(ro);
  if (out.exit_code != 0)
    throw Error(static_cast<ExitCode>(out.exit_code),
                fmt::format("--capture-dir {}: the original kernel does not replay cleanly (verification {}), so "
                            "configurations cannot be checked against it", options_.capture_dir,
                            out.document.value("verification", nlohmann::json::object()).value("status", "?")));
  have_reference_ = true;
}

Outcome ReplayEvaluator::evaluate(const SearchSpace& space, ConfigView config, std::size_t sequence) {
  if (!have_reference_) replay_reference();
  const fs::path dir = fs::path(options_.output_dir) / "runs" / std::to_string(sequence);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string object = (dir / "kernel.cubin").string();
  ProcessSpec compile;
  compile.argv = compile_.expand(space, config, {{"OUT", object}, {"SOURCE", options_.kernel_source}});
  compile.stdout_file = (dir / "compile.out").string();
  compile.stderr_file = (dir / "compile.err").string();
  compile.timeout_s = options_.timeout_s;
  Outcome o;
  try {
    const ProcessResult r = run_process(compile);
    if (!r.ok() || !fs::exists(object)) {
      o.reason = fmt::format("compile failed ({}): {}", r.describe(), tail_of_file(*compile.stderr_file, 3));
      return o;
    }
    app::ReplayOptions ro;
    ro.capture_dir = options_.capture_dir;
    ro.iterations = options_.iterations;
    ro.code_object = object;
    ro.dump_dir = (dir / "dump").string();
    ro.timeout_s = options_.timeout_s;
    app::ReplayOutcome out = app::run_replay(ro);
    if (out.exit_code != 0 && out.exit_code != to_int(ExitCode::VerificationMismatch)) {
      o.reason = fmt::format("replay failed (exit {})", out.exit_code);
      return o;
    }
    const std::string differs = compare_dumps(reference_dir_, ro.dump_dir, options_.tolerance);
    if (!differs.empty()) {
      o.reason = differs;
      return o;
    }
    o.valid = true;
    o.objective = out.document.at("gpu_time_ns").at("median").get<double>() / 1e6;
  } catch (const Error& e) {
    o.reason = e.what();
    return o;
  }
  fs::remove_all(dir);  // kept only for invalid configurations
  return o;
}

nlohmann::ordered_json ReplayEvaluator::describe() const {
  return {{"kind", "replay"},          {"unit", "ms"},
          {"capture_dir", options_.capture_dir}, {"kernel_source", options_.kernel_source},
          {"compile_template", compile_.text()}, {"iterations", options_.iterations},
          {"tolerance", options_.tolerance}};
}

}  // namespace rpl::autotune
