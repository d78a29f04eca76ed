#pragma once
// A restriction of a search space: a boolean expression over the parameter names, evaluated by muparser
// with C-like integer semantics (see restriction.cpp for the operator set).
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace rpl::autotune {

class Restriction {
 public:
  // `names` are the parameters; `values` points at one double per name, which the caller sets before
  // calling holds(). Throws rpl::Error(Usage) naming the expression when it does not parse or uses an
  // unknown name.
  // `labels`: each parameter's listed strings or booleans, empty for a numeric one (Parameter::labels), so that a
  // quoted value compared with a parameter of strings is its position (restriction_syntax.hpp).
  Restriction(const std::string& expression, const std::vector<std::string>& names, double* values,
              const std::vector<std::vector<nlohmann::ordered_json>>& labels = {});
  ~Restriction();
  Restriction(Restriction&&) noexcept;
  Restriction& operator=(Restriction&&) noexcept;

  bool holds() const;
  const std::string& expression() const { return expression_; }
  // Indices (into names) of the parameters the expression reads.
  const std::vector<std::size_t>& used() const { return used_; }

 private:
  struct Parser;
  std::string expression_;
  std::unique_ptr<Parser> parser_;
  std::vector<std::size_t> used_;
};

}  // namespace rpl::autotune
