// The GPU suite's inputs, checked without a GPU: every naive kernel parses and gets unroll candidates that pass
// the static gates; every hostile candidate whose expected gate is static (signature, structure) is rejected by
// exactly that gate, and every other one passes the static gates (so it reaches the GPU gate it is meant for).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "optimize/source_model.hpp"
#include "optimize/static_gates.hpp"
#include "optimize/unroll_proposer.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::optimize {
namespace {
namespace fs = std::filesystem;

// The shared test helper (testing/cli.hpp) reads the file.
std::string slurp(const fs::path& p) { return rpl::test::read_file(p.string()); }

TEST(OptimizeBench, EveryNaiveKernelParsesAndItsUnrollCandidatesPassTheStaticGates) {
  fs::path dir = fs::path(RPL_SOURCE_DIR) / "bench" / "optimize" / "naive";
  int kernels = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".cu") continue;
    SourceModel m = parse_source(e.path().string(), slurp(e.path()));
    ASSERT_EQ(m.kernels.size(), 1u) << e.path();
    const KernelInfo& k = m.kernels.front();
    EXPECT_TRUE(k.errors.empty()) << e.path() << ": " << (k.errors.empty() ? "" : k.errors.front());
    std::vector<Candidate> c = unroll_candidates(m, k.name);
    EXPECT_GE(c.size(), 7u) << e.path();
    for (std::size_t i = 0; i < c.size() && i < 2; ++i) {  // the suite runs --max-candidates 2
      StaticVerdict v = check_static_gates(m, parse_source(e.path().string(), c[i].source_text), k.name);
      EXPECT_TRUE(v.passed) << e.path() << " " << c[i].id << ": " << v.reason;
    }
    ++kernels;
  }
  EXPECT_EQ(kernels, 8);
}

TEST(OptimizeBench, HostileCandidatesMeetTheirStaticGate) {
  test::TempDir tmp;
  fs::path script = fs::path(RPL_SOURCE_DIR) / "bench" / "optimize" / "hostile" / "make_candidates.py";
  std::string cmd = "python3 " + script.string() + " " + tmp.path().string() + " >/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  fs::path app = fs::path(RPL_SOURCE_DIR) / "bench" / "optimize" / "hostile" / "app.cu";
  SourceModel original = parse_source(app.string(), slurp(app));
  std::ifstream cases(tmp.path() / "cases.tsv");
  int n = 0;
  for (std::string line; std::getline(cases, line);) {
    std::stringstream ss(line);
    std::string name, kernel, gate, file;
    std::getline(ss, name, '\t');
    std::getline(ss, kernel, '\t');
    std::getline(ss, gate, '\t');
    std::getline(ss, file, '\t');
    StaticVerdict v = check_static_gates(original, parse_source(app.string(), slurp(file)), kernel);
    if (gate == "signature" || gate == "structure") {
      EXPECT_FALSE(v.passed) << name;
      EXPECT_EQ(v.gate, gate) << name << ": " << v.reason;
    } else {
      EXPECT_TRUE(v.passed) << name << " should reach the " << gate << " gate: " << v.reason;
    }
    ++n;
  }
  EXPECT_GE(n, 8);
}

}  // namespace
}  // namespace rpl::optimize
