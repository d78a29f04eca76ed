// analysis::pair_counter_samples, the one pairing rule every counter source uses: what the samples say
// about their names and processes decides the lookup, the launch order decides the pairing. The ncu and
// rocprofv3 importers are exercised in test_ncu_csv.cpp and test_profile_counters.cpp; here the samples are
// written by hand.
#include <gtest/gtest.h>

#include "analysis/counter_pairing.hpp"
#include "testing/in_memory_trace.hpp"

using rpl::CounterInstance;
using rpl::CounterKernelNames;
using rpl::CounterProcesses;
using rpl::CounterSamples;
using rpl::analysis::pair_counter_samples;

namespace {

// One process (pid 7) with `launches` dispatches of "void k<float>(float*)" (mangled _Z1kIfEvPT_), 256-wide
// blocks of 1024 work-items.
rpl::test::InMemoryTrace trace_of(int launches) {
  rpl::test::InMemoryTrace t;
  t.add_process(7);
  const auto sym = t.add_symbol("void k<float>(float*)", "_Z1kIfEvPT_");
  for (int i = 0; i < launches; ++i) t.add_dispatch(sym, 1000 * (i + 1), 1000 * (i + 1) + 500, rpl::kNoIndex, 256)->grid[0] = 1024;
  return t;
}

CounterInstance instance(const std::string& kernel, double value, int64_t process = 7) {
  CounterInstance i;
  i.kernel = kernel;
  i.process = process;
  i.values = {{0, value}};
  return i;
}

CounterSamples samples_of(CounterKernelNames names, std::vector<CounterInstance> instances) {
  CounterSamples s;
  s.tool = "tool";
  s.kernel_names = names;
  s.processes = CounterProcesses::ById;
  s.counters = {"c"};
  s.instances = std::move(instances);
  return s;
}

bool any_contains(const std::vector<std::string>& v, const std::string& what) {
  for (const auto& s : v)
    if (s.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(CounterPairing, PrintedNamesFallBackToTheBaseNameDisplayNamesDoNot) {
  const auto t = trace_of(2);
  // "k<float>" is neither the mangled nor the display name; as a profiler's print it is the base name.
  auto p = pair_counter_samples(t.trace, samples_of(CounterKernelNames::MangledOrDemangled,
                                                    {instance("_Z1kIfEvPT_", 1), instance("void k<float>(T1 *)", 2)}));
  EXPECT_EQ(p.matched_instances, 2u);
  ASSERT_EQ(p.values.size(), 2u);
  EXPECT_EQ(p.values[1].dispatch, 1u);  // the second launch
  EXPECT_EQ(p.values[1].value, 2.0);
  p = pair_counter_samples(t.trace, samples_of(CounterKernelNames::DisplayName,
                                               {instance("void k<float>(float*)", 1), instance("void k<float>(T1 *)", 2)}));
  EXPECT_EQ(p.matched_instances, 1u);
  EXPECT_EQ(p.unmatched_instances, 1u);
  EXPECT_TRUE(any_contains(p.warnings, "'void k<float>(T1 *)' matches no kernel")) << p.warnings.size();
}

TEST(CounterPairing, AnUncountedLaunchKeepsItsPlaceAndIsNoInstance) {
  const auto t = trace_of(3);
  CounterInstance skipped = instance("void k<float>(float*)", 0);
  skipped.measured = false;
  skipped.values.clear();
  auto p = pair_counter_samples(t.trace, samples_of(CounterKernelNames::DisplayName,
                                                    {instance("void k<float>(float*)", 1), skipped,
                                                     instance("void k<float>(float*)", 3)}));
  EXPECT_EQ(p.instances(), 2u);
  ASSERT_EQ(p.values.size(), 2u);
  EXPECT_EQ(p.values[1].dispatch, 2u);  // the third launch, not the second
  EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
}

TEST(CounterPairing, IsPureAndNeverPairsAValueTheTraceHolds) {
  auto t = trace_of(1);
  t.trace.counters.push_back({0, t.trace.strings.intern("c"), 5.0});
  auto p = pair_counter_samples(t.trace, samples_of(CounterKernelNames::DisplayName, {instance("void k<float>(float*)", 9)}));
  EXPECT_EQ(p.matched_instances, 1u);
  EXPECT_TRUE(p.values.empty());
  ASSERT_EQ(t.trace.counters.size(), 1u);
  EXPECT_EQ(t.trace.counters[0].value, 5.0);
}

TEST(CounterPairing, ProcessesByStartOrderNeedTheSameProcessCount) {
  const auto t = trace_of(2);
  auto s = samples_of(CounterKernelNames::DisplayName, {instance("void k<float>(float*)", 1, 0)});
  s.processes = CounterProcesses::ByStartOrder;
  s.process_count = 1;
  auto p = pair_counter_samples(t.trace, s);
  EXPECT_EQ(p.matched_instances, 1u);
  EXPECT_TRUE(any_contains(p.warnings, "tool profiled 1 of the 2 dispatch(es)")) << p.warnings.size();
  s.process_count = 2;
  p = pair_counter_samples(t.trace, s);
  EXPECT_EQ(p.matched_instances, 1u);
  EXPECT_TRUE(any_contains(p.warnings, "across all processes")) << p.warnings.size();
}

TEST(CounterPairing, ADifferentGridIsSaid) {
  const auto t = trace_of(1);
  CounterInstance i = instance("void k<float>(float*)", 1);
  i.block = std::array<uint64_t, 3>{256, 1, 1};
  i.grid = std::array<uint64_t, 3>{2048, 1, 1};
  auto p = pair_counter_samples(t.trace, samples_of(CounterKernelNames::DisplayName, {i}));
  EXPECT_EQ(p.matched_instances, 1u);
  EXPECT_TRUE(any_contains(p.warnings, "grid or block size")) << p.warnings.size();
  i.grid = std::array<uint64_t, 3>{1024, 1, 1};
  p = pair_counter_samples(t.trace, samples_of(CounterKernelNames::DisplayName, {i}));
  EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
}
