// Deep analysis: instruction classification, ATT code/stats/occupancy/timeline parsing (including empty
// and decoder-failure outputs), per-execution latency, the ATT folder reader, and the ncu mapping.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/deep_analysis.hpp"
#include "collectors/amd/att_import.hpp"
#include "support/errors.hpp"
#include "testing/counter_trace.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::analysis;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t cat(InstCategory c) { return static_cast<std::size_t>(c); }

// A code.json in the documented shape. Per category (hits / latency / stall / idle):
//   SMEM 100 / 2000 / 500 / 100        VALU 1000 / 4000 / 1000 / 200    MFMA 400 / 32000 / 8000 / 400
//   VMEM 100+1 / 50000+1000 / 10000+200 / 100+0                          WAIT 101 / 30000 / 29000 / 0
//   LDS 200 / 6000 / 1000 / 200        BRANCH 99 / 990 / 100 / 0        OTHER 1 / 10 / 0 / 0
// Totals: hits 2002, latency 126,000, stall 49,800, idle 1,000.
const char* kCodeJson = R"json({
  "version": "1.0.0",
  "header": "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle",
  "code": [
    ["; vecAdd(float*, float*, float*, int)", 0, 0, "", 1, 0, 0, 0, 0, 0],
    ["s_load_dwordx4 s[0:3], s[4:5], 0x0", 0, 1, "", 1, 256, 100, 2000, 500, 100],
    ["v_add_f32_e32 v1, v2, v3", 0, 2, "", 1, 260, 1000, 4000, 1000, 200],
    ["v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]", 0, 3, "", 1, 264, 400, 32000, 8000, 400],
    ["global_load_dwordx4 v[0:3], v[4:5], off", 0, 4, "", 1, 272, 100, 50000, 10000, 100],
    ["global_load_dword v6, v[4:5], off offset:16", 0, 5, "", 1, 280, 1, 1000, 200, 0],
    ["s_waitcnt vmcnt(0)", 0, 6, "", 1, 288, 101, 30000, 29000, 0],
    ["ds_read_b128 v[8:11], v12", 0, 7, "", 1, 292, 200, 6000, 1000, 200],
    ["s_cbranch_scc1 65533", 0, 8, "", 1, 300, 99, 990, 100, 0],
    ["s_endpgm", 0, 9, "", 1, 304, 1, 10, 0, 0]
  ]
})json";

// rocprofv3 wrote this for a gfx1100 trace where no wave landed on the traced CU (reference §8 #2).
const char* kEmptyCodeJson = R"json({"code": null, "version": "1.0.0", "header": "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle"})json";
const char* kEmptyOccupancy = R"json({"dispatches": {"0": "0 / 0x0"}, "version": "3.0.0"})json";

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

