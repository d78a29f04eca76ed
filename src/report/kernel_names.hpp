#pragma once
// Kernel names as a person reads them in a terminal or a report: control characters made visible (a newline
// or tab in a name must not forge a table line), and long names shortened in the middle of their template
// arguments, never into strings that two different kernels share.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::report {

enum class NameForm { Short, Full, Mangled };

// "short", "full", "mangled": sets `form`; false (form untouched) for anything else.
bool parse_name_form(std::string_view text, NameForm& form);

// The short form of one name, at most `width` bytes (at least 12): without a leading "void ", without the
// namespaces of the kernel's own name and, after template arguments, without the parameter list; then the head (up to the template arguments where they
// start early) and the tail kept, the middle replaced by "...".
std::string shorten_middle(std::string_view name, std::size_t width);

// The names as displayed, one per input, in order: rpl::one_line() of each (control characters, newline and
// tab included, as visible escapes), shortened to `width` for NameForm::Short
// (Full and Mangled keep the whole text). Distinct inputs stay distinct: where two shortened names collide,
// the elided part moves to keep the place where the originals first differ, and as a last resort a "#n"
// suffix tells them apart.
std::vector<std::string> display_names(const std::vector<std::string>& names, NameForm form, std::size_t width);

struct NamePair {
  std::string display;  // the demangled name analyses group by
  std::string mangled;  // empty when unknown (copies, ranges): the display name is shown
};

// The names one output shows, decided once for every kernel it names so that a kernel reads the same in
// every table and distinct kernels never share a text. Names given twice are one kernel.
class KernelNames {
 public:
  KernelNames(const std::vector<NamePair>& names, NameForm form, std::size_t width);
  // The text for a display name; a name not given to the constructor is shown alone (escaped, shortened).
  std::string operator()(const std::string& display_name) const;
  NameForm form() const { return form_; }

 private:
  std::map<std::string, std::string> shown_;
  NameForm form_;
  std::size_t width_;
};

}  // namespace rpl::report
