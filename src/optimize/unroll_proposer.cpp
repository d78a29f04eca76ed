#include "optimize/unroll_proposer.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "optimize/hoisting.hpp"
#include "support/errors.hpp"

namespace rpl::optimize {

std::vector<Candidate> unroll_candidates(const SourceModel& model, const std::string& kernel) {
  const KernelInfo* k = model.find(kernel);
  if (!k) return {};
  std::vector<const LoopInfo*> loops;
  for (const auto& l : k->loops)
    if (l.kind == "for" && !l.has_pragma) loops.push_back(&l);
  std::stable_sort(loops.begin(), loops.end(), [](const LoopInfo* a, const LoopInfo* b) {
    if (a->innermost != b->innermost) return a->innermost;
    return a->depth > b->depth;
  });
  std::vector<Candidate> out;
  for (const LoopInfo* l : loops) {
    std::size_t line_start = model.text.rfind('\n', l->offset == 0 ? 0 : l->offset - 1);
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    std::string indent = model.text.substr(line_start, l->offset - line_start);
    bool own_line = std::all_of(indent.begin(), indent.end(), [](char c) { return c == ' ' || c == '\t'; });
    for (int factor : {4, 2, 8, 3, 6, 5, 7}) {
      Candidate c;
      c.id = fmt::format("unroll-L{}-x{}", l->line, factor);
      c.proposer = "deterministic";
      c.description = fmt::format("#pragma unroll {} on the {} loop at line {}{}", factor, l->kind, l->line,
                                  l->innermost ? " (innermost)" : "");
      std::string pragma = fmt::format("#pragma unroll {}\n", factor);
      c.source_text = own_line ? model.text.substr(0, line_start) + indent + pragma + model.text.substr(line_start)
                               : model.text.substr(0, l->offset) + "\n" + pragma + model.text.substr(l->offset);
      c.details = {{"transformation", "unroll"}, {"loop_line", l->line}, {"loop_depth", l->depth},
                   {"innermost", l->innermost}, {"factor", factor}};
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<Candidate> DeterministicProposer::propose(const ProposalRequest& request) {
  SourceModel model = parse_source(request.source_path, request.source_text, request.parser_flags);
  std::vector<Candidate> all = hoist_candidates(request.source_path, request.source_text, request.kernel_name, request.parser_flags);
  for (auto& c : unroll_candidates(model, request.kernel_name)) all.push_back(std::move(c));
  std::vector<Candidate> out;
  while (next_ < all.size() && out.size() < std::size_t(std::max(0, request.max_candidates))) {
    all[next_].round = request.round;
    out.push_back(std::move(all[next_++]));
  }
  return out;
}

std::vector<Candidate> FileProposer::propose(const ProposalRequest& request) {
  std::vector<Candidate> out;
  while (next_ < files_.size() && out.size() < std::size_t(std::max(0, request.max_candidates))) {
    const std::string& f = files_[next_++];
    std::ifstream in(f, std::ios::binary);
    if (!in) throw Error(ExitCode::InputMissing, fmt::format("--candidate {}: cannot be read", f));
    std::stringstream ss;
    ss << in.rdbuf();
    Candidate c;
    c.id = fmt::format("file-{}", std::filesystem::path(f).stem().string());
    c.proposer = "file";
    c.description = "whole source from " + f;
    c.source_text = ss.str();
    c.round = request.round;
    c.details = {{"file", f}};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace rpl::optimize
