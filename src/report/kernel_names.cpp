#include "report/kernel_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "support/terminal_text.hpp"

namespace rpl::report {
namespace {

constexpr std::string_view kEllipsis = "...";
constexpr std::size_t kMinWidth = 12;

// Cuts `s` to at most `n` bytes without splitting a UTF-8 sequence.
std::string_view head_bytes(std::string_view s, std::size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}
std::string_view tail_bytes(std::string_view s, std::size_t n) {
  if (s.size() <= n) return s;
  std::size_t start = s.size() - n;
  while (start < s.size() && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) ++start;
  return s.substr(start);
}

// head ... middle ... tail, with `keep` (a window of the name around the first difference) kept when given.
std::string elide(std::string_view name, std::size_t width, std::size_t keep_at = std::string_view::npos) {
  width = std::max(width, kMinWidth);
  if (name.size() <= width) return std::string(name);
  if (keep_at == std::string_view::npos) {
    // Prefer to cut inside the template arguments: keep what precedes the first '<' and the end of the name.
    std::size_t budget = width - kEllipsis.size();
    std::size_t open = name.find('<');
    std::size_t head = budget * 3 / 5;
    if (open != std::string_view::npos && open + 1 < budget * 4 / 5) head = std::max(head, open + 1);
    head = std::min(head, budget - std::min<std::size_t>(budget / 4, budget));
    return fmt::format("{}{}{}", head_bytes(name, head), kEllipsis, tail_bytes(name, budget - head));
  }
  // Three parts: head, a window around the difference, tail.
  std::size_t budget = width - 2 * kEllipsis.size();
  std::size_t head = budget / 4, tail = budget / 6;
  if (std::size_t open = name.find('<'); open != std::string_view::npos && open + 1 <= budget / 2 && open + 1 < keep_at)
    head = std::max(head, open + 1);  // the kernel's own name, up to its template arguments
  std::size_t window = budget - head - tail;
  std::size_t from = keep_at > window / 3 ? keep_at - window / 3 : 0;
  if (from <= head) {  // the window touches the head: one cut only, after the window
    std::size_t keep = std::min(name.size(), budget + kEllipsis.size() - tail);
    return fmt::format("{}{}{}", head_bytes(name, keep), kEllipsis, tail_bytes(name, tail));
  }
  if (from + window >= name.size() - tail) {  // the window touches the tail: one cut before it
    std::size_t keep_tail = budget + kEllipsis.size() - head;
    return fmt::format("{}{}{}", head_bytes(name, head), kEllipsis, tail_bytes(name, keep_tail));
  }
  std::string_view mid = head_bytes(name.substr(from), window);
  return fmt::format("{}{}{}{}{}", head_bytes(name, head), kEllipsis, mid, kEllipsis, tail_bytes(name, tail));
}

// The short form drops what repeats or says little: a leading "void ", the namespaces of the kernel's name and,
// after template arguments, the parameter list (which repeats their types).
std::string_view without_noise(std::string_view name) {
  if (name.starts_with("void ")) name.remove_prefix(5);
  // The kernel's own name without its namespaces ("at::native::"): the text that tells kernels apart is the
  // name and its template arguments; the full form keeps the namespaces.
  const std::size_t own_end = std::min(name.find('<'), name.find('('));
  if (const std::size_t scope = name.substr(0, own_end).rfind("::"); scope != std::string_view::npos &&
                                                                       own_end != std::string_view::npos)
    name.remove_prefix(scope + 2);
  if (name.ends_with(")") && name.find('<') != std::string_view::npos) {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      else if (name[i] == '(' && --depth == 0) {
        if (i > 0 && name[i - 1] == '>') return name.substr(0, i);
        break;
      }
    }
  }
  return name;
}

std::size_t first_difference(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

bool parse_name_form(std::string_view text, NameForm& form) {
  if (text == "short") form = NameForm::Short;
  else if (text == "full") form = NameForm::Full;
  else if (text == "mangled") form = NameForm::Mangled;
  else return false;
  return true;
}

std::string shorten_middle(std::string_view name, std::size_t width) { return elide(without_noise(name), width); }

std::vector<std::string> display_names(const std::vector<std::string>& names, NameForm form, std::size_t width) {
  std::vector<std::string> lines(names.size()), out(names.size()), bases(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    lines[i] = rpl::one_line(names[i]);
    bases[i] = std::string(without_noise(lines[i]));
    out[i] = form == NameForm::Short ? elide(bases[i], width) : lines[i];
  }
  if (form != NameForm::Short) return out;
  // Collisions between different names: keep each one's first difference from the others in its group, in
  // the whole name (two overloads differ only in their parameters).
  for (int round = 0; round < 2; ++round) {
    std::map<std::string, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < out.size(); ++i) groups[out[i]].push_back(i);
    bool collided = false;
    for (auto& [shown, members] : groups) {
      bool distinct = false;
      for (std::size_t m : members) distinct |= lines[m] != lines[members.front()];
      if (!distinct) continue;
      collided = true;
      // Work on the short forms when they already tell the members apart (overloads need the whole name).
      std::set<std::string> distinct_bases, distinct_lines;
      for (std::size_t m : members) distinct_bases.insert(bases[m]), distinct_lines.insert(lines[m]);
      const auto& text = distinct_bases.size() == distinct_lines.size() ? bases : lines;
      for (std::size_t m : members) {
        std::size_t at = std::string_view::npos;
        for (std::size_t o : members)
          if (text[o] != text[m]) {
            std::size_t d = first_difference(text[m], text[o]);
            at = at == std::string_view::npos ? d : std::min(at, d);
          }
        if (round == 0) out[m] = elide(text[m], width, at);
      }
      if (round == 1) {  // still the same text: number them, in input order
        std::size_t n = 0;
        std::map<std::string, std::size_t> number_of;  // the same original keeps one number
        for (std::size_t m : members) {
          auto [it, added] = number_of.emplace(lines[m], n + 1);
          if (added) ++n;
          std::string suffix = fmt::format(" #{}", it->second);
          out[m] = elide(bases[m], width - std::min(width, suffix.size())) + suffix;
        }
      }
    }
    if (!collided) break;
  }
  return out;
}

KernelNames::KernelNames(const std::vector<NamePair>& names, NameForm form, std::size_t width)
    : form_(form), width_(width) {
  // One entry per display name; the mangled name wherever one of its mentions has it.
  std::vector<NamePair> unique;
  std::map<std::string, std::size_t> index;
  for (const auto& n : names) {
    auto [it, added] = index.emplace(n.display, unique.size());
    if (added) unique.push_back(n);
    else if (unique[it->second].mangled.empty()) unique[it->second].mangled = n.mangled;
  }
  std::vector<std::string> source;
  source.reserve(unique.size());
  for (const auto& n : unique) source.push_back(form == NameForm::Mangled && !n.mangled.empty() ? n.mangled : n.display);
  std::vector<std::string> shown = display_names(source, form, width);
  for (std::size_t i = 0; i < unique.size(); ++i) shown_.emplace(unique[i].display, std::move(shown[i]));
}

std::string KernelNames::operator()(const std::string& display_name) const {
  if (auto it = shown_.find(display_name); it != shown_.end()) return it->second;
  return form_ == NameForm::Short ? shorten_middle(rpl::one_line(display_name), width_) : rpl::one_line(display_name);
}

}  // namespace rpl::report
