#pragma once
// Hand-built inputs for the visual reporters (HTML report, Perfetto export): a small two-process trace
// with its analysis results filled in by hand, so the reporters are tested without the analyses.
//
// Process A (index 0, pid 100), streams 1 and 2; process B (index 1, pid 200), stream 7. Times are ns
// after kBase. Correlation ids give the submission order in A (all from thread 11).
//
//   stream 1: d0 gemm<float, 128>  [0,100]   corr 2
//             d1 gemm<float, 128>  [150,250] corr 3
//             d2 reduce<A&B>       [400,450] corr 8
//   stream 2: c0 H2D copy          [0,50]    corr 1
//             d3 reduce<A&B>       [260,380] corr 6
//   stream 7: d4 "scale" [10,60], d5 "scale" [70,120], d6 "scale" [100,130] (overlaps d5: rocprofv3-style)
//
// Sync ops in A: EventRecord(e7, stream 1) corr 4 -> captures d1; StreamWaitEvent(stream 2, e7) corr 5
// -> d3 waits for d1 (event wait); StreamSynchronize(stream 2) corr 7 -> d2, the thread's next work,
// waits for d3 (host sync). Critical path: d0 -> d1 -> d3 -> d2, 450 ns = 370 busy + 80 idle
// (gaps 150-100, 260-250, 400-380).
#include "app/analyze.hpp"
#include "report/html_report.hpp"

namespace rpl::test {

inline constexpr TimeNs kBase = 1'000'000'000;

app::AnalyzeResults visual_sample_results();
// Ceilings HBM 5300 GB/s, L2 14000 GB/s, FP64 81700 and FP32 163400 GFLOP/s; points gemm, reduce, scale
// (above the roof: 900 GFLOP/s at AI 0.1 where HBM allows 530), and one with zero AI (not plottable).
report::RooflineView visual_sample_roofline();

// A thread-trace (ATT) deep analysis as `profile --deep` gives one kernel: 3 hot lines (the first
// "v_fma_f32 v1, v2, v3 // <a&b>", 52% of the listing's cycles, at kernel.hip:42), and `waves` traced waves, wave i
// (id i, CU i % 4) with a stall fraction of (i % 10) / 10 (so wave 9 is the most stalled) and its instruction stall
// split VMEM 70%, WAIT 30%.
analysis::DeepAnalysis att_sample_deep(std::size_t waves);

// A large trace for the reporters' size and speed bounds: `n` dispatches of one kernel "k<1>" on 4 streams
// of one process; dispatch i runs on stream i % 4 over [(i / 4) us, (i / 4) us + 600 ns], with dispatch id
// i and correlation id i + 1. No analysis results are filled in.
app::AnalyzeResults many_dispatches_results(std::size_t n);

}  // namespace rpl::test
