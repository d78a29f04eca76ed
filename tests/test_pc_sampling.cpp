// PC sampling without a GPU: the hotspot aggregation, the NVIDIA pass's CSV and nvdisasm listings, and
// rocprofv3's PC-sampling CSVs (recorded/synthetic inputs), plus the profile.json section against its schema.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "analysis/pc_hotspots.hpp"
#include "collectors/amd/rocprof_pc_sampling.hpp"
#include "collectors/nvidia/pc_sampling_files.hpp"
#include "report/pc_sampling_report.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using analysis::pc_hotspots;

void write(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_TRUE(f);
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

PcSampleRecord rec(std::string kernel, uint64_t pc, std::string reason, uint64_t n, uint32_t line = 0) {
  PcSampleRecord r;
  r.kernel = std::move(kernel);
  r.module = 7;
  r.pc_offset = pc;
  r.stall_reason = std::move(reason);
  r.samples = n;
  if (line) r.file = "/src/chase.cu", r.line = line;
  return r;
}

TEST(PcHotspots, RanksKernelsInstructionsAndLinesWithStallBreakdowns) {
  std::vector<PcSampleRecord> records = {
      rec("chase", 0x80, "long_scoreboard", 900, 21), rec("chase", 0x80, "selected", 50, 21),
      rec("chase", 0x90, "wait", 30, 22),           rec("chase", 0xa0, "wait", 20, 21),
      rec("small", 0x10, "math_pipe_throttle", 5),  rec("chase", 0xb0, "no_instruction", 0, 30)};
  auto k = pc_hotspots(records, 2);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].kernel, "chase");
  EXPECT_EQ(k[0].samples, 1000u);
  EXPECT_EQ(k[0].instructions_sampled, 3u);  // the 0-sample record counts nowhere
  ASSERT_EQ(k[0].instructions.size(), 2u);     // top 2
  EXPECT_EQ(k[0].instructions[0].pc_offset, 0x80u);
  EXPECT_EQ(k[0].instructions[0].samples, 950u);
  EXPECT_DOUBLE_EQ(k[0].instructions[0].fraction, 0.95);
  EXPECT_EQ(k[0].instructions[0].stalls[0].reason, "long_scoreboard");
  EXPECT_EQ(k[0].instructions[0].line, 21u);
  // Line 21 gathers two instructions: 950 + 20.
  ASSERT_EQ(k[0].lines.size(), 2u);
  EXPECT_EQ(k[0].lines[0].line, 21u);
  EXPECT_EQ(k[0].lines[0].samples, 970u);
  EXPECT_EQ(k[0].stalls[0].reason, "long_scoreboard");
  EXPECT_EQ(k[0].stalls[0].samples, 900u);
  EXPECT_EQ(k[1].kernel, "small");
  EXPECT_TRUE(k[1].lines.empty());  // no line information
}

TEST(PcSamplingFiles, ParsesTheInjectionCsv) {
  const std::string csv =
      "function,cubin_crc,pc_offset,stall_reason,samples,file,line\n"
      "_Z5chasePKjPjj,1234567890123,128,long_scoreboard,900,/src/chase.cu,21\n"
      "\"_Z3addIfEvPT_,S1_\",42,16,selected,3,,0\n";
  auto r = collectors::parse_pc_samples_csv(csv, "pc.csv");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kernel, "_Z5chasePKjPjj");
  EXPECT_EQ(r[0].module, 1234567890123u);
  EXPECT_EQ(r[0].pc_offset, 128u);
  EXPECT_EQ(r[0].samples, 900u);
  EXPECT_EQ(r[0].file, "/src/chase.cu");
  EXPECT_EQ(r[0].line, 21u);
  EXPECT_EQ(r[1].kernel, "_Z3addIfEvPT_,S1_");  // a comma inside a quoted name
  EXPECT_EQ(r[1].line, 0u);
}