bool has_note(const std::vector<std::string>& notes, const std::string& needle) {
  for (const auto& n : notes)
    if (n.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(InstructionClassifier, MfmaAndBranchAreRealCategories) {
  EXPECT_EQ(classify_instruction("v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]"), InstCategory::Mfma);
  EXPECT_EQ(classify_instruction("v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]"), InstCategory::Mfma);
  EXPECT_EQ(classify_instruction("v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10"), InstCategory::Mfma);
  EXPECT_EQ(classify_instruction("v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7]"), InstCategory::Mfma);
  EXPECT_EQ(classify_instruction("v_add_f32_e32 v1, v2, v3"), InstCategory::Valu);
  EXPECT_EQ(classify_instruction("v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[0:1]"), InstCategory::Valu);
  EXPECT_EQ(classify_instruction("s_cbranch_scc1 65533"), InstCategory::Branch);
  EXPECT_EQ(classify_instruction("s_cbranch_execz 12"), InstCategory::Branch);
  EXPECT_EQ(classify_instruction("s_branch 4"), InstCategory::Branch);
  EXPECT_EQ(classify_instruction("s_setpc_b64 s[30:31]"), InstCategory::Branch);
  EXPECT_EQ(classify_instruction("s_swappc_b64 s[30:31], s[4:5]"), InstCategory::Branch);
  EXPECT_EQ(classify_instruction("s_call_b64 s[30:31], 100"), InstCategory::Branch);
  EXPECT_EQ(classify_instruction("s_add_u32 s0, s1, s2"), InstCategory::Salu);
  EXPECT_EQ(classify_instruction("s_branchy_thing s0"), InstCategory::Salu);  // not s_branch itself
  EXPECT_EQ(classify_instruction("s_load_dwordx4 s[0:3], s[4:5], 0x0"), InstCategory::Smem);
  EXPECT_EQ(classify_instruction("s_buffer_load_dword s0, s[4:7], 0x10"), InstCategory::Smem);
  EXPECT_EQ(classify_instruction("global_load_dwordx4 v[0:3], v[4:5], off"), InstCategory::Vmem);
  EXPECT_EQ(classify_instruction("buffer_store_dword v1, v2, s[0:3], 0 offen"), InstCategory::Vmem);
  EXPECT_EQ(classify_instruction("flat_load_dword v1, v[2:3]"), InstCategory::Vmem);
  EXPECT_EQ(classify_instruction("scratch_store_dword off, v1, s0"), InstCategory::Vmem);
  EXPECT_EQ(classify_instruction("ds_read_b128 v[8:11], v12"), InstCategory::Lds);
  EXPECT_EQ(classify_instruction("s_waitcnt vmcnt(0) lgkmcnt(0)"), InstCategory::Wait);
  EXPECT_EQ(classify_instruction("s_barrier"), InstCategory::Wait);
  EXPECT_EQ(classify_instruction("s_endpgm"), InstCategory::Other);
  EXPECT_EQ(classify_instruction("s_nop 0"), InstCategory::Other);
  EXPECT_EQ(classify_instruction("   V_ADD_F32 v1, v2, v3"), InstCategory::Valu);  // case and indentation
  EXPECT_EQ(classify_instruction(""), InstCategory::Other);
  EXPECT_EQ(classify_instruction("some_unknown_op"), InstCategory::Other);
  EXPECT_STREQ(to_string(InstCategory::Mfma), "MFMA");
  EXPECT_STREQ(to_string(InstCategory::Branch), "BRANCH");
}

TEST(AttCode, CategoriesLatencyPerExecutionAndStalls) {
  std::vector<std::string> notes;
  AttCodeSummary s = summarize_att_code(nlohmann::json::parse(kCodeJson), "code.json", notes);
  EXPECT_EQ(s.lines, 9u);  // the kernel header row is skipped
  EXPECT_EQ(s.hits[cat(InstCategory::Vmem)], 101u);
  EXPECT_EQ(s.hits[cat(InstCategory::Mfma)], 400u);
  EXPECT_EQ(s.hits[cat(InstCategory::Branch)], 99u);
  EXPECT_EQ(s.waitcnt_hits, 101u);
  DeepAnalysis d = att_deep_analysis(s, std::nullopt, {}, 0, notes);
  EXPECT_TRUE(d.available);
  EXPECT_EQ(d.source, "att");
  EXPECT_EQ(d.instructions_executed, 2002u);
  EXPECT_DOUBLE_EQ(*d.instruction_mix[cat(InstCategory::Valu)], 1000.0 / 2002.0);
  EXPECT_DOUBLE_EQ(*d.instruction_mix[cat(InstCategory::Mfma)], 400.0 / 2002.0);
  EXPECT_DOUBLE_EQ(*d.instruction_mix[cat(InstCategory::Branch)], 99.0 / 2002.0);
  EXPECT_DOUBLE_EQ(*d.instruction_mix[cat(InstCategory::Salu)], 0.0);
  // Per execution: (50,000 + 1,000) / (100 + 1) = 504.95 cycles, not per line ((50,000 + 1,000) / 2).
  EXPECT_DOUBLE_EQ(*d.vmem_latency_cycles, 51000.0 / 101.0);
  EXPECT_DOUBLE_EQ(*d.smem_latency_cycles, 20.0);       // 2,000 / 100
  EXPECT_DOUBLE_EQ(*d.lds_latency_cycles, 30.0);        // 6,000 / 200
  EXPECT_DOUBLE_EQ(*d.waitcnt_cycles, 30000.0 / 101.0);
  // Stall share of issue time: 49,800 / (126,000 latency + 1,000 idle); stall already inside latency.
  EXPECT_DOUBLE_EQ(*d.stall_fraction, 49800.0 / 127000.0);
  // Memory: VMEM 10,200 + SMEM 500 + LDS 1,000 + WAIT 29,000 = 40,700 of 49,800.
  EXPECT_DOUBLE_EQ(*d.memory_stall_share, 40700.0 / 49800.0);
  ASSERT_FALSE(d.stall_breakdown.empty());
  EXPECT_EQ(d.stall_breakdown[0].name, "WAIT");
  EXPECT_DOUBLE_EQ(d.stall_breakdown[0].fraction, 29000.0 / 49800.0);
  EXPECT_FALSE(d.achieved_occupancy.has_value());
  EXPECT_FALSE(d.branch_efficiency.has_value());  // ATT gives no divergence: not invented
}

TEST(AttCode, NullOrEmptyCodeGivesNoDataAndSaysWhy) {
  for (const char* text : {kEmptyCodeJson, R"json({"code": []})json", R"json({"version": "1"})json"}) {
    std::vector<std::string> notes;
    AttCodeSummary s = summarize_att_code(nlohmann::json::parse(text), "code.json", notes);
    EXPECT_EQ(s.lines, 0u);
    EXPECT_TRUE(has_note(notes, "no wave ran on the traced CU")) << text;
    DeepAnalysis d = att_deep_analysis(s, std::nullopt, {}, 32, notes);
    EXPECT_FALSE(d.available);
    EXPECT_FALSE(d.stall_fraction.has_value());
    EXPECT_FALSE(d.instruction_mix[0].has_value());
  }
}

TEST(AttCode, HeaderlessCodeAssumesTheDocumentedOrder) {
  std::vector<std::string> notes;
  auto doc = nlohmann::json::parse(R"json({"code": [["v_add_f32 v1, v2, v3", 0, 1, "", 1, 0, 10, 40, 5, 2]]})json");
  AttCodeSummary s = summarize_att_code(doc, "code.json", notes);
  EXPECT_EQ(s.hits[cat(InstCategory::Valu)], 10u);
  EXPECT_DOUBLE_EQ(s.latency[cat(InstCategory::Valu)], 40);
  EXPECT_DOUBLE_EQ(s.idle[cat(InstCategory::Valu)], 2);
  EXPECT_TRUE(has_note(notes, "no header"));
}

TEST(AttCode, HeaderColumnsAreFoundByName) {
  // The same data with the columns in another order: positions come from the header.
  std::vector<std::string> notes;
  auto doc = nlohmann::json::parse(
      R"json({"header": "Hit, Latency, ISA, Stall, Idle", "code": [[7, 70, "ds_write_b32 v1, v2", 3, 1]]})json");
  AttCodeSummary s = summarize_att_code(doc, "code.json", notes);
  EXPECT_EQ(s.hits[cat(InstCategory::Lds)], 7u);
  EXPECT_DOUBLE_EQ(s.latency[cat(InstCategory::Lds)], 70);
  EXPECT_DOUBLE_EQ(s.stall[cat(InstCategory::Lds)], 3);
}

TEST(AttCode, MalformedDocumentsAreInvalidInput) {
  std::vector<std::string> notes;
  EXPECT_THROW(summarize_att_code(nlohmann::json::parse("[1, 2]"), "c.json", notes), Error);
  EXPECT_THROW(summarize_att_code(nlohmann::json::parse(R"json({"code": 5})json"), "c.json", notes), Error);
  EXPECT_THROW(summarize_att_code(nlohmann::json::parse(R"json({"header": "ISA, Hit", "code": [["v_add_f32", 1]]})json"), "c.json", notes),
               Error);
  // Short rows are skipped and counted, not fatal.
  auto doc = nlohmann::json::parse(R"json({"code": [["v_add_f32", 0], ["v_add_f32 v1, v2, v3", 0, 1, "", 1, 0, 1, 4, 0, 0]]})json");
  AttCodeSummary s = summarize_att_code(doc, "c.json", notes);
  EXPECT_EQ(s.lines, 1u);
  EXPECT_TRUE(has_note(notes, "1 malformed code row"));
}

TEST(AttStatsCsv, QuotedInstructionsHeaderRowsAndHeaderOnly) {
  std::vector<std::string> notes;
  const std::string text =
      "CodeObj,Vaddr,Instruction,Hitcount,Latency,Stall,Idle,Source\n"
      "1,0,\"; vecAdd(float*, float*)\",0,0,0,0,\n"
      "1,256,\"v_add_f32 v1, v2, v3\",1000,4000,1000,200,\"k.hip:10\"\n"
      "1,264,\"global_load_dword v1, v[2:3], off\",10,5000,100,0,\n"
      "1,272,s_endpgm,1,4,0,0,\n";
  AttCodeSummary s = summarize_att_stats_csv(text, "stats.csv", notes);
  EXPECT_EQ(s.lines, 3u);
  EXPECT_EQ(s.hits[cat(InstCategory::Valu)], 1000u);
  EXPECT_EQ(s.hits[cat(InstCategory::Vmem)], 10u);
  EXPECT_DOUBLE_EQ(s.latency[cat(InstCategory::Vmem)], 5000);
  std::vector<std::string> empty_notes;
  AttCodeSummary e = summarize_att_stats_csv("CodeObj,Vaddr,Instruction,Hitcount,Latency,Stall,Idle,Source\n",
                                             "stats.csv", empty_notes);
  EXPECT_EQ(e.lines, 0u);
  EXPECT_TRUE(has_note(empty_notes, "header only"));
  EXPECT_THROW(summarize_att_stats_csv("a,b,c\n1,2,3\n", "stats.csv", empty_notes), Error);
}

TEST(AttOccupancyTest, TimeWeightedMeanAndPeakPerCu) {
  std::vector<std::string> notes;
  // SE 0, CU 0: two waves from t=100, one ends at 200, the other at 300: area 2x100 + 1x100 = 300 over
  // a span of 200 -> 1.5 waves, peak 2. SE 1, CU 0: one wave 0..400 -> 1.0. Mean over CUs 1.25.
  auto doc = nlohmann::json::parse(R"json({
    "0": [[100, 0, 0, 0, 1, 0], [100, 0, 1, 0, 1, 0], [200, 0, 0, 0, 0, 0], [300, 0, 1, 0, 0, 0]],
    "1": [[0, 0, 0, 0, 1, 0], [400, 0, 0, 0, 0, 0]],
    "dispatches": {"0": "vecAdd"}, "version": "3.0.0"})json");
  auto occ = att_occupancy(doc, notes);
  ASSERT_TRUE(occ);
  EXPECT_EQ(occ->cus, 2u);
  EXPECT_DOUBLE_EQ(occ->mean_waves_per_cu, 1.25);
  EXPECT_EQ(occ->peak_waves_per_cu, 2u);
  DeepAnalysis d = att_deep_analysis({}, occ, {}, 32, {});
  EXPECT_DOUBLE_EQ(*d.achieved_occupancy, 1.25 / 32.0);
  EXPECT_EQ(*d.peak_waves_per_cu, 2u);
  EXPECT_TRUE(d.available);
  // Unknown maximum: the wave counts, no fraction.
  EXPECT_FALSE(att_deep_analysis({}, occ, {}, 0, {}).achieved_occupancy.has_value());
}

TEST(AttOccupancyTest, EndsBeforeStartsAtEqualTimesAndUnmatchedEnds) {
  std::vector<std::string> notes;
  // A wave replaced by another at t=200: never two resident. Events listed start-first on purpose.
  auto doc = nlohmann::json::parse(R"json({"0": [[100, 3, 0, 0, 1, 0], [200, 3, 0, 1, 1, 0], [200, 3, 0, 0, 0, 0], [300, 3, 0, 1, 0, 0]]})json");
  auto occ = att_occupancy(doc, notes);
  ASSERT_TRUE(occ);
  EXPECT_EQ(occ->peak_waves_per_cu, 1u);
  EXPECT_DOUBLE_EQ(occ->mean_waves_per_cu, 1.0);
  // An end whose start came before the trace: counted from zero, noted.
  auto partial = nlohmann::json::parse(R"json({"0": [[50, 0, 0, 0, 0, 0], [100, 0, 0, 1, 1, 0], [300, 0, 0, 1, 0, 0]]})json");
  auto p = att_occupancy(partial, notes);
  ASSERT_TRUE(p);
  EXPECT_TRUE(has_note(notes, "ends without starts"));
  EXPECT_DOUBLE_EQ(p->mean_waves_per_cu, 200.0 / 250.0);  // one wave for 200 of the 250 cycles
  // No events at all (an empty trace, §8 #2).
  std::vector<std::string> empty_notes;
  EXPECT_FALSE(att_occupancy(nlohmann::json::parse(kEmptyOccupancy), empty_notes));
  EXPECT_TRUE(has_note(empty_notes, "no wave start/end events"));
}

TEST(AttWaveTimeline, StatesReplaceTheInstructionEstimate) {
  std::array<double, 5> states{};
  add_att_wave_timeline(nlohmann::json::parse(R"json({"wave": {"timeline": [[1, 100], [2, 300], [3, 400], [4, 200], [0, 1000]]}})json"),
                        states);
  add_att_wave_timeline(nlohmann::json::parse(R"json({"wave": {"instructions": []}})json"), states);  // no timeline
  add_att_wave_timeline(nlohmann::json::parse(R"json({"timeline": [[9, 5], [2, -1], "x"]})json"), states);  // junk
  EXPECT_DOUBLE_EQ(states[0], 1000);
  EXPECT_DOUBLE_EQ(states[2], 300);
  std::vector<std::string> notes;
  AttCodeSummary s = summarize_att_code(nlohmann::json::parse(kCodeJson), "code.json", notes);
  DeepAnalysis d = att_deep_analysis(s, std::nullopt, states, 0, notes);
  // (wait 400 + stall 200) / (idle 100 + exec 300 + wait 400 + stall 200); EMPTY time is not wave time.
  EXPECT_DOUBLE_EQ(*d.stall_fraction, 0.6);
  ASSERT_EQ(d.wave_states.size(), 4u);
  EXPECT_EQ(d.wave_states[3].name, "stall");
  EXPECT_DOUBLE_EQ(d.wave_states[3].fraction, 0.2);
  EXPECT_TRUE(has_note(d.notes, "per-wave state timelines"));
}

TEST(AttFolders, FindAnalyzeAndDiagnose) {
  test::TempDir tmp;
  const fs::path root = tmp.path() / "att";
  const fs::path disp = root / "node01" / "ui_output_agent_1234_dispatch_7";
  write(disp / "code.json", kCodeJson);
  write(disp / "occupancy.json", R"json({"0": [[0, 0, 0, 0, 1, 0], [1000, 0, 0, 0, 0, 0]], "dispatches": {"0": "vecAdd"}})json");
  write(disp / "se0_sm0_sl0_wv0.json", R"json({"name": "SE0", "wave": {"timeline": [[2, 500], [4, 500]]}})json");
  write(disp / "filenames.json", "{}");
  write(root / "node01" / "stats_ui_output_agent_1234_dispatch_7.csv", "CodeObj,Vaddr,Instruction,Hitcount,Latency,Stall,Idle,Source\n");
  // Near misses that are not per-dispatch outputs or wave files.
  fs::create_directories(root / "ui_output_agent_1234_dispatch_x");
  fs::create_directories(root / "ui_output_agent__dispatch_5");
  write(disp / "se0_sm0_sl0_wv1.json.bak", R"json({"wave": {"timeline": [[4, 1000000]]}})json");
  write(disp / "se0_sm0_wv2.json", R"json({"wave": {"timeline": [[4, 1000000]]}})json");
  const fs::path empty = root / "node01" / "ui_output_agent_1234_dispatch_3";
  write(empty / "code.json", kEmptyCodeJson);
  write(empty / "occupancy.json", kEmptyOccupancy);

  auto outputs = collectors::find_att_outputs(root.string());
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].dispatch_id, 3);  // sorted by dispatch id
  EXPECT_EQ(outputs[1].dispatch_id, 7);
  EXPECT_EQ(outputs[1].agent, "1234");
  EXPECT_NE(outputs[1].stats_csv.find("stats_ui_output_agent_1234_dispatch_7.csv"), std::string::npos);
  EXPECT_EQ(collectors::diagnose_att_root(root.string()), "");

  DeepAnalysis d = analyze_att_dispatch(collectors::read_att_dispatch(outputs[1]), 32);
  EXPECT_TRUE(d.available);
  EXPECT_EQ(d.instructions_executed, 2002u);
  EXPECT_DOUBLE_EQ(*d.mean_waves_per_cu, 1.0);
  EXPECT_DOUBLE_EQ(*d.achieved_occupancy, 1.0 / 32.0);
  EXPECT_DOUBLE_EQ(*d.stall_fraction, 0.5);  // from the wave timeline: 500 stall of 1,000
  nlohmann::json j = to_json(d);
  EXPECT_EQ(j["instruction_mix"].count("MFMA"), 1u);
  ASSERT_EQ(d.waves.size(), 1u);  // the wave file; the near-miss names are not waves
  EXPECT_EQ(j["waves"][0]["cycles"]["stall"], 500.0);
  EXPECT_EQ(j["hot_lines"].size(), 9u);
  EXPECT_EQ(j["instruction_mix"].count("BRANCH"), 1u);

  DeepAnalysis e = analyze_att_dispatch(collectors::read_att_dispatch(outputs[0]), 32);
  EXPECT_FALSE(e.available);
  EXPECT_TRUE(has_note(e.notes, "no wave ran on the traced CU"));
  EXPECT_TRUE(has_note(e.notes, "holds no data"));
}

