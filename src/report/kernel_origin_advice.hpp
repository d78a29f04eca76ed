#pragma once
// What to do about a finding on a kernel whose code is not the user's (model/kernel_origin.hpp): a library's
// kernel is changed through its call, a framework's by fusing or avoiding the op, a compiler's by tuning its
// configuration. The user's own kernels keep the finding's usual remedy.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/kernel_origin.hpp"

namespace rpl::report {

// {"kind": "vendor_library", "library": "cuBLAS"}; {"kind": "user", "library": null} for the user's own.
nlohmann::json origin_json(const KernelOrigin& origin);

// The remedy for finding `finding_id` on a kernel of this origin; nullopt for the user's own kernels and for
// findings whose remedy does not depend on who wrote the kernel.
std::optional<std::string> origin_remedy(const KernelOrigin& origin, std::string_view finding_id);

// A clause for the finding's message ("a cuBLAS kernel: ..."), or empty.
std::string origin_note(const KernelOrigin& origin, std::string_view finding_id);

// Adds the origin of each finding's kernel to its evidence and, where it changes what to do, its note and remedy.
void annotate_findings_with_origin(nlohmann::json& findings);

}  // namespace rpl::report
