#include "harness.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/analyze.hpp"
#include "report/analyze_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "testing/schema_check.hpp"

namespace rpl::fuzz {

namespace fs = std::filesystem;

namespace {

struct Scratch {
  std::string path;
  Scratch() {
    // RPL_FUZZ_SCRATCH: a parent folder chosen by the runner (fuzz/long_run.sh), which removes it at the end,
    // also for workers that libFuzzer killed before this destructor could run.
    const char* chosen = std::getenv("RPL_FUZZ_SCRATCH");
    const char* base = chosen && *chosen ? chosen
                       : fs::is_directory("/dev/shm") ? "/dev/shm"
                                                      : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    path = std::string(base) + "/rpl-fuzz-" + std::to_string(getpid());
    fs::create_directories(path);
    log::set_level(log::Level::Quiet);  // warnings on every input would drown libFuzzer's own output
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// RPL_SCHEMA_DIR in the environment overrides the source tree's schemas/ compiled in, so binaries staged
// onto another machine (fuzz/stage.sh) find the copy beside them.
const test::SchemaSet& schemas() {
  static const test::SchemaSet set = [] {
    const char* env = std::getenv("RPL_SCHEMA_DIR");
    const std::string dir = env && *env ? env : RPL_SCHEMA_DIR;
    try {
      return test::SchemaSet(dir);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz harness: cannot load the JSON schemas from %s (set RPL_SCHEMA_DIR): %s\n",
                   dir.c_str(), e.what());
      std::exit(2);
    }
  }();
  return set;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

const std::string& scratch_dir() {
  static Scratch s;
  return s.path;
}

void write_bytes(const std::string& path, const uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {  // a full scratch folder would otherwise turn every input into a quiet "bad input"
    std::fprintf(stderr, "fuzz harness: cannot write %s (scratch folder full?)\n", path.c_str());
    std::abort();
  }
}

void expect_only_rpl_errors(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error&) {
    // A documented exit code with a message: the expected answer to bad input.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FINDING: exception that is not rpl::Error (the CLI exits 1): %s\n", e.what());
    std::abort();
  }
}

void check_schema(const std::string& schema, const std::string& json_text, const std::string& what) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FINDING: %s is not valid JSON: %s\n", what.c_str(), e.what());
    std::abort();
  }
  std::string problem = schemas().validate(schema, doc);
  if (!problem.empty()) {
    std::fprintf(stderr, "FINDING: %s violates schemas/%s.schema.json: %s\n", what.c_str(), schema.c_str(),
                 problem.c_str());
    std::abort();
  }
}

void analyze_and_check(const std::string& database) {
  const std::string out = scratch_dir() + "/out";
  std::error_code ec;
  fs::remove_all(out, ec);
  bool ok = false;
  expect_only_rpl_errors([&] {
    app::AnalyzeOptions o;
    o.databases = {database};
    o.what_if = {analysis::parse_what_if(".=0.5")};
    o.per_dispatch_roofline = true;
    app::AnalyzeResults r = app::run_analyze(o);
    report::ReportOptions ro;
    ro.html = true;
    nlohmann::json profile = report::profile_document(r);
    const nlohmann::json analysis = report::analysis_document(r, ro);
    report::write_output_files(out, profile, &r, analysis, ro);
    (void)report::terminal_summary(r, analysis.at("findings"), ro);
    ok = true;
  });
  if (!ok) return;
  for (const char* name : {"profile", "dag", "analysis", "roofline"})
    check_schema(name, read_text(out + "/" + name + ".json"), std::string(name) + ".json");
  if (!fs::exists(out + "/report.html")) {
    std::fprintf(stderr, "FINDING: analyze succeeded without report.html\n");
    std::abort();
  }
}

}  // namespace rpl::fuzz
