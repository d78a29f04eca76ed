#pragma once
// AMD thread trace (ATT, `profile --deep`): each kernel's costliest ISA lines and the stall breakdown of its
// traced waves, on the terminal and in report.html. analysis.json's ranking carries every line and wave
// (deep_analysis.hot_lines, deep_analysis.waves); these views show the top of them.
#include <cstddef>
#include <string>

#include "app/analyze.hpp"
#include "report/kernel_names.hpp"

namespace rpl::report {

// The ranked kernels (at most `max_kernels`) whose deep analysis has ATT lines or waves: each with its
// `rows` costliest lines and its `rows` most stalled waves, in tables that fit `width`. "" when none has.
std::string att_terminal(const app::AnalyzeResults& r, const KernelNames& names, std::size_t max_kernels,
                         std::size_t rows, std::size_t width);

// A complete <h2> section: per kernel, a table of its costliest lines and one of its traced waves (at most
// `max_waves`, the rest counted). "" when no kernel has ATT data.
std::string att_html(const app::AnalyzeResults& r, std::size_t max_kernels, std::size_t max_waves);

}  // namespace rpl::report
