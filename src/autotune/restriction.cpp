#include "autotune/restriction.hpp"

#include <muParser.h>

#include <cmath>
#include <limits>

#include "autotune/restriction_syntax.hpp"
#include "support/errors.hpp"

namespace rpl::autotune {
namespace {

// muparser works in doubles. Operands that hold integers (every tuning parameter in practice) get C's
// integer semantics for / and % (truncation toward zero); anything else gets floating-point division and
// fmod. Division or remainder by zero gives NaN, which makes the restriction false.
bool integral(double x) { return std::isfinite(x) && x == std::trunc(x) && std::fabs(x) < 9.0e15; }

double divide(double a, double b) {
  if (b == 0) return std::numeric_limits<double>::quiet_NaN();
  if (integral(a) && integral(b)) return static_cast<double>(static_cast<long long>(a) / static_cast<long long>(b));
  return a / b;
}
double remainder_c(double a, double b) {
  if (b == 0) return std::numeric_limits<double>::quiet_NaN();
  if (integral(a) && integral(b)) return static_cast<double>(static_cast<long long>(a) % static_cast<long long>(b));
  return std::fmod(a, b);
}
// Python's // (Kernel Tuner's restrictions): the floor of the quotient, for integers and decimals alike.
double floor_divide(double a, double b) {
  if (b == 0) return std::numeric_limits<double>::quiet_NaN();
  return std::floor(a / b);
}
double add(double a, double b) { return a + b; }
double subtract(double a, double b) { return a - b; }
double multiply(double a, double b) { return a * b; }
double power(double a, double b) { return std::pow(a, b); }
double less(double a, double b) { return a < b; }
double less_equal(double a, double b) { return a <= b; }
double greater(double a, double b) { return a > b; }
double greater_equal(double a, double b) { return a >= b; }
double equal(double a, double b) { return a == b; }
double not_equal(double a, double b) { return a != b; }
double logical_and(double a, double b) { return a != 0 && b != 0; }
double logical_or(double a, double b) { return a != 0 || b != 0; }
double logical_not(double a) { return a == 0; }
double negate(double a) { return -a; }
double unary_plus(double a) { return a; }

}  // namespace

struct Restriction::Parser {
  mu::Parser parser;
};

Restriction::Restriction(const std::string& expression, const std::vector<Parameter>& parameters, double* values)
    : expression_(expression), parser_(std::make_unique<Parser>()) {
  mu::Parser& p = parser_->parser;
  try {
    // The built-in operators are replaced as a set, because muparser refuses to redefine one of them (/).
    p.EnableBuiltInOprt(false);
    p.DefineOprt("||", logical_or, mu::prLOR);
    p.DefineOprt("&&", logical_and, mu::prLAND);
    p.DefineOprt("==", equal, mu::prCMP);
    p.DefineOprt("!=", not_equal, mu::prCMP);
    p.DefineOprt("<=", less_equal, mu::prCMP);
    p.DefineOprt(">=", greater_equal, mu::prCMP);
    p.DefineOprt("<", less, mu::prCMP);
    p.DefineOprt(">", greater, mu::prCMP);
    p.DefineOprt("+", add, mu::prADD_SUB);
    p.DefineOprt("-", subtract, mu::prADD_SUB);
    p.DefineOprt("*", multiply, mu::prMUL_DIV);
    p.DefineOprt("//", floor_divide, mu::prMUL_DIV);
    p.DefineOprt("/", divide, mu::prMUL_DIV);
    p.DefineOprt("%", remainder_c, mu::prMUL_DIV);
    p.DefineOprt("^", power, mu::prPOW, mu::oaRIGHT);
    p.DefineInfixOprt("-", negate);
    p.DefineInfixOprt("+", unary_plus);
    p.DefineInfixOprt("!", logical_not);
    for (std::size_t i = 0; i < parameters.size(); ++i) p.DefineVar(parameters[i].name, &values[i]);
    // Kernel Tuner's Python forms (and, or, not, chained comparisons, **, True) in ours (restriction_syntax.hpp).
    p.SetExpr(muparser_syntax(expression, parameters));
    const mu::varmap_type& used = p.GetUsedVar();  // parses; throws on syntax errors
    p.Eval();  // throws on names that are not parameters
    for (std::size_t i = 0; i < parameters.size(); ++i)
      if (used.count(parameters[i].name)) used_.push_back(i);
  } catch (const mu::Parser::exception_type& e) {
    std::string what = e.GetMsg();
    if (e.GetCode() == mu::ecUNASSIGNABLE_TOKEN)
      what = "unknown name \"" + e.GetToken() + "\" (not a parameter of the space)";
    throw Error(ExitCode::Usage, "restriction \"" + expression + "\" does not parse: " + what + " at position " +
                                     std::to_string(e.GetPos()));
  }
}

Restriction::~Restriction() = default;
Restriction::Restriction(Restriction&&) noexcept = default;
Restriction& Restriction::operator=(Restriction&&) noexcept = default;

bool Restriction::holds() const {
  try {
    const double v = parser_->parser.Eval();
    return std::isfinite(v) && v != 0;
  } catch (const mu::Parser::exception_type& e) {
    throw Error(ExitCode::Usage, "restriction \"" + expression_ + "\" cannot be evaluated: " + e.GetMsg());
  }
}

}  // namespace rpl::autotune