// Issue 33: per-ISA-line hot spots from the listing, the costliest (latency + idle) first.
TEST(AttHotLines, TheCostliestListingLinesWithTheirShare) {
  const auto lines = att_hot_lines(nlohmann::json::parse(kCodeJson), 3);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].isa, "global_load_dwordx4 v[0:3], v[4:5], off");
  EXPECT_EQ(lines[0].category, InstCategory::Vmem);
  EXPECT_EQ(lines[0].line, 4);
  EXPECT_EQ(lines[0].vaddr, 272u);
  EXPECT_EQ(lines[0].hits, 100u);
  EXPECT_DOUBLE_EQ(lines[0].stall, 10000);
  EXPECT_DOUBLE_EQ(lines[0].share, 50100.0 / 127000.0);  // of the listing's 126,000 latency + 1,000 idle
  EXPECT_EQ(lines[1].category, InstCategory::Mfma);       // 32,400
  EXPECT_EQ(lines[2].category, InstCategory::Wait);       // 30,000
  EXPECT_EQ(att_hot_lines(nlohmann::json::parse(kCodeJson), 100).size(), 9u);  // the kernel header row is not a line
  // nothing to rank: no code, or a header without the columns the listing needs
  EXPECT_TRUE(att_hot_lines(nlohmann::json::parse(kEmptyCodeJson), 5).empty());
  auto no_latency = nlohmann::json::parse(kCodeJson);
  no_latency["header"] = "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Cycles, Stall, Idle";
  EXPECT_TRUE(att_hot_lines(no_latency, 5).empty());
  std::vector<std::string> notes;
  EXPECT_THROW(summarize_att_code(no_latency, "code.json", notes), rpl::Error);  // the summary says why
  // the address is not needed to rank lines: without it they rank the same, at address 0
  auto no_vaddr = nlohmann::json::parse(kCodeJson);
  no_vaddr["header"] = "ISA, _, LineNumber, Source, Codeobj, Address, Hit, Latency, Stall, Idle";
  const auto anonymous = att_hot_lines(no_vaddr, 1);
  ASSERT_EQ(anonymous.size(), 1u);
  EXPECT_EQ(anonymous[0].line, 4);
  EXPECT_EQ(anonymous[0].vaddr, 0u);
}

