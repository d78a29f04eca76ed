#include "testing/visual_sample.hpp"

namespace rpl::test {
namespace {

using analysis::NodeKind;
using analysis::NodeRef;

Dispatch dispatch(Index process, Index symbol, Index stream, TimeNs start, TimeNs end, int64_t id, int64_t corr) {
  Dispatch d;
  d.start = kBase + start;
  d.end = kBase + end;
  d.dispatch_id = id;
  d.correlation_id = corr;
  d.process = process;
  d.symbol = symbol;
  d.agent = 0;
  d.stream = stream;
  d.thread = process == 0 ? 11 : 21;
  d.grid[0] = 1024;
  d.block[0] = 256;
  return d;
}

SyncOp sync(SyncKind kind, Index stream, uint64_t event, int64_t corr) {
  SyncOp op;
  op.kind = kind;
  op.source = SyncSource::HostApi;
  op.process = 0;
  op.thread = 11;
  op.stream = stream;
  op.event = event;
  op.correlation_id = corr;
  return op;
}

analysis::DurationStats durations(std::size_t count, double total, double min, double max, double cv) {
  analysis::DurationStats d;
  d.count = count;
  d.total_ns = total;
  d.mean_ns = total / static_cast<double>(count);
  d.median_ns = d.mean_ns;
  d.min_ns = min;
  d.max_ns = max;
  d.cv = cv;
  d.stability = cv <= 0.05 ? analysis::Stability::Stable
                           : cv <= 0.10 ? analysis::Stability::Moderate : analysis::Stability::Unstable;
  return d;
}

}  // namespace

app::AnalyzeResults visual_sample_results() {
  app::AnalyzeResults r;
  r.inputs = {"run-A.db", "run-B.db"};
  Trace& t = r.trace;
  t.processes.push_back({"guid-a", "run-A.db", 100, 1, "node1", "./app --size 4", kBase, kBase + 1000});
  t.processes.push_back({"guid-b", "run-B.db", 200, 1, "node1", "./helper", kBase, kBase + 1000});
  Agent gpu;
  gpu.process = 0;
  gpu.is_gpu = true;
  gpu.name = "gfx942";
  t.agents.push_back(gpu);
  t.streams.push_back({0, 1, ""});         // index 0: stream 1 of A
  t.streams.push_back({0, 2, "copies"});   // index 1: stream 2 of A
  t.streams.push_back({1, 7, ""});         // index 2: stream 7 of B
  auto symbol = [&](Index process, const char* name) {
    KernelSymbol s;
    s.process = process;
    s.display_name = t.strings.intern(name);
    s.mangled_name = s.display_name;
    t.symbols.push_back(s);
    return static_cast<Index>(t.symbols.size() - 1);
  };
  Index gemm = symbol(0, "gemm<float, 128>"), reduce = symbol(0, "reduce<A&B>"), scale = symbol(1, "scale");

  t.dispatches.push_back(dispatch(0, gemm, 0, 0, 100, 1, 2));      // d0
  t.dispatches.push_back(dispatch(0, gemm, 0, 150, 250, 2, 3));    // d1
  t.dispatches.push_back(dispatch(0, reduce, 0, 400, 450, 3, 8));  // d2
  t.dispatches.push_back(dispatch(0, reduce, 1, 260, 380, 4, 6));  // d3
  t.dispatches.push_back(dispatch(1, scale, 2, 10, 60, 1, 1));     // d4
  t.dispatches.push_back(dispatch(1, scale, 2, 70, 120, 2, 2));    // d5
  t.dispatches.push_back(dispatch(1, scale, 2, 100, 130, 3, 3));   // d6 overlaps d5

  MemoryCopy c0;
  c0.start = kBase;
  c0.end = kBase + 50;
  c0.copy_id = 1;
  c0.correlation_id = 1;
  c0.process = 0;
  c0.kind = t.strings.intern("MEMORY_COPY_HOST_TO_DEVICE");
  c0.stream = 1;
  c0.thread = 11;
  c0.bytes = 4096;
  t.copies.push_back(c0);

  t.sync_ops.push_back(sync(SyncKind::EventRecord, 0, 7, 4));
  t.sync_ops.push_back(sync(SyncKind::StreamWaitEvent, 1, 7, 5));
  t.sync_ops.push_back(sync(SyncKind::StreamSynchronize, 1, 0, 7));

  // Kernel statistics: gemm 200 ns (2 calls), reduce 170 (2), scale 130 (3); 500 in all.
  auto& s = r.stats;
  s.timing.dispatch_count = 7;
  s.timing.copy_count = 1;
  s.timing.process_count = 2;
  s.timing.runtime_ns = 500;
  // Union of dispatches: [0,130] + [150,250] + [260,380] + [400,450] = 130 + 100 + 120 + 50 = 400; the copy
  // [0,50] adds nothing.
  s.timing.kernel_busy_ns = 400;
  s.timing.gpu_busy_ns = 400;
  s.timing.copy_time_ns = 50;
  s.timing.wall_start_ns = kBase;
  s.timing.wall_end_ns = kBase + 450;
  s.timing.wall_span_ns = 450;
  s.kernels.push_back({"gemm<float, 128>", "gemm<float, 128>", false, durations(2, 200, 100, 100, 0.0), 0.4, {gemm}});
  s.kernels.push_back({"reduce<A&B>", "reduce<A&B>", false, durations(2, 170, 50, 120, 0.58), 0.34, {reduce}});
  s.kernels.push_back({"scale", "scale", false, durations(3, 130, 30, 50, 0.27), 0.26, {scale}});
  s.dominant = 0;
  for (auto& k : s.kernels) {  // one launch shape each: the variation is within a shape
    k.within_shape_cv = k.within_class_cv = k.durations.cv;
    k.within_shape_stability = k.stability = k.durations.stability;
  }

  analysis::LaunchOccupancy occ;
  occ.arch = "gfx942";
  occ.occupancy.theoretical = 0.375;
  occ.occupancy.limiter = "vgpr";
  r.occupancy.resize(3);
  r.occupancy[0].top = occ;
  r.occupancy[0].launch_configurations = 1;

  auto& dag = r.dag;
  dag.ordering = "stream";
  dag.node_count = 8;
  dag.edges.stream_order = 5;  // 2 on stream 1, 1 on stream 2, 2 on stream 7
  dag.edges.event_wait = 1;
  dag.edges.host_sync = 1;
  dag.trace_start_ns = kBase;
  dag.wall_span_ns = 450;
  dag.modeled_span_ns = 450;
  dag.critical_path_ns = 450;
  dag.critical_path_busy_ns = 370;
  dag.critical_path_idle_ns = 80;
  dag.serial_ns = 550;  // 500 kernel + 50 copy
  dag.parallelism = 550.0 / 450.0;
  dag.path = {{NodeKind::Dispatch, 0}, {NodeKind::Dispatch, 1}, {NodeKind::Dispatch, 3}, {NodeKind::Dispatch, 2}};
  dag.contributions = {{"gemm<float, 128>", 2, 200, 200.0 / 450}, {"reduce<A&B>", 2, 170, 170.0 / 450}};
  for (Index i = 0; i < 7; ++i) dag.nodes.push_back({NodeKind::Dispatch, i});
  dag.nodes.push_back({NodeKind::Copy, 0});
  // Slack: 0 on the path; d4..d6 and the copy finish long before the end.
  dag.earliest_start = {0, 150, 400, 260, 10, 70, 100, 0};
  dag.slack = {0, 0, 0, 0, 320, 320, 320, 210};
  dag.on_path = {1, 1, 1, 1, 0, 0, 0, 0};

  analysis::WhatIfResult w;
  w.spec = {"gemm.*", 0.5};
  w.matched_dispatches = 2;
  w.matched_kernels = {"gemm<float, 128>"};
  w.baseline_ns = 450;
  w.predicted_ns = 350;  // both gemms on the path lose 50 ns each
  w.delta_ns = -100;
  w.speedup = 450.0 / 350.0;
  w.naive_delta_ns = -100;
  r.what_if = {w};
  return r;
}

report::RooflineView visual_sample_roofline() {
  report::RooflineView v;
  v.device = "AMD Instinct MI300X (gfx942)";
  v.compute = {{"FP64 vector", 81700}, {"FP32 vector", 163400}};
  v.memory = {{"HBM", 5300}, {"L2", 14000}};
  v.points = {{"gemm<float, 128>", 20, 5000, 0.4, false, "compute"},
              {"reduce<A&B>", 0.25, 300, 0.34, false, "memory"},
              {"scale", 0.1, 900, 0.26, true, "memory"},
              {"no_flops_kernel", 0, 0, 0.0, false, "memory"}};
  return v;
}

analysis::DeepAnalysis att_sample_deep(std::size_t waves) {
  analysis::DeepAnalysis d;
  d.source = "att";
  d.available = true;
  auto line = [](std::string isa, analysis::InstCategory category, int64_t number, std::string source, uint64_t hits,
                 double latency, double stall, double idle, double share) {
    analysis::AttHotLine l;
    l.isa = std::move(isa);
    l.category = category;
    l.line = number;
    l.source = std::move(source);
    l.vaddr = 0x1000 + 4 * static_cast<uint64_t>(number);
    l.hits = hits;
    l.latency = latency;
    l.stall = stall;
    l.idle = idle;
    l.share = share;
    return l;
  };
  d.hot_lines = {line("v_fma_f32 v1, v2, v3 // <a&b>", analysis::InstCategory::Valu, 12, "/src/app/kernel.hip:42", 4096,
                      52'000, 31'000, 0, 0.52),
                 line("global_load_dword v4, v[6:7], off", analysis::InstCategory::Vmem, 9, "/src/app/kernel.hip:40",
                      1024, 30'000, 24'000, 1'000, 0.31),
                 line("s_waitcnt vmcnt(0)", analysis::InstCategory::Wait, 10, "", 1024, 17'000, 17'000, 0, 0.17)};
  for (std::size_t i = 0; i < waves; ++i) {
    analysis::AttWave w;
    w.shader_engine = 0;
    w.cu = static_cast<int64_t>(i % 4);
    w.simd = static_cast<int64_t>(i % 2);
    w.slot = static_cast<int64_t>(i % 8);
    w.id = static_cast<int64_t>(i);
    w.begin = 100.0 * static_cast<double>(i);
    w.end = w.begin + 10'000;
    const double stall = static_cast<double>(i % 10) / 10;
    w.state_cycles = {0, 0, 10'000 * (1 - stall), 5'000 * stall, 5'000 * stall};  // stall = (WAIT + STALL) / all
    w.stall_fraction = stall;
    w.instructions = 512;
    w.instruction_stall = 9'000 * stall;
    w.stall_by_category = {{"VMEM", 0.7}, {"WAIT", 0.3}};
    d.waves.push_back(w);
  }
  return d;
}

app::AnalyzeResults many_dispatches_results(std::size_t n) {
  app::AnalyzeResults r;
  Trace& t = r.trace;
  t.processes.push_back({"g", "big.db", 1, 0, "h", "big"});
  for (int s = 0; s < 4; ++s) t.streams.push_back({0, s, ""});
  KernelSymbol sym;
  sym.process = 0;
  sym.display_name = t.strings.intern("k<1>");
  t.symbols.push_back(sym);
  t.dispatches.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    Dispatch d;
    d.process = 0;
    d.symbol = 0;
    d.stream = static_cast<Index>(i % 4);
    d.start = static_cast<TimeNs>(i / 4) * 1000;  // each stream: 1 us period, 600 ns busy
    d.end = d.start + 600;
    d.dispatch_id = static_cast<int64_t>(i);
    d.correlation_id = static_cast<int64_t>(i + 1);
    t.dispatches.push_back(d);
  }
  return r;
}

}  // namespace rpl::test
