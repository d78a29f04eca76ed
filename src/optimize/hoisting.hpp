#pragma once
// The deterministic proposer's second transformation: hoisting loop-invariant loads out of a loop, only where
// the parser proves it safe:
// - the load reads a kernel parameter declared `const T* __restrict__` that the kernel never reassigns (the
//   restrict contract: nothing writes that memory during the launch);
// - its index uses only literals, builtin indices (threadIdx, ...) and variables declared before the loop and
//   never assigned in it (no calls, no loop variable);
// - it runs on every iteration (not under if, ?:, &&, ||, switch or an inner loop), and the loop provably
//   runs at least once (constant bounds: `for (int k = A; k < B; ++k)` with A < B), so the hoisted load
//   reads nothing the original would not have read.
// The load becomes `const auto rpl_hoisted_L<line>_<n> = <load>;` before the loop; every occurrence in the loop
// reads that constant.
#include <vector>

#include "optimize/proposer.hpp"

namespace rpl::optimize {

std::vector<Candidate> hoist_candidates(const std::string& path, const std::string& text, const std::string& kernel,
                                        const std::vector<std::string>& parser_flags = {});

}  // namespace rpl::optimize