// Issue 33: each traced wave's own breakdown: its state cycles, and its instructions' stall by the category of
// the listing line each names (an unknown line is OTHER).
TEST(AttWaves, PerWaveStallBreakdown) {
  const auto categories = att_line_categories(nlohmann::json::parse(kCodeJson));
  EXPECT_EQ(categories.at(4), InstCategory::Vmem);
  EXPECT_EQ(categories.at(6), InstCategory::Wait);
  const auto w = att_wave(nlohmann::json::parse(R"json({"name": "SE1", "duration": 1000, "wave": {"cu": 0, "id": 4,
      "simd": 2, "slot": 3, "begin": 100, "end": 1100, "timeline": [[1, 100], [2, 300], [3, 200], [4, 400]],
      "instructions": [[0, 5, 100, 10, 4], [10, 5, 300, 10, 6], [20, 5, 50, 10, 99], [30, 5, 0, 10, 2]]}})json"),
                          categories);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->shader_engine, 1);
  EXPECT_EQ(w->simd, 2);
  EXPECT_EQ(w->slot, 3);
  EXPECT_EQ(w->id, 4);
  EXPECT_DOUBLE_EQ(w->end - w->begin, 1000);
  EXPECT_DOUBLE_EQ(*w->stall_fraction, 0.6);  // (200 wait + 400 stall) / 1000
  EXPECT_EQ(w->instructions, 4u);
  EXPECT_DOUBLE_EQ(w->instruction_stall, 450);
  ASSERT_EQ(w->stall_by_category.size(), 3u);
  EXPECT_EQ(w->stall_by_category[0].name, "WAIT");
  EXPECT_DOUBLE_EQ(w->stall_by_category[0].fraction, 300.0 / 450.0);
  EXPECT_EQ(w->stall_by_category[1].name, "VMEM");
  EXPECT_EQ(w->stall_by_category[2].name, "OTHER");
  // no "wave" object: not a wave file; damaged entries are skipped, not trusted
  EXPECT_FALSE(att_wave(nlohmann::json::parse(R"json({"name": "SE0"})json"), categories));
  const auto odd = att_wave(nlohmann::json::parse(R"json({"wave": {"cu": "x", "instructions": [[1], "y",
      [0, 0, -5, 1, 4], [0, 0, "inf", 1, 4]], "timeline": "none"}})json"), categories);
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->cu, -1);
  EXPECT_EQ(odd->instructions, 2u);
  EXPECT_TRUE(odd->stall_by_category.empty());
  EXPECT_FALSE(odd->stall_fraction);
}

