// Search spaces: restrictions through muparser with C integer semantics, enumeration, and bad input.
#include <gtest/gtest.h>

#include <set>

#include "autotune/space.hpp"
#include "support/errors.hpp"

namespace rpl::autotune {
namespace {

SearchSpace make(const std::string& text) { return SearchSpace::from_json(nlohmann::ordered_json::parse(text), "test.json"); }

std::string error_of(const std::string& text) {
  try {
    make(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::Usage);
    return e.what();
  }
  return "";
}

TEST(AutotuneSpace, EnumeratesTheProductInOrder) {
  SearchSpace s = make(R"({"parameters": {"A": [1, 2], "B": [10, 20, 30]}})");
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s.key(s.config(0)), "A=1,B=10");
  EXPECT_EQ(s.key(s.config(5)), "A=2,B=30");
  EXPECT_EQ(s.find({2, 20}), 4u);
  EXPECT_EQ(s.find({3, 20}), SearchSpace::npos);
  EXPECT_EQ(s.cartesian_size(), 6.0);
}

TEST(AutotuneSpace, IntegerDivisionAndRemainderAreC) {
  // 7/3 == 2 and 8/3 == 2 only with truncating division; 9/3 == 3.
  SearchSpace s = make(R"({"parameters": {"X": [6, 7, 8, 9]}, "restrictions": ["X / 3 == 2"]})");
  EXPECT_EQ(s.size(), 3u);
  SearchSpace r = make(R"({"parameters": {"X": [5, 6, 7, 8]}, "restrictions": ["(X % 3) == 2"]})");
  ASSERT_EQ(r.size(), 2u);  // 5 and 8
  EXPECT_EQ(r.value(r.config(0), 0), 5);
  EXPECT_EQ(r.value(r.config(1), 0), 8);
  // C truncates toward zero: -7 / 2 == -3 and -7 % 3 == -1.
  EXPECT_EQ(make(R"({"parameters": {"X": [1]}, "restrictions": ["-7 / 2 == -3 && -7 % 3 == -1"]})").size(), 1u);
  // Non-integers divide as floating point.
  EXPECT_EQ(make(R"({"parameters": {"X": [0.5, 1.5]}, "restrictions": ["X / 2 == 0.25"]})").size(), 1u);
  // Division by zero makes the restriction false instead of failing the run.
  EXPECT_EQ(make(R"({"parameters": {"X": [0, 2]}, "restrictions": ["4 / X == 2"]})").size(), 1u);
}

TEST(AutotuneSpace, LogicalOperatorsAndPrecedence) {
  SearchSpace s = make(R"({"parameters": {"M": [16, 32, 64], "N": [16, 32, 64]},
      "restrictions": ["M*N <= 2048 && !(M == N) || M + N == 128"]})");
  // M*N <= 2048 and M != N: the 6 pairs of different values; or M+N == 128: (64,64).
  EXPECT_EQ(s.size(), 7u);
  EXPECT_EQ(make(R"({"parameters": {"A": [2, 3]}, "restrictions": ["2 + 3 * A == 11"]})").size(), 1u);
  EXPECT_EQ(make(R"({"parameters": {"A": [2, 3]}, "restrictions": ["2 ^ A == 8"]})").size(), 1u);
}