TEST(PcSamplingFiles, MalformedCsvNamesTheFileAndRow) {
  try {
    collectors::parse_pc_samples_csv("function,cubin_crc,pc_offset,stall_reason,samples,file,line\nk,1,x,wait,3,,0\n",
                                     "bad.csv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputInvalid);
    EXPECT_NE(std::string(e.what()).find("bad.csv: row 2: pc_offset 'x'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(collectors::parse_pc_samples_csv("kernel,pc\n", "h.csv"), Error);
}

// The shape of nvdisasm's default listing (CUDA 12/13).
constexpr const char* kListing = R"SASS(
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
	.elftype	@"ET_EXEC"
//--------------------- .text._Z5chasePKjPjj     --------------------------
	.section	.text._Z5chasePKjPjj,"ax",@progbits
	.sectionflags	@"SHF_BARRIERS=1"
	.align	128
        .global         _Z5chasePKjPjj
        .type           _Z5chasePKjPjj,@function
        .size           _Z5chasePKjPjj,(.L_x_3 - _Z5chasePKjPjj)
        .other          _Z5chasePKjPjj,@"STO_CUDA_ENTRY STV_DEFAULT"
_Z5chasePKjPjj:
.text._Z5chasePKjPjj:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_TID.X ;
.L_x_1:
        /*0080*/                   LDG.E R3, desc[UR4][R2.64] ;
        /*0090*/              @!P0 BRA `(.L_x_1) ;
        /*00a0*/                   EXIT ; /* trailing comment */
//--------------------- .text._Z5otherv     --------------------------
.text._Z5otherv:
        /*0000*/                   NOP ;
)SASS";

TEST(PcSamplingFiles, ParsesNvdisasmListingsAndAttachesSass) {
  auto listing = collectors::parse_nvdisasm_listing(kListing);
  ASSERT_EQ(listing.size(), 2u);
  const auto& chase = listing.at("_Z5chasePKjPjj");
  EXPECT_EQ(chase.at(0x80), "LDG.E R3, desc[UR4][R2.64]");
  EXPECT_EQ(chase.at(0x90), "@!P0 BRA `(.L_x_1)");
  EXPECT_EQ(chase.at(0xa0), "EXIT");
  EXPECT_EQ(listing.at("_Z5otherv").at(0), "NOP");
  std::vector<PcSampleRecord> records = {rec("_Z5chasePKjPjj", 0x80, "long_scoreboard", 9),
                                         rec("_Z5chasePKjPjj", 0x400, "wait", 1)};
  PcSampleRecord other_cubin = rec("_Z5chasePKjPjj", 0x10, "wait", 1);
  other_cubin.module = 8;
  records.push_back(other_cubin);
  collectors::attach_sass(records, 7, listing);
  EXPECT_EQ(records[0].instruction, "LDG.E R3, desc[UR4][R2.64]");
  EXPECT_EQ(records[1].instruction, "");  // not in the listing
  EXPECT_EQ(records[2].instruction, "");  // another cubin
}

TEST(RocprofPcSampling, JoinsKernelNamesAndSourceLocations) {
  const std::string kernels =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\"\n"
      "\"KERNEL_DISPATCH\",1,1,0,77,1,3,\"chase(unsigned int const*)\"\n";
  const std::string stochastic =
      "\"Sample_Timestamp\",\"Exec_Mask\",\"Dispatch_Id\",\"Instruction\",\"Instruction_Comment\",\"Correlation_Id\","
      "\"Wave_Issued_Instruction\",\"Instruction_Type\",\"Stall_Reason\",\"Wave_Count\"\n"
      "1,ffff,1,\"global_load_dword v2, v[0:1], off\",\"/src/chase.hip:21:7\",5,0,VMEM,"
      "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT,4\n"
      "2,ffff,1,\"global_load_dword v2, v[0:1], off\",\"/src/chase.hip:21:7\",5,0,VMEM,"
      "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_WAITCNT,4\n"
      "3,ffff,1,\"s_waitcnt vmcnt(0)\",\"/src/chase.hip:22\",5,1,SALU,"
      "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_NONE,4\n"
      "4,ffff,9,\"v_add_u32 v1, v1, v2\",\"\",6,0,VALU,"
      "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_ALU_DEPENDENCY,4\n";
  auto r = collectors::parse_rocprof_pc_sampling(stochastic, kernels, "s.csv");
  auto k = pc_hotspots(r, 5);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].kernel, "chase(unsigned int const*)");
  EXPECT_EQ(k[0].samples, 3u);
  EXPECT_EQ(k[0].instructions[0].instruction, "global_load_dword v2, v[0:1], off");
  EXPECT_EQ(k[0].instructions[0].stalls[0].reason, "WAITCNT");
  EXPECT_EQ(k[0].lines[0].file, "/src/chase.hip");
  EXPECT_EQ(k[0].lines[0].line, 21u);
  EXPECT_EQ(k[0].lines[1].line, 22u);
  EXPECT_EQ(k[0].instructions[1].stalls[0].reason, "ISSUED");
  EXPECT_EQ(k[1].kernel, "dispatch 9");  // no kernel-trace row for it
  EXPECT_THROW(collectors::parse_rocprof_pc_sampling("\"a\",\"b\"\n1,2\n", "", "x.csv"), Error);
}

TEST(RocprofPcSampling, HostTrapHasNoStallReasons) {
  const std::string host_trap =
      "\"Sample_Timestamp\",\"Exec_Mask\",\"Dispatch_Id\",\"Instruction\",\"Instruction_Comment\",\"Correlation_Id\"\n"
      "1,ffff,1,\"s_sleep 1\",\"\",5\n1,ffff,1,\"s_sleep 1\",\"\",5\n";
  auto r = collectors::parse_rocprof_pc_sampling(host_trap, "", "h.csv");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].samples, 2u);
  EXPECT_EQ(r[0].stall_reason, "");
  EXPECT_EQ(r[0].line, 0u);
  auto opts = collectors::rocprofv3_pc_sampling_options(500);
  EXPECT_NE(std::find(opts.begin(), opts.end(), "--pc-sampling-beta-enabled"), opts.end());
  EXPECT_NE(std::find(opts.begin(), opts.end(), "500"), opts.end());
}