TEST(AttFolders, StatsCsvIsUsedWhenCodeJsonIsMissing) {
  test::TempDir tmp;
  const fs::path disp = tmp.path() / "ui_output_agent_9_dispatch_1";
  fs::create_directories(disp);
  write(tmp.path() / "stats_ui_output_agent_9_dispatch_1.csv",
        "CodeObj,Vaddr,Instruction,Hitcount,Latency,Stall,Idle,Source\n1,0,\"v_mfma_f32_4x4x1f32 v[0:3], v4, v5, v[0:3]\",8,64,8,0,\n");
  auto outputs = collectors::find_att_outputs(tmp.path().string());
  ASSERT_EQ(outputs.size(), 1u);
  DeepAnalysis d = analyze_att_dispatch(collectors::read_att_dispatch(outputs[0]));
  EXPECT_DOUBLE_EQ(*d.instruction_mix[cat(InstCategory::Mfma)], 1.0);
}

TEST(AttFolders, RawAttWithoutDecodedOutputMeansTheDecoderWasMissing) {
  test::TempDir tmp;
  write(tmp.path() / "node01" / "1234_agent_5_shader_engine_0_7.att", "\x01\x02");
  write(tmp.path() / "node01" / "1234_gfx942_code_object_id_1.out", "ELF");
  EXPECT_TRUE(collectors::find_att_outputs(tmp.path().string()).empty());
  const std::string why = collectors::diagnose_att_root(tmp.path().string());
  EXPECT_NE(why.find("1 raw .att file"), std::string::npos);
  EXPECT_NE(why.find("rocprof-trace-decoder"), std::string::npos);
  test::TempDir empty;
  EXPECT_NE(collectors::diagnose_att_root(empty.path().string()).find("no ATT output"), std::string::npos);
  try {
    collectors::find_att_outputs((tmp.path() / "absent").string());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputMissing);
  }
}

