#include "analysis/library_calls.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/analysis_window.hpp"
#include "analysis/trace_summaries.hpp"
#include "model/kernel_origin.hpp"

namespace rpl::analysis {
namespace {

struct ApiPrefix {
  std::string_view prefix, library;
};

// Longer prefixes first: "hipblasLt" before "hipblas", "cublasLt" before "cublas". The prefixes are the
// libraries' documented API names (hipblasLtMatmul, miopenConvolutionForward, rocblas_sgemm, cublasSgemm_v2,
// cublasLtMatmul, cudnnConvolutionForward).
constexpr ApiPrefix kPrefixes[] = {{"hipblasLt", "hipBLASLt"}, {"hipblas", "hipBLAS"},   {"rocblas_", "rocBLAS"},
                                   {"miopen", "MIOpen"},       {"cublasLt", "cuBLASLt"}, {"cublas", "cuBLAS"},
                                   {"cudnn", "cuDNN"}};

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string_view to_string(CallLink link) {
  switch (link) {
    case CallLink::MarkerRange: return "marker_range";
    case CallLink::TimeWindow: return "time_window";
    case CallLink::Order: return "order";
    case CallLink::None: break;
  }
  return "none";
}

std::optional<LibraryFunction> library_function(std::string_view name) {
  for (std::size_t i = 0; i < name.size();) {
    if (!word_char(name[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < name.size() && word_char(name[end])) ++end;
    const std::string_view word = name.substr(i, end - i);
    for (const ApiPrefix& p : kPrefixes)
      // a bare prefix ("cudnn") or a prefix inside another word is no call
      if (word.size() > p.prefix.size() && word.starts_with(p.prefix))
        return LibraryFunction{std::string(p.library), std::string(word)};
    i = end;
  }
  return std::nullopt;
}

std::vector<LibraryCall> library_calls(const Trace& trace) {
  std::vector<std::size_t> ranges;
  std::vector<LibraryFunction> functions;
  for (std::size_t i = 0; i < trace.api_calls.size(); ++i) {
    const ApiCall& a = trace.api_calls[i];
    if (!is_marker_range(trace, a)) continue;
    if (auto f = library_function(trace.strings.at(a.name))) {
      ranges.push_back(i);
      functions.push_back(std::move(*f));
    }
  }
  const std::vector<RangeSummary> work = range_instance_work(trace, ranges);
  std::vector<LibraryCall> out(ranges.size());
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    const ApiCall& a = trace.api_calls[ranges[k]];
    LibraryCall& c = out[k];
    c.call = std::move(functions[k]);
    c.range_name = work[k].name;
    c.process = a.process;
    c.thread = a.thread;
    c.start = a.start;
    c.end = std::max(a.start, a.end);
    c.gpu_kernels = work[k].gpu_kernels;
    c.gpu_copies = work[k].gpu_copies;
    c.gpu_busy_ns = work[k].gpu_busy_ns;
  }
  std::stable_sort(out.begin(), out.end(), [](const LibraryCall& a, const LibraryCall& b) {
    return std::tie(a.start, a.process, a.thread) < std::tie(b.start, b.process, b.thread);
  });
  return out;
}

std::vector<LibraryFunctionSummary> library_summary(const std::vector<LibraryCall>& calls) {
  std::map<std::pair<std::string, std::string>, LibraryFunctionSummary> by_function;
  for (const LibraryCall& c : calls) {
    LibraryFunctionSummary& s = by_function[{c.call.library, c.call.function}];
    const TimeNs d = c.end - c.start;
    s.call = c.call;
    s.min_ns = s.calls == 0 ? d : std::min(s.min_ns, d);
    s.max_ns = s.calls == 0 ? d : std::max(s.max_ns, d);
    s.total_ns += d;
    ++s.calls;
    s.gpu_kernels += c.gpu_kernels;
    s.gpu_copies += c.gpu_copies;
    s.gpu_busy_ns += c.gpu_busy_ns;
  }
  std::vector<LibraryFunctionSummary> out;
  for (auto& entry : by_function) out.push_back(std::move(entry.second));
  std::stable_sort(out.begin(), out.end(), [](const LibraryFunctionSummary& a, const LibraryFunctionSummary& b) {
    return a.total_ns > b.total_ns;
  });
  return out;
}

std::vector<LibraryKernelsWithoutCalls> library_kernels_without_calls(const Trace& trace,
                                                                      const std::vector<LibraryCall>& calls) {
  struct Marked {
    std::string_view origin;              // kernel_origin's library
    std::string_view call, other_call;    // the call libraries whose calls launch those kernels
  };
  static constexpr Marked kMarked[] = {{"cuBLAS", "cuBLAS", "cuBLASLt"},
                                       {"cuDNN", "cuDNN", "cuDNN"},
                                       {"hipBLASLt", "hipBLASLt", "hipBLASLt"},
                                       {"MIOpen", "MIOpen", "MIOpen"}};
  std::set<std::string, std::less<>> called;
  for (const LibraryCall& c : calls) called.insert(c.call.library);
  // dispatches per symbol, then per kernel name within each library
  std::vector<std::size_t> per_symbol(trace.symbols.size(), 0);
  for (std::size_t i = 0; i < trace.dispatches.size(); ++i)
    if (trace.dispatches.symbol_of(i) < per_symbol.size()) ++per_symbol[trace.dispatches.symbol_of(i)];
  std::vector<LibraryKernelsWithoutCalls> out;
  for (const Marked& m : kMarked) {
    if (called.count(m.call) || called.count(m.other_call)) continue;
    std::vector<std::pair<Index, std::size_t>> by_name;  // (display name, dispatches), first seen first
    for (std::size_t s = 0; s < trace.symbols.size(); ++s) {
      if (per_symbol[s] == 0) continue;
      const Index name = trace.symbols[s].display_name;
      if (kernel_origin(trace.strings.at(name)).library != m.origin) continue;
      auto it = std::find_if(by_name.begin(), by_name.end(), [&](const auto& e) { return e.first == name; });
      if (it == by_name.end()) by_name.emplace_back(name, per_symbol[s]);
      else it->second += per_symbol[s];
    }
    if (by_name.empty()) continue;
    LibraryKernelsWithoutCalls k{std::string(m.origin), 0, by_name.size(), ""};
    std::size_t most = 0;
    for (const auto& [name, n] : by_name) {
      k.dispatches += n;
      if (n > most) {
        most = n;
        k.example = trace.strings.at(name);
      }
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rpl::analysis
