#pragma once
// Kernel Tuner writes restrictions in Python ("use_padding==0 or block_size_x % 32 != 0",
// "32 <= block_size_x*block_size_y <= 1024"); ours are muparser expressions with C's operators. This rewrites the
// Python forms a restriction may use into ours, so that a user can paste Kernel Tuner's restrictions as they are:
// `and`, `or`, `not` (at Python's precedence: below comparisons), `True`, `False`, `**` (power), `//` (floor
// division) and chained comparisons (`a < b <= c` is `a < b and b <= c`, as in Python; in C it would compare a
// truth value with c), and quoted values compared with a parameter of strings. Expressions in our own syntax come
// back unchanged but for spacing. Constructs that have no equivalent here (`in`, `is`, `lambda`, `if ... else`,
// lists) are refused by name.
#include <string>
#include <vector>

#include "autotune/space.hpp"

namespace rpl::autotune {

// The expression in the operator set Restriction gives muparser (restriction.cpp), over the space's `parameters`
// (a parameter named True or False stays a parameter). A parameter of strings compared with == or != to a quoted
// value (`layout == "NHWC"`, `'NHWC' != layout`) is compared with what the restriction sees of that value
// (Parameter::value_of: its position); a value it does not list is refused, naming its values. Throws
// rpl::Error(Usage) naming the construct it cannot take.
std::string muparser_syntax(const std::string& expression, const std::vector<Parameter>& parameters);

}  // namespace rpl::autotune
