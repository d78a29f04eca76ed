// The full-vm flow both replay runners share (capture::run_full_vm), without a GPU: an in-memory device whose
// "kernel" sums in a different order on every launch (what split-K GEMMs and float atomics do), or writes a
// wrong value, or accumulates. Checks the verification verdict and exit code, the cache modes (what is
// restored, flushed and launched untimed), the replay document against schemas/replay.schema.json, and the
// terminal summary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <cstdlib>
#include <set>

#include "capture/manifest.hpp"
#include "capture/replay_report.hpp"
#include "capture/replay_runner.hpp"
#include "report/replay_summary.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::capture {
namespace {
using report::replay_summary_text;  // the summary is rendered by report/

namespace fs = std::filesystem;
constexpr std::size_t kRows = 32, kTerms = 256;

std::vector<std::byte> as_bytes(const std::vector<float>& v) {
  std::vector<std::byte> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<float> input_values() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> in(kRows * kTerms);
  for (float& x : in) x = d(rng);
  return in;
}

// out[r] = sum of in[r * kTerms ...], the terms added in an order that depends on `seed`.
std::vector<float> row_sums(const std::vector<float>& in, unsigned seed) {
  std::vector<float> out(kRows);
  std::mt19937 rng(seed);
  for (std::size_t r = 0; r < kRows; ++r) {
    std::vector<float> terms(in.begin() + r * kTerms, in.begin() + (r + 1) * kTerms);
    if (seed) std::shuffle(terms.begin(), terms.end(), rng);
    out[r] = std::accumulate(terms.begin(), terms.end(), 0.0f);
  }
  return out;
}

// Deterministic, Nondeterministic and Wrong accumulate into the output; Overwrites writes it without reading it.
enum class Kernel { Deterministic, Nondeterministic, Wrong, Overwrites };

// Region 0: input (read only), region 1: output (written).
class FakeDevice : public ReplayDevice {
 public:
  FakeDevice(const Manifest& m, Kernel kernel) : kernel_(kernel) {
    for (const Region& g : m.regions) memory_.push_back(pristine_.emplace_back(g.size));
  }
  void load(std::size_t region, const std::vector<std::byte>& bytes) { memory_[region] = pristine_[region] = bytes; }
  void restore(const std::vector<bool>& regions) override {
    for (std::size_t i = 0; i < regions.size(); ++i)
      if (regions[i]) memory_[i] = pristine_[i], ++restored[i];
  }
  double launch() override {
    ++launches;
    std::vector<float> in(kRows * kTerms), out(kRows);
    std::memcpy(in.data(), memory_[0].data(), memory_[0].size());
    std::memcpy(out.data(), memory_[1].data(), memory_[1].size());
    std::vector<float> sums = row_sums(in, kernel_ == Kernel::Deterministic || kernel_ == Kernel::Overwrites ? 0 : launches + 100);
    for (std::size_t r = 0; r < kRows; ++r)  // accumulates (the state matters) or overwrites
      out[r] = kernel_ == Kernel::Overwrites ? sums[r] + 0.5f : out[r] + sums[r];
    if (kernel_ == Kernel::Wrong) out[3] = 1000;
    memory_[1] = as_bytes(out);
    return 1000.0 * launches;
  }
  void flush_cache() override { ++flushes; }
  void flush_code() override { ++code_flushes; }
  bool can_flush_code() const override { return true; }
  bool restores_by_fill(std::size_t region) const override { return fill_regions.count(region) > 0; }
  void set_restore_ranges(std::size_t region, std::vector<ByteRange> ranges) override { restore_ranges[region] = ranges; }
  void touch(std::size_t region, uint64_t offset, uint64_t size) override { touched.push_back({region, {offset, size}}); }
  uint64_t cache_bytes() override { return cache; }
  void read_back(std::size_t region, uint64_t offset, std::byte* into, std::size_t size) override {
    std::memcpy(into, memory_[region].data() + offset, size);
  }

