#pragma once
// Deep analysis of one kernel dispatch: occupancy, issue utilisation, stall breakdown, instruction mix,
// memory latency, divergence and cache hit rates, in one struct for both vendors.
// - AMD: rocprofv3 --att per-dispatch output (reference amd-profiling-stack.md §5.2): code.json (or the
//   stats_*.csv summary), occupancy.json and the per-wave se*_sm*_sl*_wv*.json timelines.
// - AMD: hardware counters stored in the trace (amd_counter_analysis.hpp): hit rates, VALU / MFMA and
//   thread utilisation.
// - NVIDIA: ncu metrics (ncu_deep_metrics()), from an ncu CSV or from counters stored in the trace.
// Every field is optional: a source gives what it measures and nothing is invented.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/att_documents.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

// Instruction categories. MFMA (v_mfma*, v_smfmac*, v_wmma*, v_swmmac*) is checked before VALU (v_*),
// BRANCH (s_cbranch*, s_branch, s_setpc*, s_swappc*, s_call*, s_rfe*) and the memory/wait classes
// before SALU (s_*). WAIT: s_waitcnt*, s_wait_*, s_barrier*; OTHER: nops, messages, s_endpgm, traps,
// anything unrecognised.
enum class InstCategory : uint8_t { Valu, Salu, Vmem, Smem, Lds, Mfma, Branch, Wait, Other };
inline constexpr std::size_t kInstCategoryCount = 9;
const char* to_string(InstCategory c);  // "VALU", "SALU", "VMEM", "SMEM", "LDS", "MFMA", "BRANCH", "WAIT", "OTHER"
InstCategory classify_instruction(std::string_view isa);

struct NamedFraction {
  std::string name;
  double fraction = 0;
};

// ATT: one line of the decoded code listing (code.json) that costs the most cycles: its latency (stall +
// issue or execute) and idle time before it, summed over its executions on the traced CUs.
struct AttHotLine {
  std::string isa;            // the instruction text
  InstCategory category = InstCategory::Other;
  int64_t line = -1;          // LineNumber: the listing's line (-1: none)
  std::string source;         // Source: "file:line" when the code object has debug line info, else ""
  uint64_t vaddr = 0;         // Vaddr: the instruction's address in the code object
  uint64_t hits = 0;          // executions
  double latency = 0, stall = 0, idle = 0;  // cycles, summed over executions
  double share = 0;           // (latency + idle) / the listing's (latency + idle)
};

// ATT: one traced wave (a se*_sm*_sl*_wv*.json file): where its time went.
struct AttWave {
  int64_t shader_engine = -1;  // from "name" ("SE<n>")
  int64_t cu = -1, simd = -1, slot = -1, id = -1;
  double begin = 0, end = 0;   // shader-clock cycles
  std::array<double, 5> state_cycles{};  // timeline: 0 EMPTY, 1 IDLE, 2 EXEC, 3 WAIT, 4 STALL
  std::optional<double> stall_fraction;  // (WAIT + STALL) / (IDLE + EXEC + WAIT + STALL)
  std::size_t instructions = 0;          // entries of "instructions"
  double instruction_stall = 0;          // stall cycles summed over them
  std::vector<NamedFraction> stall_by_category;  // shares of instruction_stall by the category of their ISA line
};

struct DeepAnalysis {
  std::string source;                  // "att", "ncu", "counters" (AMD PMC) or "att+counters"
  bool available = false;              // false: nothing could be measured (notes say why)
  std::vector<std::string> notes;      // why something is missing, caveats, which source a value came from

  std::optional<double> achieved_occupancy;     // 0..1 of the maximum resident waves (warps)
  std::optional<double> theoretical_occupancy;  // 0..1 (ncu: sm__maximum_warps_per_active_cycle_pct)
  std::optional<double> mean_waves_per_cu;      // ATT: time-averaged resident waves on the traced CUs
  std::optional<uint32_t> peak_waves_per_cu;    // ATT
  std::optional<double> issue_utilization;      // 0..1 of issue slots used (ncu)

  std::optional<double> stall_fraction;         // 0..1 of wave (warp) time not issuing for a hazard
  std::optional<double> memory_stall_share;     // 0..1 of the stall time waiting on memory (incl. LDS)
  std::vector<NamedFraction> stall_breakdown;   // shares of the stall time, descending
  std::vector<NamedFraction> wave_states;       // ATT: shares of wave time in idle/exec/wait/stall

  uint64_t instructions_executed = 0;           // ATT: hit counts on the traced CUs (a sample, not a total)
  std::array<std::optional<double>, kInstCategoryCount> instruction_mix{};  // executions per category / all

  // ATT latencies in shader-clock cycles, per EXECUTION: sum of latency / sum of hit counts.
  std::optional<double> vmem_latency_cycles;
  std::optional<double> smem_latency_cycles;
  std::optional<double> lds_latency_cycles;
  std::optional<double> waitcnt_cycles;         // s_waitcnt*: the wait for outstanding memory, per execution

  std::optional<double> branch_efficiency;      // 0..1: uniform branch targets / all (ncu)
  std::optional<double> thread_utilization;     // 0..1: active threads per executed instruction / warp size
  std::optional<double> l1_hit_rate;            // 0..1
  std::optional<double> l2_hit_rate;            // 0..1
  // AMD counters: busy cycles of the units against every active cycle (amd_counter_analysis.hpp).
  std::optional<double> valu_utilization;       // 0..1: SQ_ACTIVE_INST_VALU per CU-cycle
  std::optional<double> mfma_utilization;       // 0..1: SQ_VALU_MFMA_BUSY_CYCLES per SIMD-cycle

