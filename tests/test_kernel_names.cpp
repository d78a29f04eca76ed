// Kernel names as displayed (issue 29): one line each, shortened in the middle, never into identical strings.
#include <gtest/gtest.h>

#include <set>

#include "report/kernel_names.hpp"
#include "support/terminal_text.hpp"

using rpl::report::display_names;
using rpl::report::NameForm;
using rpl::one_line;
using rpl::report::shorten_middle;

TEST(KernelNames, ControlCharactersCannotForgeLines) {
  EXPECT_EQ(one_line("evil\nfake row\tcol\x1b[2J\r"), "evil\\x0afake row\\x09col\\x1b[2J\\x0d");
  EXPECT_EQ(one_line("caf\xc3\xa9\xc2\x9b"), "caf\xc3\xa9\\u009b");  // UTF-8 kept, C1 escaped
  auto shown = display_names({"a\nb"}, NameForm::Full, 80);
  EXPECT_EQ(shown[0].find('\n'), std::string::npos);
}

TEST(KernelNames, ShortNamesAreKeptAndLongOnesCutInTheMiddle) {
  EXPECT_EQ(shorten_middle("gemm_kernel", 40), "gemm_kernel");
  std::string name =
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
  std::string s = shorten_middle(name, 60);
  EXPECT_LE(s.size(), 60u);
  EXPECT_NE(s.find("..."), std::string::npos);
  EXPECT_EQ(s.rfind("vectorized_elementwise_kernel<", 0), 0u) << s;  // no "void", no namespaces, the head to '<'
  EXPECT_EQ(s.substr(s.size() - 4), "1> >") << s;  // the end of the template arguments, not the parameters
  // Overloads that differ only in their parameters stay apart.
  auto overloads = display_names({"k<int>(float)", "k<int>(double)"}, NameForm::Short, 40);
  EXPECT_NE(overloads[0], overloads[1]);
}

TEST(KernelNames, TemplatedKernelsThatDifferInTheMiddleStayDistinct) {
  std::vector<std::string> names;
  for (const char* t : {"float", "c10::Half", "c10::BFloat16", "double"})
    names.push_back(std::string("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
                                "at::native::CUDAFunctor_add<") +
                    t + "> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<" + t +
                    "> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::"
                    "CUDAFunctor_add<" + t + "> >(at::TensorIteratorBase&)::{lambda(int)#1})");
  for (std::size_t width : {30u, 44u, 60u, 100u}) {
    auto shown = display_names(names, NameForm::Short, width);
    std::set<std::string> unique(shown.begin(), shown.end());
    EXPECT_EQ(unique.size(), names.size()) << "width " << width;
    for (const auto& s : shown) EXPECT_LE(s.size(), width) << s;
  }
  // The same name twice is the same kernel: it keeps one text.
  auto twice = display_names({names[0], names[0]}, NameForm::Short, 40);
  EXPECT_EQ(twice[0], twice[1]);
}

TEST(KernelNames, NamesDifferingOnlyInTheElidedEndAreNumberedAsALastResort) {
  std::string base(200, 'x');
  auto shown = display_names({base + "a" + base, base + "b" + base}, NameForm::Short, 20);
  EXPECT_NE(shown[0], shown[1]);
  EXPECT_LE(shown[0].size(), 20u);
}

TEST(KernelNames, FullFormKeepsEverything) {
  std::string name(300, 'k');
  EXPECT_EQ(display_names({name}, NameForm::Full, 40)[0], name);
  NameForm f;
  EXPECT_TRUE(rpl::report::parse_name_form("mangled", f));
  EXPECT_EQ(f, NameForm::Mangled);
  EXPECT_FALSE(rpl::report::parse_name_form("long", f));
}

TEST(KernelNames, OneOutputShowsEachKernelTheSameWayAndMangledOnRequest) {
  using rpl::report::KernelNames;
  std::vector<rpl::report::NamePair> names = {{"k<float>(float*)", "_Z1kIfEvPT_"}, {"k<double>(double*)", ""},
                                              {"k<float>(float*)", ""}, {"MEMORY_COPY_HOST_TO_DEVICE", ""}};
  KernelNames mangled(names, NameForm::Mangled, 40);
  EXPECT_EQ(mangled("k<float>(float*)"), "_Z1kIfEvPT_");  // the mention without it takes the other's mangled name
  EXPECT_EQ(mangled("k<double>(double*)"), "k<double>(double*)");  // none known: the display name
  KernelNames shortened(names, NameForm::Short, 40);
  EXPECT_EQ(shortened("k<float>(float*)"), "k<float>");  // the parameter list repeats the template arguments
  EXPECT_NE(shortened("k<float>(float*)"), shortened("k<double>(double*)"));
  EXPECT_EQ(shortened("not\tgiven"), "not\\x09given");  // a name not given is still escaped
  EXPECT_EQ(shortened("MEMORY_COPY_HOST_TO_DEVICE"), "MEMORY_COPY_HOST_TO_DEVICE");
}

TEST(KernelNames, TerminalSafeKeepsLinesButOneLineDoesNot) {
  EXPECT_EQ(rpl::terminal_safe("a\nb\tc\x1b"), "a\nb\tc\\x1b");
  EXPECT_EQ(one_line("a\nb\tc\x1b"), "a\\x0ab\\x09c\\x1b");
}
