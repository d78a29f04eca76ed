// Occupancy of a kernel's most time-consuming launch configuration, from traces built in memory.
#include <gtest/gtest.h>

#include "analysis/kernel_occupancy.hpp"
#include "testing/in_memory_trace.hpp"

namespace rpl::analysis {
namespace {

using test::InMemoryTrace;

const KernelStats& find(const KernelStatsResult& r, const std::string& name) {
  for (const KernelStats& k : r.kernels)
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name);
}

TEST(KernelOccupancy, PicksTheConfigurationWithTheMostTime) {
  InMemoryTrace t;
  const Index gpu = t.add_agent("gfx90a:sramecc+:xnack-", 64);
  const Index k = t.add_symbol("k", "", 0, {.arch_vgprs = 65, .sgprs = 32});
  // 256 threads: 3 dispatches x 10 ns = 30 ns. 512 threads: 1 x 100 ns = 100 ns -> chosen.
  t.add_dispatch(k, 0, 10, gpu, 256);
  t.add_dispatch(k, 10, 20, gpu, 256);
  t.add_dispatch(k, 20, 30, gpu, 256);
  t.add_dispatch(k, 30, 130, gpu, 512);
  const KernelStatsResult stats = compute_kernel_stats(t.trace);
  const KernelOccupancy o = kernel_occupancy(t.trace, stats.kernels[0]);
  EXPECT_EQ(o.launch_configurations, 2u);
  ASSERT_TRUE(o.top.has_value()) << o.unavailable;
  EXPECT_TRUE(o.unavailable.empty());
  EXPECT_EQ(o.top->arch, "gfx90a");
  EXPECT_EQ(o.top->resources.threads_per_block, 512u);
  EXPECT_EQ(o.top->time_ns, 100);
  EXPECT_EQ(o.top->dispatches, 1u);
  // 512 threads = 8 waves; 65 VGPRs -> 7 waves/SIMD -> 7*4/8 = 3 blocks = 24 waves -> 0.75.
  EXPECT_EQ(o.top->occupancy.limiter, "vgpr");
  EXPECT_EQ(o.top->occupancy.blocks_per_cu, 3u);
  EXPECT_DOUBLE_EQ(o.top->occupancy.theoretical, 0.75);
}

TEST(KernelOccupancy, StaticLdsFillsInForTheDispatch) {
  InMemoryTrace t;
  const Index gpu = t.add_agent("gfx942", 64);
  const Index k = t.add_symbol("k", "", 0, {.arch_vgprs = 32, .static_lds = 32768});
  t.add_dispatch(k, 0, 10, gpu, 256, 0);  // dispatch LDS not recorded: the symbol's 32 KiB counts
  const KernelStatsResult stats = compute_kernel_stats(t.trace);
  const KernelOccupancy o = kernel_occupancy(t.trace, stats.kernels[0]);
  ASSERT_TRUE(o.top.has_value()) << o.unavailable;
  EXPECT_EQ(o.top->resources.lds_bytes, 32768u);
  // 65536 / 32768 = 2 blocks of 4 waves = 8 waves = 2/SIMD -> 0.25.
  EXPECT_EQ(o.top->occupancy.limiter, "lds");
  EXPECT_DOUBLE_EQ(o.top->occupancy.theoretical, 0.25);
}

TEST(KernelOccupancy, DynamicLdsMakesDistinctConfigurations) {
  InMemoryTrace t;
  const Index gpu = t.add_agent("gfx942", 64);
  const Index k = t.add_symbol("k", "", 0, {.arch_vgprs = 32});
  t.add_dispatch(k, 0, 50, gpu, 256, 16384);   // 50 ns: 4 blocks -> 16 waves -> 0.5
  t.add_dispatch(k, 50, 60, gpu, 256, 32768);  // 10 ns
  const KernelStatsResult stats = compute_kernel_stats(t.trace);
  const KernelOccupancy o = kernel_occupancy(t.trace, stats.kernels[0]);
  EXPECT_EQ(o.launch_configurations, 2u);
  ASSERT_TRUE(o.top.has_value());
  EXPECT_EQ(o.top->resources.lds_bytes, 16384u);
  EXPECT_DOUBLE_EQ(o.top->occupancy.theoretical, 0.5);
}

TEST(KernelOccupancy, SameLaunchInTwoProcessesIsOneConfiguration) {
  InMemoryTrace t;
  const Index p1 = t.add_process(1), p2 = t.add_process(2);
  const Index g1 = t.add_agent("gfx942:sramecc+:xnack-", 64, p1);
  const Index g2 = t.add_agent("gfx942", 64, p2);
  const Index s1 = t.add_symbol("k", "", p1, {.arch_vgprs = 64});
  const Index s2 = t.add_symbol("k", "", p2, {.arch_vgprs = 64});
  t.add_dispatch(s1, 0, 10, g1, 256);
  t.add_dispatch(s2, 0, 10, g2, 256);
  const KernelStatsResult stats = compute_kernel_stats(t.trace);
  const KernelOccupancy o = kernel_occupancy(t.trace, stats.kernels[0]);
  EXPECT_EQ(o.launch_configurations, 1u);
  ASSERT_TRUE(o.top.has_value());
  EXPECT_EQ(o.top->dispatches, 2u);
  EXPECT_DOUBLE_EQ(o.top->occupancy.theoretical, 1.0);
}

TEST(KernelOccupancy, AgentWaveSizeIsUsed) {
  InMemoryTrace t;
  const Index wave64 = t.add_agent("gfx1030", 64);
  const Index k = t.add_symbol("k", "", 0, {.arch_vgprs = 64});
  t.add_dispatch(k, 0, 10, wave64, 256);
  const KernelStatsResult stats = compute_kernel_stats(t.trace);
  const KernelOccupancy o = kernel_occupancy(t.trace, stats.kernels[0]);
  ASSERT_TRUE(o.top.has_value());
  // wave64: 512/64 = 8 waves/SIMD -> 8*2/4 = 4 blocks = 16 waves of 32 -> 0.5 (wave32 would be 1.0).
  EXPECT_EQ(o.top->occupancy.wave_size, 64u);
  EXPECT_DOUBLE_EQ(o.top->occupancy.theoretical, 0.5);
}

TEST(KernelOccupancy, DefaultWaveSizeWhenTheAgentDoesNotSay) {
  InMemoryTrace t;
  const Index gpu = t.add_agent("gfx1030", 0);
  const Index k = t.add_symbol("k", "", 0, {.arch_vgprs = 64});
  t.add_dispatch(k, 0, 10, gpu, 256);
  const KernelStatsResult stats = compute_kernel_stats(t.trace);
  const KernelOccupancy o = kernel_occupancy(t.trace, stats.kernels[0]);
  ASSERT_TRUE(o.top.has_value());
  EXPECT_EQ(o.top->occupancy.wave_size, 32u);
  EXPECT_DOUBLE_EQ(o.top->occupancy.theoretical, 1.0);
}

TEST(KernelOccupancy, NvidiaBlockDimensionsMultiply) {
  InMemoryTrace t;
  const Index gpu = t.add_agent("sm_80", 32);
  const Index k = t.add_symbol("k", "", 0, {.arch_vgprs = 64});
  t.add_dispatch(k, 0, 10, gpu, 16)->block[1] = 16;  // 16 x 16 = 256 threads
  const KernelStatsResult stats = compute_kernel_stats(t.trace);
  const KernelOccupancy o = kernel_occupancy(t.trace, stats.kernels[0]);
  ASSERT_TRUE(o.top.has_value());
  EXPECT_EQ(o.top->resources.threads_per_block, 256u);
  // 64 regs: 2048 per warp -> 32 warps per SM -> 4 blocks of 8 -> 0.5.
  EXPECT_EQ(o.top->occupancy.limiter, "registers");
  EXPECT_DOUBLE_EQ(o.top->occupancy.theoretical, 0.5);
}

TEST(KernelOccupancy, UnavailableCases) {
  InMemoryTrace t;
  const Index unknown = t.add_agent("gfx1201", 32);
  const Index known = t.add_agent("gfx942", 64);
  const Index a = t.add_symbol("unknown_arch", "", 0, {.arch_vgprs = 32});
  const Index b = t.add_symbol("no_registers");
  const Index c = t.add_symbol("no_agent", "", 0, {.arch_vgprs = 32});
  const Index d = t.add_symbol("impossible", "", 0, {.arch_vgprs = 32});
  t.add_dispatch(a, 0, 10, unknown, 64);
  t.add_dispatch(b, 10, 20, known, 64);
  t.add_dispatch(c, 20, 30, kNoIndex, 64);
  t.add_dispatch(d, 30, 40, known, 2048);  // over 1024 threads: the trace or our table is wrong
  const KernelStatsResult stats = compute_kernel_stats(t.trace);

  const KernelOccupancy oa = kernel_occupancy(t.trace, find(stats, "unknown_arch"));
  EXPECT_FALSE(oa.top.has_value());
  EXPECT_EQ(oa.launch_configurations, 1u);
  EXPECT_NE(oa.unavailable.find("gfx1201"), std::string::npos) << oa.unavailable;
  const KernelOccupancy ob = kernel_occupancy(t.trace, find(stats, "no_registers"));
  EXPECT_FALSE(ob.top.has_value());
  EXPECT_NE(ob.unavailable.find("register"), std::string::npos) << ob.unavailable;
  const KernelOccupancy oc = kernel_occupancy(t.trace, find(stats, "no_agent"));
  EXPECT_FALSE(oc.top.has_value());
  EXPECT_NE(oc.unavailable.find("agent"), std::string::npos) << oc.unavailable;
  const KernelOccupancy od = kernel_occupancy(t.trace, find(stats, "impossible"));
  EXPECT_FALSE(od.top.has_value());
  EXPECT_NE(od.unavailable.find("impossible"), std::string::npos) << od.unavailable;
  EXPECT_NE(od.unavailable.find("2048 threads"), std::string::npos) << od.unavailable;
}

TEST(KernelOccupancy, BatchMatchesSingle) {
  InMemoryTrace t;
  const Index gpu = t.add_agent("gfx942", 64);
  const Index x = t.add_symbol("x", "", 0, {.arch_vgprs = 65});
  const Index y = t.add_symbol("y", "", 0, {.arch_vgprs = 32, .static_lds = 32768});
  const Index blit = t.add_symbol("__amd_rocclr_copyBuffer", "", 0, {.arch_vgprs = 16});
  t.add_dispatch(x, 0, 100, gpu, 256);
  t.add_dispatch(y, 100, 150, gpu, 256);
  t.add_dispatch(blit, 150, 400, gpu, 64);
  t.add_dispatch(x, 400, 410, gpu, 128);
  const KernelStatsResult stats = compute_kernel_stats(t.trace);
  const std::vector<KernelOccupancy> all = kernel_occupancies(t.trace, stats);
  ASSERT_EQ(all.size(), stats.kernels.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const KernelOccupancy one = kernel_occupancy(t.trace, stats.kernels[i]);
    EXPECT_EQ(all[i].launch_configurations, one.launch_configurations) << stats.kernels[i].name;
    ASSERT_EQ(all[i].top.has_value(), one.top.has_value());
    EXPECT_EQ(all[i].top->occupancy.theoretical, one.top->occupancy.theoretical);
    EXPECT_EQ(all[i].top->resources.threads_per_block, one.top->resources.threads_per_block);
  }
  EXPECT_EQ(all[&find(stats, "x") - stats.kernels.data()].launch_configurations, 2u);
  EXPECT_EQ(all[&find(stats, "y") - stats.kernels.data()].top->occupancy.limiter, "lds");
}

}  // namespace
}  // namespace rpl::analysis
