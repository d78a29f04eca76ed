#pragma once
// A restriction of a search space: a boolean expression over the parameter names, evaluated by muparser
// with C-like integer semantics (see restriction.cpp for the operator set).
#include <memory>
#include <string>
#include <vector>

#include "autotune/space.hpp"

namespace rpl::autotune {

class Restriction {
 public:
  // `parameters` are the space's (their names, and their listed strings for quoted values: restriction_syntax.hpp);
  // `values` points at one double per parameter, which the caller sets before calling holds(). Throws
  // rpl::Error(Usage) naming the expression when it does not parse or uses an unknown name.
  Restriction(const std::string& expression, const std::vector<Parameter>& parameters, double* values);
  ~Restriction();
  Restriction(Restriction&&) noexcept;
  Restriction& operator=(Restriction&&) noexcept;

  bool holds() const;
  const std::string& expression() const { return expression_; }
  // Indices (into parameters) of the parameters the expression reads.
  const std::vector<std::size_t>& used() const { return used_; }

 private:
  struct Parser;
  std::string expression_;
  std::unique_ptr<Parser> parser_;
  std::vector<std::size_t> used_;
};

}  // namespace rpl::autotune
