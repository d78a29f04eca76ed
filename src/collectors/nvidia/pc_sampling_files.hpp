#pragma once
// The NVIDIA PC-sampling pass's files, read by rocm-perf: the injection library
// (nvidia/pc_sampling_injection/) writes, per process, pc_samples_<pid>.csv with the header
//   function,cubin_crc,pc_offset,stall_reason,samples,file,line
// (one row per function, PC and stall reason with samples; file/line from cuptiGetSassToSourceCorrelation
// where the cubin has line information, else empty/0) and every loaded cubin as cubin_<crc>.cubin.
// nvdisasm's listing of a cubin gives each PC its SASS text.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/pc_samples.hpp"

namespace rpl::collectors {

// Throws rpl::Error(InputInvalid) naming `source` and the line for a malformed row or a missing column.
std::vector<PcSampleRecord> parse_pc_samples_csv(std::string_view text, const std::string& source);

// function name -> pc offset (from the function's start) -> instruction text, from `nvdisasm` output (the
// default listing: ".text.<function>:" labels, then "/*0040*/  LDG.E R2, desc[UR4][R2.64] ;").
using SassListing = std::map<std::string, std::map<uint64_t, std::string>>;
SassListing parse_nvdisasm_listing(std::string_view text);

// Fills PcSampleRecord::instruction of the records of cubin `crc` from its listing.
void attach_sass(std::vector<PcSampleRecord>& records, uint64_t crc, const SassListing& listing);

}  // namespace rpl::collectors