  unsigned launches = 0, flushes = 0, code_flushes = 0;
  std::map<std::size_t, unsigned> restored;
  std::set<std::size_t> fill_regions;
  std::map<std::size_t, std::vector<ByteRange>> restore_ranges;
  std::vector<RegionRange> touched;
  uint64_t cache = 0;

 private:
  Kernel kernel_;
  std::vector<std::vector<std::byte>> memory_, pristine_;
};

struct Fixture {
  test::TempDir tmp;
  Manifest m;
  Fixture() {
    const std::vector<float> in = input_values(), out_before(kRows, 0.5f);
    std::vector<float> out_after = row_sums(in, 1);  // the application's own run: yet another order
    for (float& x : out_after) x += 0.5f;
    m.platform = "cuda";
    m.producer = "test_replay_flow";
    m.created_utc = "2026-11-25T00:00:00Z";
    m.device_name = "fake";
    m.kernel = {"_Z8row_sumsPKfPf", "row_sums(float const*, float*)", ".*", 1};
    m.code_object = write_blob(tmp.path(), "code/kernel.cubin.zst", as_bytes({1}));
    const uint64_t pointers[2] = {0x7f00'0000'0000, 0x7f00'0010'0000};
    std::vector<std::byte> args(16);
    std::memcpy(args.data(), pointers, 16);
    m.arguments = write_blob(tmp.path(), "arguments.bin.zst", args);
    m.parameters = {{0, 8}, {8, 8}};
    Region input{0, 0x7f00'0000'0000, in.size() * 4, "device", "", {}, {}};
    input.before = write_blob(tmp.path(), region_blob_file(0, false), as_bytes(in));
    input.after = write_blob(tmp.path(), region_blob_file(0, true), as_bytes(in));
    Region output{1, 0x7f00'0010'0000, kRows * 4, "device", "", {}, {}};
    output.before = write_blob(tmp.path(), region_blob_file(1, false), as_bytes(out_before));
    output.after = write_blob(tmp.path(), region_blob_file(1, true), as_bytes(out_after));
    m.regions = {input, output};
    write_manifest(tmp.path(), m);
  }
  FakeDevice device(Kernel k) {
    FakeDevice d(m, k);
    for (std::size_t i = 0; i < m.regions.size(); ++i) d.load(i, read_blob(tmp.path(), *m.regions[i].before));
    return d;
  }
  ReplayReport run(FakeDevice& d, ReplayRunnerOptions o) {
    ReplayReport r;
    r.mode = ReplayMode::FullVm;
    r.kernel = m.kernel;
    r.platform = "cuda";
    r.restore_source = "device";
    r.iterations = o.iterations;
    r.recopy = o.recopy;
    run_full_vm(o, tmp.path(), m, d, r, std::chrono::steady_clock::now());
    return r;
  }
  // Writes the document and validates it with python3-jsonschema.
  std::string validate(const ReplayReport& r) {
    const std::string file = tmp.file("replay.json");
    std::ofstream(file) << to_json(r).dump(1);
    return test::validate_against_schema("replay", file);
  }
};

ReplayRunnerOptions options(unsigned iterations, const std::string& cache, unsigned replays = 2) {
  ReplayRunnerOptions o;
  o.mode = ReplayMode::FullVm;
  o.iterations = iterations;
  o.cache = *parse_cache_state(cache);
  o.knobs = replay_knobs_from_environment();  // as the runner reads them (ScopedEnv below sets some)
  o.verify_replays = replays;
  o.warmup_ms = 0;  // the launch counts below; WarmUpLaunchesArePreparedAsTimedOnesAndNotTimed tests the warm-up
  return o;
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char* n, const char* value) : name(n) { setenv(n, value, 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

TEST(ReplayFlow, ANondeterministicKernelIsToldApartFromAWrongOne) {
  Fixture f;
  FakeDevice d = f.device(Kernel::Nondeterministic);
  ReplayReport r = f.run(d, options(3, "warm"));
  const Verification& v = r.verification;
  EXPECT_EQ(v.status, "nondeterministic");
  EXPECT_EQ(v.replays, 2u);
  EXPECT_EQ(v.regions_compared, 2u);
  EXPECT_EQ(v.mismatched_bytes, 0u);
  ASSERT_EQ(v.differing.size(), 1u);
  EXPECT_EQ(v.differing[0].id, 1u) << "only the output varies";
  EXPECT_EQ(v.differing[0].verdict.element, Element::F32);
  EXPECT_FALSE(v.differing[0].verdict.element_inferred) << "float* in the kernel's signature";
  EXPECT_GT(v.differing[0].verdict.replay_spread.max_ulp, 0u);
  EXPECT_NO_THROW(throw_if_mismatch(r)) << "nondeterministic is exit 0";
  EXPECT_EQ(f.validate(r), "");
  const nlohmann::json doc = to_json(r);
  EXPECT_EQ(doc["cache"], "warm");
  EXPECT_EQ(doc["verification"]["status"], "nondeterministic");
  EXPECT_EQ(doc["verification"]["differing_regions"][0]["element"]["type"], "f32");
  const std::string text = replay_summary_text(doc);
  EXPECT_NE(text.find("nondeterministic"), std::string::npos) << text;
  EXPECT_NE(text.find("wall"), std::string::npos) << text;
  EXPECT_NE(text.find("cache warm"), std::string::npos) << text;
  EXPECT_NE(text.find("ULP (f32)"), std::string::npos) << text;

  FakeDevice wrong = f.device(Kernel::Wrong);
  ReplayReport w = f.run(wrong, options(1, "warm"));
  EXPECT_EQ(w.verification.status, "mismatch");
  EXPECT_EQ(w.verification.mismatched_bytes, 4u);
  try {
    throw_if_mismatch(w);
    ADD_FAILURE() << "a mismatch must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::VerificationMismatch);
  }
  EXPECT_EQ(f.validate(w), "");
  EXPECT_NE(replay_summary_text(to_json(w)).find("MISMATCH"), std::string::npos);
}

TEST(ReplayFlow, WithoutTypesInTheKernelNameTheElementTypeIsInferred) {
  Fixture f;
  f.m.kernel.demangled_name = f.m.kernel.mangled_name = "row_sums";  // extern "C"
  FakeDevice d = f.device(Kernel::Nondeterministic);
  ReplayReport r = f.run(d, options(1, "warm"));
  ASSERT_EQ(r.verification.differing.size(), 1u);
  EXPECT_EQ(r.verification.differing[0].verdict.element, Element::F32);
  EXPECT_TRUE(r.verification.differing[0].verdict.element_inferred);
  EXPECT_NE(replay_summary_text(to_json(r)).find("ULP (f32, inferred)"), std::string::npos);
}

TEST(ReplayFlow, ADeterministicKernelMatchesBitExactAfterEveryReplay) {
  Fixture f;
  // The capture's own run used order 1; a deterministic kernel must give exactly that: rewrite the after.
  const std::vector<float> in = input_values();
  std::vector<float> out = row_sums(in, 0);
  for (float& x : out) x += 0.5f;
  f.m.regions[1].after = write_blob(f.tmp.path(), region_blob_file(1, true), as_bytes(out));
  FakeDevice d = f.device(Kernel::Deterministic);
  ReplayReport r = f.run(d, options(2, "cold", 3));
  EXPECT_EQ(r.verification.status, "match");
  EXPECT_EQ(r.verification.replays, 3u);
  EXPECT_EQ(f.validate(r), "");
}

TEST(ReplayFlow, WarmFlushesThenRestoresAndReadsInWhatTheParametersPointTo) {
  Fixture f;
  ScopedEnv style("RPL_REPLAY_WARM", "inputs");  // the default, inputs-outputs, in the next test
  FakeDevice d = f.device(Kernel::Nondeterministic);
  d.cache = 1 << 20;
  ReplayReport r = f.run(d, options(4, "warm"));
  EXPECT_EQ(d.launches, 2u + 1u + 4u) << "2 verification replays, 1 untimed, 4 timed";
  EXPECT_EQ(d.flushes, 4u) << "before each timed launch";
  EXPECT_EQ(d.restored[0], 1u) << "the input is restored once, for the second verification replay only";
  EXPECT_EQ(d.restored[1], 1u + 1u + 4u) << "replay 2, before the untimed launch, before each timed one";
  ASSERT_EQ(d.restore_ranges.count(1), 1u);
  EXPECT_EQ(d.restore_ranges[1], (std::vector<ByteRange>{{0, kRows * 4}})) << "the pages the kernel writes";
  // Read in before each timed launch: the input the first parameter points to, not the output (restored).
  ASSERT_EQ(d.touched.size(), 4u);
  EXPECT_EQ(d.touched[0], (RegionRange{0, {0, kRows * kTerms * 4}}));
  EXPECT_EQ(r.gpu_time.per_iteration_ns.size(), 4u);
  EXPECT_EQ(r.gpu_time.min_ns, 4000.0) << "the timed launches are the last four";
  EXPECT_EQ(r.cache, CacheState::Warm);
  EXPECT_NE(r.cache_preparation.find("L2 flushed"), std::string::npos) << r.cache_preparation;
  EXPECT_NE(r.cache_preparation.find("32768 byte(s) in 1 range(s)"), std::string::npos) << r.cache_preparation;
  EXPECT_EQ(f.validate(r), "");
  EXPECT_NE(replay_summary_text(to_json(r)).find("caches   L2 flushed"), std::string::npos);
}

TEST(ReplayFlow, WarmUpLaunchesArePreparedAsTimedOnesAndNotTimed) {
  Fixture f;
  FakeDevice d = f.device(Kernel::Nondeterministic);
  d.cache = 1 << 20;
  ReplayRunnerOptions o = options(4, "cold");
  o.warmup_ms = 2;
  ReplayReport r = f.run(d, o);
  ASSERT_GE(r.warmup_launches, 1u);
  EXPECT_GE(r.warmup_wall_ns, 2e6) << "until the requested time had passed";
  EXPECT_EQ(d.launches, 2u + r.warmup_launches + 4u) << "2 verification replays, the warm-up, 4 timed";
  EXPECT_EQ(d.flushes, r.warmup_launches + 4u) << "each warm-up launch prepared as a timed one";
  ASSERT_EQ(r.gpu_time.per_iteration_ns.size(), 4u);
  EXPECT_EQ(r.gpu_time.min_ns, 1000.0 * (d.launches - 3)) << "the timed launches are the last four";
  EXPECT_EQ(f.validate(r), "");
  const nlohmann::json doc = to_json(r);
  EXPECT_EQ(doc["warmup"]["ms_requested"], 2.0);
  EXPECT_EQ(doc["warmup"]["launches"], r.warmup_launches);
  EXPECT_NE(replay_summary_text(doc).find("warm-up  "), std::string::npos) << replay_summary_text(doc);

  FakeDevice stateful = f.device(Kernel::Deterministic);
  o.recopy = false;
  ReplayReport s = f.run(stateful, o);
  EXPECT_EQ(s.warmup_launches, 0u) << "--no-recopy: a warm-up would change the state the timed launches start from";
  EXPECT_EQ(stateful.launches, 4u);
}

// A bad value of an environment setting of the flow is a usage error that names the setting and the value
// (replay_knobs_from_environment, called by options() as by the runner at start).
void expect_refused_setting(Fixture& f, const char* name, const char* value) {
  ScopedEnv bad(name, value);
  FakeDevice d = f.device(Kernel::Nondeterministic);
  try {
    f.run(d, options(1, "warm"));
    ADD_FAILURE() << name << "=" << value << " must be refused";
  } catch (const Error& x) {
    EXPECT_EQ(x.code(), ExitCode::Usage);
    EXPECT_NE(std::string(x.what()).find(std::string(name) + "=" + value), std::string::npos) << x.what();
  }
}

TEST(ReplayFlow, WarmInputsOutputsReadsInWhatTheKernelWritesToo) {
  Fixture f;  // the default style
  FakeDevice d = f.device(Kernel::Nondeterministic);
  d.cache = 1 << 20;
  ReplayReport r = f.run(d, options(2, "warm"));
  ASSERT_EQ(d.touched.size(), 2u * 2u) << "before each timed launch: the input and the output";
  EXPECT_EQ(d.touched[0], (RegionRange{0, {0, kRows * kTerms * 4}}));
  EXPECT_EQ(d.touched[1].region, 1u) << "the region the kernel writes";
  EXPECT_NE(r.cache_preparation.find("(what it writes too)"), std::string::npos) << r.cache_preparation;
  expect_refused_setting(f, "RPL_REPLAY_WARM", "tepid");
}

TEST(ReplayFlow, WarmBackToBackRestoresOnlyWhatTheKernelWritesAndFlushesNothing) {
  ScopedEnv env("RPL_REPLAY_WARM", "back-to-back");
  Fixture f;
  FakeDevice d = f.device(Kernel::Nondeterministic);
  d.cache = 1 << 20;
  ReplayReport r = f.run(d, options(4, "warm"));
  EXPECT_EQ(d.launches, 2u + 1u + 4u);
  EXPECT_EQ(d.flushes, 0u);
  EXPECT_TRUE(d.touched.empty());
  EXPECT_EQ(d.restored[1], 1u + 1u + 1u + 3u) << "replay 2, before the untimed launch, after it, between timed ones";
  EXPECT_NE(r.cache_preparation.find("back to back"), std::string::npos) << r.cache_preparation;
}

TEST(ReplayFlow, WrittenPagesAreWhereAnyResultDiffersFromTheBeforeState) {
  std::vector<std::byte> before(10000, std::byte{0}), a = before, b = before;
  a[5000] = std::byte{1};  // page 1
  b[9999] = std::byte{2};  // page 2, the short last one
  EXPECT_EQ(differing_pages(before, {a}), (std::vector<ByteRange>{{4096, 4096}}));
  EXPECT_EQ(differing_pages(before, {a, b}), (std::vector<ByteRange>{{4096, 10000 - 4096}})) << "adjacent pages merge";
  EXPECT_EQ(differing_pages(before, {{}, before}), (std::vector<ByteRange>{})) << "empty results are skipped";
}

TEST(ReplayFlow, TheReadSetFollowsPointersInTheArgumentsWithinBudget) {
  Manifest m;
  auto region = [](uint64_t id, uint64_t address, uint64_t size) {
    Region g{id, address, size, "device", "", {}, {}};
    g.before = BlobRef{};
    return g;
  };
  m.regions = {region(0, 0x1000, 0x1000), region(1, 0x10000, 0x4000), region(2, 0x20000, 0x100)};
  m.regions.push_back(Region{3, 0x30000, 0x100, "global", "sym", BlobRef{}, {}});  // placed by the loader
  const uint64_t args[] = {0x10800, 7, 0x1010, 0x30000, 0x10100, 0x99999};  // region 1 twice, then region 0
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(args), sizeof args);
  std::vector<std::vector<ByteRange>> excluded(4);
  excluded[1] = {{0x1000, 0x1000}};  // what the kernel writes in region 1
  auto set = parameter_read_set(m, bytes, excluded, 1 << 20);
  EXPECT_EQ(set, (std::vector<RegionRange>{{1, {0x100, 0xf00}}, {1, {0x2000, 0x2000}}, {0, {0x10, 0xff0}}}))
      << "from the lowest address named in each region to its end, less what is written, in argument order";
  set = parameter_read_set(m, bytes, excluded, 0x1000);
  EXPECT_EQ(set, (std::vector<RegionRange>{{1, {0x100, 0xf00}}, {1, {0x2000, 0x100}}})) << "cut at the budget";
}

// The deterministic after-snapshot (summation order 0) in place of the application's order-1 one.
void make_after_deterministic(Fixture& f) {
  std::vector<float> out = row_sums(input_values(), 0);
  for (float& x : out) x += 0.5f;
  f.m.regions[1].after = write_blob(f.tmp.path(), region_blob_file(1, true), as_bytes(out));
}

TEST(ReplayFlow, AKernelThatOnlyOverwritesItsOutputIsTimedBackToBackWithoutRestores) {
  Fixture f;
  make_after_deterministic(f);
  FakeDevice d = f.device(Kernel::Overwrites);
  ReplayReport r = f.run(d, options(4, "warm"));
  EXPECT_EQ(r.verification.status, "match");
  EXPECT_EQ(d.launches, 2u + 1u + 1u + 4u) << "2 verification replays, the relaunch on their output, 1 untimed, 4 timed";
  EXPECT_EQ(d.restored[1], 1u + 1u) << "for the second verification replay and once before the timing; none between launches";
  EXPECT_FALSE(r.restores.between_launches);
  EXPECT_NE(r.restores.reason.find("does not depend on what it overwrites"), std::string::npos) << r.restores.reason;
  EXPECT_EQ(f.validate(r), "");
  const std::string text = replay_summary_text(to_json(r));
  EXPECT_NE(text.find("restores none between timed launches"), std::string::npos) << text;
  std::vector<float> out(kRows), expected = row_sums(input_values(), 0);
  d.read_back(1, 0, reinterpret_cast<std::byte*>(out.data()), kRows * 4);
  for (std::size_t i = 0; i < kRows; ++i) EXPECT_FLOAT_EQ(out[i], expected[i] + 0.5f);
}

TEST(ReplayFlow, AKernelThatReadsWhatItWritesIsRestoredBeforeEveryTimedLaunch) {
  Fixture f;
  make_after_deterministic(f);
  FakeDevice d = f.device(Kernel::Deterministic);
  d.fill_regions = {1};
  ReplayReport r = f.run(d, options(3, "warm"));
  EXPECT_EQ(r.verification.status, "match");
  EXPECT_EQ(d.launches, 2u + 1u + 1u + 3u) << "the relaunch shows that the result depends on the output's contents";
  EXPECT_TRUE(r.restores.between_launches);
  EXPECT_NE(r.restores.reason.find("reads what it writes"), std::string::npos) << r.restores.reason;
  EXPECT_EQ(r.restores.regions, 1u);
  EXPECT_EQ(r.restores.bytes, kRows * 4);
  EXPECT_EQ(r.restores.filled_regions, 1u);
  EXPECT_EQ(r.restores.filled_bytes, kRows * 4);
  EXPECT_EQ(d.restored[1], 1u + 1u + 1u + 2u) << "replay 2, before the untimed launch, after it, between timed ones";
  EXPECT_EQ(f.validate(r), "");
  EXPECT_NE(replay_summary_text(to_json(r)).find("restores 1 region(s), 128 bytes, before each timed launch (1 by a fill)"),
            std::string::npos);
  // A nondeterministic kernel cannot show independence by a relaunch: restored, and said why.
  FakeDevice n = f.device(Kernel::Nondeterministic);
  ReplayReport rn = f.run(n, options(2, "warm"));
  EXPECT_TRUE(rn.restores.between_launches);
  EXPECT_NE(rn.restores.reason.find("not bit-exact"), std::string::npos) << rn.restores.reason;
}

TEST(ReplayFlow, ARepeatedWordIsFoundAcrossPiecesOfAnyLength) {
  auto word_of = [](const std::vector<uint8_t>& bytes, std::size_t piece) {
    RepeatedWord w;
    for (std::size_t at = 0; at < bytes.size(); at += piece)
      w.add(reinterpret_cast<const std::byte*>(bytes.data()) + at, std::min(piece, bytes.size() - at));
    return w.word();
  };
  std::vector<uint8_t> zeros(4096, 0), pattern;
  for (int i = 0; i < 1000; ++i) pattern.insert(pattern.end(), {0x00, 0x00, 0x80, 0x3f});  // 1.0f
  for (std::size_t piece : {1u, 3u, 4u, 7u, 4096u}) {
    EXPECT_EQ(word_of(zeros, piece), std::optional<uint32_t>(0u)) << piece;
    EXPECT_EQ(word_of(pattern, piece), std::optional<uint32_t>(0x3f800000u)) << piece;
  }
  std::vector<uint8_t> odd(4095, 0), broken = pattern;
  broken[2001] = 0x01;
  EXPECT_EQ(word_of(odd, 5), std::nullopt) << "not a whole number of words";
  EXPECT_EQ(word_of(broken, 5), std::nullopt);
  EXPECT_EQ(word_of({}, 5), std::nullopt) << "nothing seen";
}

TEST(ReplayFlow, ColdFlushesBeforeEveryTimedLaunchAndRunsNothingUntimed) {
  Fixture f;
  FakeDevice d = f.device(Kernel::Nondeterministic);
  ReplayReport r = f.run(d, options(5, "cold"));
  EXPECT_EQ(d.launches, 2u + 5u);
  EXPECT_EQ(d.flushes, 5u);
  EXPECT_EQ(d.code_flushes, 5u) << "the instruction caches too";
  EXPECT_NE(r.cache_preparation.find("instruction caches evicted"), std::string::npos) << r.cache_preparation;
  {
    ScopedEnv env("RPL_REPLAY_COLD", "data");
    FakeDevice l2_only = f.device(Kernel::Nondeterministic);
    f.run(l2_only, options(2, "cold"));
    EXPECT_EQ(l2_only.flushes, 2u);
    EXPECT_EQ(l2_only.code_flushes, 0u) << "RPL_REPLAY_COLD=data: L2 only";
  }
  EXPECT_EQ(r.cache, CacheState::Cold);
  EXPECT_EQ(f.validate(r), "");
  EXPECT_NE(replay_summary_text(to_json(r)).find("cache cold"), std::string::npos);
}

TEST(ReplayFlow, EveryTimedLaunchStartsFromTheCapturedState) {
  // The kernel accumulates into its output: without the restores the final state would hold several sums.
  Fixture f;
  FakeDevice d = f.device(Kernel::Deterministic);
  f.run(d, options(5, "warm"));
  std::vector<float> out(kRows), expected = row_sums(input_values(), 0);
  d.read_back(1, 0, reinterpret_cast<std::byte*>(out.data()), kRows * 4);
  for (std::size_t r = 0; r < kRows; ++r) EXPECT_FLOAT_EQ(out[r], expected[r] + 0.5f);
}

TEST(ReplayFlow, NoRecopyIsStatefulAndVerifiesOnlyASingleLaunch) {
  Fixture f;
  FakeDevice d = f.device(Kernel::Deterministic);
  ReplayRunnerOptions o = options(3, "warm");
  o.recopy = false;
  ReplayReport r = f.run(d, o);
  EXPECT_EQ(d.launches, 3u) << "no verification replays, no untimed launch";
  EXPECT_TRUE(d.restored.empty());
  EXPECT_EQ(r.verification.status, "skipped");
  FakeDevice one = f.device(Kernel::Wrong);
  o.iterations = 1;
  EXPECT_EQ(f.run(one, o).verification.status, "mismatch");
  EXPECT_EQ(f.run(one, o).verification.replays, 1u);
}

TEST(ReplayFlow, WithoutAfterSnapshotsNothingIsVerifiedAndNothingReplayedForIt) {
  Fixture f;
  for (Region& g : f.m.regions) g.after.reset();
  FakeDevice d = f.device(Kernel::Nondeterministic);
  ReplayReport r = f.run(d, options(2, "warm"));
  EXPECT_EQ(r.verification.status, "skipped");
  EXPECT_EQ(d.launches, 1u + 2u);
  EXPECT_EQ(d.restored[0], 2u) << "every region counts as written without an after-snapshot, input included: "
                                   "restored after the untimed launch and before the second timed one";
}

TEST(ReplayFlow, ZeroVerificationReplaysTimeOnlyAndSaySo) {
  // The optimizer's timing rounds: its equivalence gate has judged the results already.
  Fixture f;
  FakeDevice wrong = f.device(Kernel::Wrong);  // would be a mismatch if verified
  ReplayReport r = f.run(wrong, options(2, "warm", 0));
  EXPECT_EQ(r.verification.status, "skipped");
  EXPECT_NE(r.verification.reason.find("timing only"), std::string::npos) << r.verification.reason;
  EXPECT_EQ(wrong.launches, 1u + 2u) << "the untimed launch and the timed ones, no verification replay";
  EXPECT_EQ(f.validate(r), "");
  FakeDevice verified = f.device(Kernel::Wrong);
  EXPECT_EQ(f.run(verified, options(2, "warm", 1)).verification.status, "mismatch");
}

TEST(ReplayFlow, AnEmptyReplayOfARegionStandsForItsAfterSnapshot) {
  // read_results drops read-only regions that still equal their after-snapshot: verify_replays reads "empty" so.
  Fixture f;
  const std::vector<std::byte> after = read_blob(f.tmp.path(), *f.m.regions[1].after);
  std::vector<std::byte> other = after;
  other[0] ^= std::byte{1};  // the lowest bit of out[0]: one ULP
  std::vector<std::vector<std::vector<std::byte>>> replays = {{{}, {}}, {{}, after}};
  Verification v = verify_replays(f.tmp.path(), f.m, replays);
  EXPECT_EQ(v.status, "match");
  EXPECT_EQ(v.regions_compared, 2u);
  replays[1][1] = other;
  v = verify_replays(f.tmp.path(), f.m, replays);
  EXPECT_EQ(v.status, "nondeterministic") << "replay 1 equals the capture, replay 2 is one ULP off";
  EXPECT_EQ(v.nondeterministic_bytes, 1u);
}

TEST(ReplayFlow, WrittenRegionsAreThoseWhoseSnapshotsDiffer) {
  Fixture f;
  EXPECT_EQ(written_regions(f.m), (std::vector<bool>{false, true}));
  f.m.regions[0].after.reset();
  EXPECT_EQ(written_regions(f.m), (std::vector<bool>{true, true}));
}

// The runners' own knobs are parsed with the others, once, before any GPU work: good values reach the options,
// bad ones are refused naming the variable and its value (they used to fall back silently to the default).
TEST(ReplayFlow, RunnerKnobsAreParsedOnceAndBadValuesRefused) {
  {
    ReplayKnobs k = replay_knobs_from_environment();
    EXPECT_EQ(k.kernel_timeout_s, 120);
    EXPECT_EQ(k.reservation_alignment, 0u);
    EXPECT_TRUE(k.activity_timer);
  }
  {
    ScopedEnv t("RPL_REPLAY_TIMEOUT_S", "2.5"), a("RPL_REPLAY_RESERVE_ALIGN", "0x200000"), e("RPL_REPLAY_TIMER", "events");
    ReplayKnobs k = replay_knobs_from_environment();
    EXPECT_EQ(k.kernel_timeout_s, 2.5);
    EXPECT_EQ(k.reservation_alignment, uint64_t{2} << 20);
    EXPECT_FALSE(k.activity_timer);
  }
  Fixture f;
  expect_refused_setting(f, "RPL_REPLAY_TIMEOUT_S", "0");
  expect_refused_setting(f, "RPL_REPLAY_TIMEOUT_S", "ten");
  expect_refused_setting(f, "RPL_REPLAY_RESERVE_ALIGN", "3000000");  // not a power of two
  expect_refused_setting(f, "RPL_REPLAY_RESERVE_ALIGN", "-1");
  expect_refused_setting(f, "RPL_REPLAY_TIMER", "cupti");
}

}  // namespace
}  // namespace rpl::capture
