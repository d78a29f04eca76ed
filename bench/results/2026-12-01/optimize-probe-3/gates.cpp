// Standalone driver: static gates (toolkit and stub headers) and binary gates (nvcc sm_90), as test_optimize_corpus does.
// Usage: gates APP_PATH CANDIDATE_PATH KERNEL INCLUDE_DIR
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include "collectors/code_object_facts.hpp"
#include "optimize/binary_gates.hpp"
#include "optimize/source_model.hpp"
#include "optimize/static_gates.hpp"
namespace fs = std::filesystem;
using namespace rpl::optimize;
static std::string slurp(const fs::path& p) { std::ifstream in(p); std::stringstream ss; ss << in.rdbuf(); return ss.str(); }
static rpl::collectors::CodeObjectFacts cubin(const fs::path& src, const std::string& inc, const fs::path& outdir, const std::string& tag) {
  fs::path co = outdir / (tag + ".cubin");
  fs::path keep = outdir / (tag + ".keep");
  fs::create_directories(keep);
  std::string cmd = "nice nvcc -cubin -arch=sm_90 -O3 --keep --keep-dir " + keep.string() + " -I" + inc + " -o " + co.string() + " " +
                    src.string() + " >" + co.string() + ".log 2>&1";
  if (std::system(cmd.c_str()) != 0) { std::cout << "COMPILE FAILED " << tag << "\n" << slurp(co.string() + ".log"); std::exit(3); }
  std::string ptx;
  for (const auto& e : fs::directory_iterator(keep)) if (e.path().extension() == ".ptx") ptx = e.path().string();
  return rpl::collectors::read_code_object_facts(co.string(), ptx);
}
int main(int argc, char** argv) {
  if (argc < 5) { std::cerr << "usage\n"; return 2; }
  fs::path app = argv[1], cand = argv[2]; std::string kernel = argv[3], inc = argv[4];
  bool all_pass = true;
  for (const char* headers : {"toolkit", "stubs"}) {
    if (std::string(headers) == "stubs") setenv("RPL_OPTIMIZE_HEADERS", "stubs", 1);
    SourceModel original = parse_source(app.string(), slurp(app));
    SourceModel candidate = parse_source(app.string(), slurp(cand));
    StaticVerdict v = check_static_gates(original, candidate, kernel);
    std::cout << "STATIC[" << original.headers << "/" << candidate.headers << "] " << (v.passed ? "PASS" : "FAIL") << " gate=" << v.gate
              << " reason=" << v.reason << "\n  evidence=" << v.evidence.dump() << "\n";
    if (!candidate.errors.empty()) std::cout << "  candidate parser errors: " << candidate.errors.size() << " first: " << candidate.errors.front() << "\n";
    all_pass = all_pass && v.passed;
    unsetenv("RPL_OPTIMIZE_HEADERS");
  }
  fs::path outdir = fs::path("/tmp/optprobe3/out") / cand.stem();
  fs::create_directories(outdir);
  auto o = cubin(app, inc, outdir, "orig");
  auto c = cubin(cand, inc, outdir, "cand");
  StaticVerdict b = check_binary_gates(o, c);
  std::cout << "BINARY " << (b.passed ? "PASS" : "FAIL") << " gate=" << b.gate << " reason=" << b.reason << "\n  evidence=" << b.evidence.dump() << "\n";
  all_pass = all_pass && b.passed;
  std::cout << (all_pass ? "OVERALL ADMITTED" : "OVERALL REJECTED") << "\n";
  return all_pass ? 0 : 1;
}