TEST(AttFolders, MalformedJsonIsInvalidInput) {
  test::TempDir tmp;
  const fs::path disp = tmp.path() / "ui_output_agent_1_dispatch_2";
  write(disp / "code.json", "{ truncated");
  try {
    analyze_att_dispatch(collectors::read_att_dispatch(collectors::find_att_outputs(tmp.path().string()).at(0)));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputInvalid);
    EXPECT_NE(std::string(e.what()).find("code.json"), std::string::npos);
  }
}

// ---- NVIDIA

namespace {
// Values ncu 2025.3.1 reported on an H100 for a kernel with a shared-memory exchange and a barrier.
std::map<std::string, double> h100_k_div() {
  std::map<std::string, double> m = {{"sm__warps_active.avg.pct_of_peak_sustained_active", 87.26},
                                     {"sm__maximum_warps_per_active_cycle_pct", 100},
                                     {"sm__inst_issued.avg.pct_of_peak_sustained_active", 19.26},
                                     {"smsp__sass_branch_targets_threads_uniform.sum", 0},
                                     {"smsp__sass_branch_targets_threads_divergent.sum", 0},
                                     {"smsp__thread_inst_executed_per_inst_executed.ratio", 26.67},
                                     {"l1tex__t_sector_hit_rate.pct", 0},
                                     {"lts__t_sector_hit_rate.pct", 101.01}};
  const std::map<std::string, double> stalls = {
      {"barrier", 16.10},      {"branch_resolving", 0.75}, {"dispatch_stall", 0.04}, {"drain", 0.88},
      {"imc_miss", 0.08},      {"long_scoreboard", 45.43}, {"math_pipe_throttle", 0.14}, {"mio_throttle", 0.25},
      {"misc", 0.00},          {"no_instruction", 0.37},   {"not_selected", 0.47},    {"selected", 1.00},
      {"short_scoreboard", 3.16}, {"wait", 1.88}};
  for (const auto& [r, v] : stalls) m["smsp__average_warps_issue_stalled_" + r + "_per_issue_active.ratio"] = v;
  return m;
}
}  // namespace

