#pragma once
// Counter files (`profile --counters FILE`): rocprofv3's text input format, used on both vendors.
//   # a comment (also after counters on a line)
//   pmc: SQ_WAVES SQ_INSTS_VALU GRBM_GUI_ACTIVE
//   pmc: TCC_HIT_sum, TCC_MISS_sum
// Each "pmc:" line is one pass: on AMD one application run under rocprofv3 -i; on NVIDIA the names are
// ncu / CUPTI metric names and all lines are collected in one run (ncu and CUPTI replay each kernel per
// hardware pass themselves). Counters are separated by spaces or commas. Pure: the caller reads the file.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::analysis {

struct CounterFileLine {
  std::size_t line = 0;              // 1-based, in the file
  std::vector<std::string> counters;
};

struct CounterFile {
  std::string path;                   // as given, named in messages
  std::vector<CounterFileLine> passes;  // one per pmc: line, in file order
  // Every counter once, in file order.
  std::vector<std::string> all_counters() const;
  // Where a counter first appears ("FILE:LINE").
  std::string where(const std::string& counter) const;
};

// Parses the text of a counter file. Throws rpl::Error(Usage) naming "PATH:LINE" and what is wrong: a line
// that is neither blank, a comment nor "pmc:"; a pmc line without counters; a name with characters no
// counter has; a counter twice on one line; a file without any pmc line.
CounterFile parse_counter_file(std::string_view text, const std::string& path);

// AMD: the application runs rocprofv3 will make. A pmc line that asks more counters of a hardware block than
// one pass can count (amd_block_limit: SQ 8, TCC 4, ...) is split first-fit into several passes, so that
// rocprofv3 does not reject it; counters of blocks without a known limit (derived counters) stay on their
// line. The result is the list of passes, each a line of rocprofv3 -i input.
std::vector<std::vector<std::string>> plan_amd_counter_passes(const CounterFile& file);
// rocprofv3 -i text for `passes`: a header comment naming the file, then "pmc: A B C" per pass.
std::string rocprofv3_input_text(const std::vector<std::vector<std::string>>& passes, const std::string& source);

}  // namespace rpl::analysis