  std::vector<AttHotLine> hot_lines;  // ATT: the costliest lines of the code listing, costliest first
  std::vector<AttWave> waves;         // ATT: every traced wave, by shader engine, CU, SIMD, slot, id
};

nlohmann::json to_json(const DeepAnalysis& d);

// ---- AMD ATT ----------------------------------------------------------------------------------------

// Per-category sums over the instruction lines of code.json or the stats CSV.
struct AttCodeSummary {
  std::array<uint64_t, kInstCategoryCount> hits{};
  std::array<double, kInstCategoryCount> latency{};
  std::array<double, kInstCategoryCount> stall{};
  std::array<double, kInstCategoryCount> idle{};
  uint64_t waitcnt_hits = 0;      // s_waitcnt* only (part of Wait)
  double waitcnt_latency = 0;
  std::size_t lines = 0;          // instruction lines read
};

// code.json: {"code": [[ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle], ...],
// "header": "ISA, _, LineNumber, ..."}. Columns are found by the header's names; without a header the
// documented order is assumed (noted). "code": null or [] gives an empty summary (noted: no wave landed
// on the traced CU, reference §8 #2). Throws rpl::Error(InputInvalid) naming `source` for a document
// that is not this shape.
AttCodeSummary summarize_att_code(const nlohmann::json& code_doc, const std::string& source, std::vector<std::string>& notes);
// stats_ui_output_agent_*_dispatch_*.csv: CodeObj,Vaddr,Instruction,Hitcount,Latency,Stall,Idle,Source.
// Kernel header rows (Instruction "; name") are skipped; a header-only file gives an empty summary.
AttCodeSummary summarize_att_stats_csv(std::string_view text, const std::string& source, std::vector<std::string>& notes);

struct AttOccupancy {
  double mean_waves_per_cu = 0;  // time-weighted, averaged over the traced CUs
  uint32_t peak_waves_per_cu = 0;
  std::size_t cus = 0;           // traced CUs with events
};
// occupancy.json: {"<se>": [[time, cu, simd, slot, start(1)/end(0), kernel_idx], ...], "dispatches": ...}.
std::optional<AttOccupancy> att_occupancy(const nlohmann::json& occupancy_doc, std::vector<std::string>& notes);

// Adds one per-wave file's "timeline" [[state, duration], ...] to per-state totals (0 EMPTY, 1 IDLE,
// 2 EXEC, 3 WAIT, 4 STALL).
void add_att_wave_timeline(const nlohmann::json& wave_doc, std::array<double, 5>& state_cycles);

// The `top` lines of code.json that cost the most cycles (latency + idle; ties: listing order). Rows the
// summary skips (headers, comments, malformed) are skipped here too; without a "header" the documented column
// order is used. Empty for "code": null / [].
std::vector<AttHotLine> att_hot_lines(const nlohmann::json& code_doc, std::size_t top);
// One per-wave file: {"name": "SE<n>", "wave": {"cu", "id", "simd", "slot", "begin", "end",
// "instructions": [[time, category, stall, duration, code_line_number], ...], "timeline": [[state, duration], ...]}}.
// An instruction's category is that of the code.json line whose LineNumber it names (`line_categories`; OTHER
// when the listing has no such line). nullopt when the document has no "wave" object.
std::optional<AttWave> att_wave(const nlohmann::json& wave_doc, const std::map<int64_t, InstCategory>& line_categories);
// LineNumber -> category of every instruction line of code.json.
std::map<int64_t, InstCategory> att_line_categories(const nlohmann::json& code_doc);

// Builds the analysis from the pieces (what analyze_att_dispatch does with the documents).
// max_waves_per_cu: 0 = unknown (achieved occupancy then stays empty; the wave counts are still given).
DeepAnalysis att_deep_analysis(const AttCodeSummary& code, const std::optional<AttOccupancy>& occupancy,
                               const std::array<double, 5>& state_cycles, uint32_t max_waves_per_cu,
                               std::vector<std::string> notes);

// The deep analysis of one dispatch from its documents (collectors/amd/att_import reads them): instruction
// data from code.json, else the stats CSV; occupancy; wave states. Throws rpl::Error(InputInvalid) for a
// document that is not the expected shape; empty data gives available = false with the reason in notes.
DeepAnalysis analyze_att_dispatch(const AttDispatchDocuments& documents, uint32_t max_waves_per_cu = 0);

// ---- NVIDIA ncu -------------------------------------------------------------------------------------

// The metric list for the deep analysis (one place; ncu_csv's command builder takes it). Measured with
// ncu 2025.3.1 on an H100: 9 replay passes. gmma stalls exist from sm_90 on.
std::vector<std::string> ncu_deep_metrics(std::string_view arch);
// The CUPTI pass's list: the same, but of the stall reasons only the memory ones, selected and not_selected,
// plus the warp latency per issued instruction (their sum over all reasons): fewer replay passes, same
// stall fraction and memory share.
std::vector<std::string> cupti_deep_metrics(std::string_view arch);
// Maps ncu metrics (values in ncu's base units: percent as 0..100) to the common struct. `metric`
// returns nullopt for a metric that was not collected.
DeepAnalysis ncu_deep_analysis(const std::function<std::optional<double>(std::string_view)>& metric,
                               uint32_t warp_size = 32);
// The same from counters stored in a trace: each metric is the duration-weighted mean over `dispatches`
// that carry it (ncu's gpu__time_duration.sum as the weight where present, else the timestamps).
DeepAnalysis ncu_deep_analysis(const Trace& trace, const std::vector<Index>& dispatches, uint32_t warp_size = 32);

}  // namespace rpl::analysis