TEST(NcuDeep, MapsMetricsToTheCommonStruct) {
  const auto m = h100_k_div();
  DeepAnalysis d = ncu_deep_analysis([&](std::string_view name) -> std::optional<double> {
    auto it = m.find(std::string(name));
    return it == m.end() ? std::nullopt : std::optional<double>(it->second);
  });
  EXPECT_EQ(d.source, "ncu");
  EXPECT_TRUE(d.available);
  EXPECT_DOUBLE_EQ(*d.achieved_occupancy, 0.8726);
  EXPECT_DOUBLE_EQ(*d.theoretical_occupancy, 1.0);
  EXPECT_DOUBLE_EQ(*d.issue_utilization, 0.1926);
  EXPECT_DOUBLE_EQ(*d.thread_utilization, 26.67 / 32.0);
  EXPECT_DOUBLE_EQ(*d.l1_hit_rate, 0.0);
  EXPECT_DOUBLE_EQ(*d.l2_hit_rate, 1.0);  // 101.01 % clamped, noted
  EXPECT_TRUE(has_note(d.notes, "above 100"));
  EXPECT_FALSE(d.branch_efficiency.has_value());  // no branches executed
  EXPECT_TRUE(has_note(d.notes, "no branch instructions"));
  // Sum of the ratios 70.55; stalled = 70.55 - selected 1.00 - not_selected 0.47 = 69.08.
  EXPECT_NEAR(*d.stall_fraction, 69.08 / 70.55, 1e-12);
  // Memory: long_scoreboard 45.43 + short_scoreboard 3.16 + mio_throttle 0.25 + drain 0.88 + imc_miss 0.08.
  EXPECT_NEAR(*d.memory_stall_share, 49.80 / 69.08, 1e-12);
  ASSERT_FALSE(d.stall_breakdown.empty());
  EXPECT_EQ(d.stall_breakdown[0].name, "long_scoreboard");
  EXPECT_NEAR(d.stall_breakdown[0].fraction, 45.43 / 69.08, 1e-12);
  EXPECT_EQ(d.stall_breakdown[1].name, "barrier");
  for (const auto& r : d.stall_breakdown) EXPECT_NE(r.name, "misc");  // zero shares are left out
}

TEST(NcuDeep, BranchEfficiencyFromCountsAndThePercentFallback) {
  std::map<std::string, double> m = {{"smsp__sass_branch_targets_threads_uniform.sum", 300},
                                     {"smsp__sass_branch_targets_threads_divergent.sum", 100}};
  auto lookup = [&](std::string_view name) -> std::optional<double> {
    auto it = m.find(std::string(name));
    return it == m.end() ? std::nullopt : std::optional<double>(it->second);
  };
  EXPECT_DOUBLE_EQ(*ncu_deep_analysis(lookup).branch_efficiency, 0.75);  // 300 / (300 + 100)
  m = {{"smsp__sass_average_branch_targets_threads_uniform.pct", 62.5}};
  EXPECT_DOUBLE_EQ(*ncu_deep_analysis(lookup).branch_efficiency, 0.625);
  m = {{"smsp__sass_average_branch_targets_threads_uniform.pct", 0}};  // ncu's "no branches"
  EXPECT_FALSE(ncu_deep_analysis(lookup).branch_efficiency.has_value());
  m = {};
  DeepAnalysis none = ncu_deep_analysis(lookup);
  EXPECT_FALSE(none.available);
  EXPECT_TRUE(has_note(none.notes, "none of the deep-analysis metrics"));
}

TEST(NcuDeep, FromTraceCountersDurationWeighted) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("sm_90", "NVIDIA H100 80GB HBM3", 132);
  Index k = b.kernel("k");
  Index a = b.dispatch(k, gpu, 0, 99), c = b.dispatch(k, gpu, 1000, 99), other = b.dispatch(k, gpu, 5000, 99);
  b.counters(a, {{"gpu__time_duration.sum", 1000}, {"sm__warps_active.avg.pct_of_peak_sustained_active", 40}});
  b.counters(c, {{"gpu__time_duration.sum", 3000}, {"sm__warps_active.avg.pct_of_peak_sustained_active", 80}});
  b.counters(other, {{"sm__warps_active.avg.pct_of_peak_sustained_active", 10}});  // not in the set
  // (40 x 1,000 + 80 x 3,000) / 4,000 = 70 % -> 0.70
  DeepAnalysis d = ncu_deep_analysis(b.trace(), {a, c});
  EXPECT_DOUBLE_EQ(*d.achieved_occupancy, 0.70);
}