// Kernel Tuner's restrictions are Python, and a user pastes them as they are. Before, "and"/"or" did not parse, and
// a chained comparison ("32 <= A*B <= 512", in Kernel Tuner's own tests) parsed as C's (32 <= A*B) <= 512: always
// true, every configuration admitted without a word.
TEST(AutotuneSpace, KernelTunerRestrictionsInPythonMeanWhatTheySayInPython) {
  const auto size = [](const std::string& restriction) {
    return make(R"({"parameters": {"A": [1, 2, 4, 8, 16, 32], "B": [1, 2, 4, 8, 16, 32], "C": [0, 1]},
                   "restrictions": [")" + restriction + R"("]})").size();
  };
  // The chain: 32 <= A*B <= 256, as Python reads it, and never the C reading (every one of the 72).
  EXPECT_EQ(size("32 <= A*B <= 256"), size("32 <= A*B && A*B <= 256"));
  EXPECT_LT(size("32 <= A*B <= 256"), 72u);
  EXPECT_EQ(size("1 < A < B <= 16"), size("1 < A && A < B && B <= 16"));
  EXPECT_EQ(size("(2 <= A <= 8) or C == 1"), size("(2 <= A && A <= 8) || C == 1"));
  // Kernel Tuner's convolution restriction, word for word, against ours.
  EXPECT_EQ(size("C==0 or (A % 32 != 0)"), size("C == 0 || (A % 32 != 0)"));
  EXPECT_EQ(size("A*B >= 32 and not C == 1"), size("A*B >= 32 && C != 1"));  // not below ==, as in Python
  EXPECT_EQ(size("not (A == 1 or B == 1) and C"), size("A != 1 && B != 1 && C != 0"));
  EXPECT_EQ(size("A ** 2 <= 64"), size("A <= 8"));
  EXPECT_EQ(size("A // 4 == 2"), size("A == 8"));
  EXPECT_EQ(size("C == True"), size("C == 1"));
  EXPECT_EQ(size("min(A, B) >= 4 and max(A, B) <= 16"), size("A >= 4 && B >= 4 && A <= 16 && B <= 16"));
  // // floors as Python's does (C's / truncates): -7 // 2 == -4.
  EXPECT_EQ(make(R"({"parameters": {"X": [1]}, "restrictions": ["-7 // 2 == -4 and 7 // 2 == 3"]})").size(), 1u);
  // Our own syntax, untouched.
  EXPECT_EQ(size("!(A == 1) && B > 2"), size("A != 1 && B > 2"));
  // What has no equivalent is refused by name; an unbalanced chain still reaches muparser's message.
  const std::string in = error_of(R"({"parameters": {"A": [1, 2]}, "restrictions": ["A in [1, 2]"]})");
  EXPECT_NE(in.find("restriction \"A in [1, 2]\""), std::string::npos) << in;
  EXPECT_NE(in.find("X == 1 || X == 2"), std::string::npos) << in;
  const std::string lambda = error_of(R"({"parameters": {"A": [1, 2]}, "restrictions": ["lambda p: p > 1"]})");
  EXPECT_NE(lambda.find("Python's \"lambda\""), std::string::npos) << lambda;
  EXPECT_NE(error_of(R"({"parameters": {"A": [1]}, "restrictions": ["1 < (A <= 4"]})").find("does not parse"),
            std::string::npos);
}

// Parameters of strings and booleans in Kernel Tuner's restrictions: a quoted value compared with a parameter of
// strings is that value; booleans alone are 1 for true and 0 for false, whatever order they are listed in (before,
// [true, false] made true 0, so "use_shmem == True" would have selected false).
TEST(AutotuneSpace, StringsAndBooleansCompareAsKernelTunerWritesThem) {
  const std::string params = R"("parameters": {"layout": ["NCHW", "NHWC"], "vec": [true, false], "bs": [32, 64]})";
  const auto admitted = [&](const std::string& restriction) {
    SearchSpace s = make("{" + params + R"(, "restrictions": [")" + restriction + R"("]})");
    std::set<std::string> out;
    for (std::size_t i = 0; i < s.size(); ++i) out.insert(s.key(s.config(i)));
    return out;
  };
  EXPECT_EQ(admitted("vec == True"), admitted("vec"));
  EXPECT_EQ(admitted("vec == True"), admitted("vec == 1"));
  for (const auto& key : admitted("vec == True")) EXPECT_NE(key.find("vec=True"), std::string::npos) << key;
  EXPECT_EQ(admitted("vec == True").size(), 4u);
  EXPECT_EQ(admitted("not vec"), admitted("vec == False"));
  const auto nhwc = admitted("layout == \\\"NHWC\\\"");
  EXPECT_EQ(nhwc.size(), 4u);
  for (const auto& key : nhwc) EXPECT_NE(key.find("layout=NHWC"), std::string::npos) << key;
  EXPECT_EQ(admitted("'NHWC' == layout"), nhwc);
  EXPECT_EQ(admitted("layout != 'NCHW' and bs >= 64 or vec == False").size(), 2u + 4u - 1u);
  // What a quoted value cannot mean is refused, naming it.
  const auto error = [&](const std::string& restriction) {
    return error_of("{" + params + R"(, "restrictions": [")" + restriction + R"("]})");
  };
  EXPECT_NE(error("layout == 'NCWH'").find("\"NCWH\" is not one of layout's values (\"NCHW\", \"NHWC\")"),
            std::string::npos) << error("layout == 'NCWH'");
  EXPECT_NE(error("layout < 'NHWC'").find("can only be compared with == or !="), std::string::npos);
  EXPECT_NE(error("bs == 'NHWC'").find("can only be compared with == or != to a parameter that lists strings"),
            std::string::npos) << error("bs == 'NHWC'");
  EXPECT_NE(error("layout == 'NHWC").find("not closed"), std::string::npos);
}

TEST(AutotuneSpace, BadInputNamesTheValue) {
  EXPECT_NE(error_of(R"({"parameters": {}})").find("empty"), std::string::npos);
  EXPECT_NE(error_of(R"({"parameters": {"BM": []}})").find("\"BM\" has no values"), std::string::npos);
  EXPECT_NE(error_of(R"({"parameters": {"BM": [1, "x"]}})").find("\"x\" is not a number"), std::string::npos);
  EXPECT_NE(error_of(R"({"parameters": {"BM": [1, 1]}})").find("listed twice"), std::string::npos);
  const std::string parse = error_of(R"({"parameters": {"BM": [1]}, "restrictions": ["BM <= (4"]})");
  EXPECT_NE(parse.find("\"BM <= (4\" does not parse"), std::string::npos) << parse;
  const std::string unknown = error_of(R"({"parameters": {"BM": [1]}, "restrictions": ["BN < 4"]})");
  EXPECT_NE(unknown.find("unknown name \"BN\""), std::string::npos) << unknown;
  const std::string none = error_of(R"({"parameters": {"BM": [1, 2]}, "restrictions": ["BM > 4"]})");
  EXPECT_NE(none.find("exclude every one of the 2 configurations"), std::string::npos) << none;
  EXPECT_NE(none.find("BM > 4"), std::string::npos);
  EXPECT_NE(error_of(R"({"parameters": {"BM": [1]}, "restrict": []})").find("unknown key \"restrict\""), std::string::npos);
}

TEST(AutotuneSpace, RestrictionsPruneEarly) {
  // 40^5 = 102 million combinations; the restriction on the first two parameters prunes almost all of them
  // before the rest are enumerated.
  std::string values = "[";
  for (int i = 1; i <= 40; ++i) values += std::to_string(i) + (i < 40 ? "," : "]");
  SearchSpace s = make(R"({"parameters": {"A": )" + values + R"(, "B": )" + values + R"(, "C": )" + values +
                       R"(, "D": [1, 2], "E": [1, 2]}, "restrictions": ["A == 1 && B == 2"]})");
  EXPECT_EQ(s.size(), 40u * 4u);
}

}  // namespace
}  // namespace rpl::autotune