TEST(PcSamplingReport, JsonValidatesAndTheTerminalNamesTheHotLine) {
  app::PcSamplingResult result;
  result.method = "cupti-pc-sampling (continuous)";
  result.disassembler = "/usr/local/cuda/bin/nvdisasm";
  result.run_dir = "out/runs/pc-sampling";
  auto records = std::vector<PcSampleRecord>{rec("_Z5chasePKjPjj", 0x80, "long_scoreboard", 900, 21),
                                             rec("_Z5chasePKjPjj", 0x90, "wait", 100)};
  records[0].instruction = "LDG.E R3, desc[UR4][R2.64]";
  result.total_samples = 1000;
  result.kernels = pc_hotspots(records, 10);
  nlohmann::json doc = report::pc_sampling_json(result);
  EXPECT_EQ(doc["kernels"][0]["display_name"], "chase(unsigned int const*, unsigned int*, unsigned int)");
  EXPECT_EQ(doc["kernels"][0]["top_lines"][0]["line"], 21);
  // Inside a real profile.json (the rocprofv3 test double's), it validates against the schema.
  test::TempDir dir;
  const char* path = std::getenv("PATH");
  auto r = test::run_cli({"profile", "--platform", "rocm", "--runs", "1", "-o", dir.path(), "--", "/bin/true"},
                         {{"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = nlohmann::json::parse(test::read_file(dir.file("profile.json")));
  profile["pc_sampling"] = doc;
  write(dir.file("with_pc.json"), profile.dump());
  EXPECT_EQ(test::validate_against_schema("profile", dir.file("with_pc.json")), "");
  profile["pc_sampling"]["kernels"][0]["top_instructions"][0]["fraction"] = 1.5;
  write(dir.file("bad_pc.json"), profile.dump());
  EXPECT_NE(test::validate_against_schema("profile", dir.file("bad_pc.json")), "");
  const std::string text = report::pc_sampling_terminal(result.kernels, 3, 5);
  EXPECT_NE(text.find("chase.cu:21"), std::string::npos) << text;
  EXPECT_NE(text.find("LDG.E"), std::string::npos) << text;
  EXPECT_NE(text.find("1000 samples (long_scoreboard 90%, wait 10%)"), std::string::npos) << text;
  EXPECT_NE(text.find("long_scoreboard 100%"), std::string::npos) << text;  // the hot instruction's own breakdown
  const std::string html = report::pc_sampling_html(result.kernels, 5);
  EXPECT_NE(html.find("<code>LDG.E R3, desc[UR4][R2.64]</code>"), std::string::npos);
  EXPECT_EQ(report::pc_sampling_html({}, 5), "");
}

TEST(PcSamplingProfile, AFailedPcSamplingRunKeepsEveryOtherOutputAndExits8) {
  // The rocprofv3 test double writes no PC samples: the pass fails, the trace's outputs stand.
  test::TempDir dir;
  const char* path = std::getenv("PATH");
  auto r = test::run_cli({"profile", "--platform", "rocm", "--runs", "1", "--pc-sampling", "-o", dir.path(), "--",
                          "/bin/true"},
                         {{"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")}});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("PC-sampling run failed"), std::string::npos) << r.err;
  EXPECT_EQ(test::validate_against_schema("profile", dir.file("profile.json")), "");
  auto doc = nlohmann::json::parse(test::read_file(dir.file("profile.json")));
  EXPECT_TRUE(doc["pc_sampling"].contains("error"));
  EXPECT_FALSE(doc["kernels"].empty());
  EXPECT_EQ(test::run_cli({"profile", "--no-rocprof", "--pc-sampling", "--", "/bin/true"}).exit_code, 2);
}

}  // namespace
}  // namespace rpl