TEST(NcuDeep, MetricListPerArchitecture) {
  const auto h = ncu_deep_metrics("sm_90");
  const auto a = ncu_deep_metrics("sm_80");
  auto has = [](const std::vector<std::string>& v, const std::string& n) { return std::find(v.begin(), v.end(), n) != v.end(); };
  EXPECT_TRUE(has(h, "smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio"));
  EXPECT_FALSE(has(a, "smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio"));
  EXPECT_TRUE(has(h, "sm__warps_active.avg.pct_of_peak_sustained_active"));
  EXPECT_TRUE(has(h, "sm__inst_issued.avg.pct_of_peak_sustained_active"));
  EXPECT_TRUE(has(h, "smsp__thread_inst_executed_per_inst_executed.ratio"));
  EXPECT_TRUE(has(h, "l1tex__t_sector_hit_rate.pct"));
  EXPECT_TRUE(has(h, "lts__t_sector_hit_rate.pct"));
  EXPECT_EQ(h.size(), a.size() + 1);
}

TEST(NcuDeep, CuptiSubsetWithWarpLatencyGivesTheSameStallFractionAndMemoryShare) {
  // The CUPTI pass measures only the memory reasons, selected and not_selected, plus the warp latency per
  // issued instruction (the sum of every reason: 70.55 for h100_k_div).
  const auto full = h100_k_div();
  const auto wanted = cupti_deep_metrics("sm_90");
  std::map<std::string, double> m;
  for (const auto& [k, v] : full)
    if (std::find(wanted.begin(), wanted.end(), k) != wanted.end()) m[k] = v;
  m["smsp__average_warp_latency_per_inst_issued.ratio"] = 70.55;
  EXPECT_EQ(m.count("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"), 0u);  // not in the list
  EXPECT_EQ(m.count("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"), 1u);
  DeepAnalysis d = ncu_deep_analysis([&](std::string_view name) -> std::optional<double> {
    auto it = m.find(std::string(name));
    return it == m.end() ? std::nullopt : std::optional<double>(it->second);
  });
  EXPECT_NEAR(*d.stall_fraction, 69.08 / 70.55, 1e-12);
  EXPECT_NEAR(*d.memory_stall_share, 49.80 / 69.08, 1e-12);
  ASSERT_GE(d.stall_breakdown.size(), 2u);
  EXPECT_EQ(d.stall_breakdown[0].name, "long_scoreboard");
  // Everything that is neither memory nor selected/not_selected: 69.08 - 49.80 = 19.28.
  EXPECT_EQ(d.stall_breakdown[1].name, "other (not memory)");
  EXPECT_NEAR(d.stall_breakdown[1].fraction, 19.28 / 69.08, 1e-9);
  EXPECT_TRUE(has_note(d.notes, "stall total from smsp__average_warp_latency_per_inst_issued.ratio"));
  // Fewer reasons than ncu's list, and the latency metric, which ncu's list does not ask for.
  EXPECT_LT(wanted.size(), ncu_deep_metrics("sm_90").size());
  EXPECT_NE(std::find(wanted.begin(), wanted.end(), "smsp__average_warp_latency_per_inst_issued.ratio"), wanted.end());
}

TEST(NcuDeep, SharesStayWithinOneWhenTheIssueCyclesDwarfTheStalls) {
  // Found by fuzz_rocpd_bytes (issue 19): with "selected" some 10^13 times the stalls, total - selected kept
  // a few digits only and a single reason came out as 1.0000000000001683 of the stalled time, outside the
  // schema's [0, 1]. Fresh values, not the fuzzer's: two memory reasons beside a huge issue count.
  const double selected = 3.7e12;
  const std::map<std::string, double> m = {
      {"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", selected},
      {"smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", 0.3},
      {"smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio", 0.7},
      {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 0.1}};
  DeepAnalysis d = ncu_deep_analysis([&](std::string_view name) -> std::optional<double> {
    auto it = m.find(std::string(name));
    return it == m.end() ? std::nullopt : std::optional<double>(it->second);
  });
  ASSERT_TRUE(d.memory_stall_share.has_value());
  EXPECT_DOUBLE_EQ(*d.memory_stall_share, 1.0) << "both reasons are memory reasons";
  EXPECT_LE(*d.memory_stall_share, 1.0);
  ASSERT_EQ(d.stall_breakdown.size(), 2u);
  EXPECT_NEAR(d.stall_breakdown[0].fraction, 0.7 / 0.8, 1e-12) << "shares of the reasons' own sum";
  for (const auto& r : d.stall_breakdown) EXPECT_LE(r.fraction, 1.0) << r.name;
  ASSERT_TRUE(d.stall_fraction.has_value());
  EXPECT_GE(*d.stall_fraction, 0.0);
  EXPECT_LE(*d.stall_fraction, 1.0);
}
