#!/usr/bin/env python3
"""Tests of scripts/check_unity_names.py on small trees: it fails naming the library, the name and both files
when two sources of one library define the same file-scope name (an anonymous namespace's function, struct or
constant, a `static` function), whatever the signatures; it passes names in different libraries, members
defined out of their class, and names in named namespaces. Standard library only."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "..", "..", "scripts", "check_unity_names.py")


class CheckUnityNames(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check_unity_names.")

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def run_check(self):
        return subprocess.run([sys.executable, CHECK, self.root], capture_output=True, text=True)

    def test_clean_tree_passes(self):
        self.write("src/report/a.cpp", "namespace rpl::report {\nnamespace {\nint width(int x) { return x; }\n"
                                       "struct Row { int w; };\n}  // namespace\n"
                                       "int Table::width(int x) const { return x; }\n}\n")
        self.write("src/report/b.cpp", "namespace rpl::report {\nint Other::width() const { return 1; }\n"
                                       "int exported(int x) { return x; }\n}\n")
        self.write("src/analysis/c.cpp", "namespace rpl::analysis {\nnamespace {\nint width(int x) { return x; }\n"
                                         "}\n}\n")
        r = self.run_check()
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_same_function_in_two_sources_fails(self):
        self.write("src/report/a.cpp", "namespace rpl::report {\nnamespace {\n"
                                       "std::string us(double ns) { return \"{\"; }\n}\n}\n")
        self.write("src/report/b.cpp", "namespace rpl::report {\nnamespace {\n// us(x) in a comment\n"
                                       "double us(int64_t ns) { return ns / 1e3; }\n}\n}\n")
        r = self.run_check()
        self.assertEqual(r.returncode, 1)
        self.assertIn("report: 'us' at file scope in src/report/a.cpp, src/report/b.cpp", r.stderr)

    def test_types_constants_and_statics_fail(self):
        self.write("src/collectors/a.cpp", "namespace {\nstruct Interval { long s, e; };\n"
                                           "constexpr int kNone = -1;\n}\nstatic int helper(int) { return 0; }\n")
        self.write("src/collectors/nvidia/b.cpp", "namespace rpl {\nnamespace {\nstruct Interval { long s; };\n"
                                                  "constexpr int kNone = -1;\n}\n"
                                                  "static int helper(long) { return 1; }\n}\n")
        r = self.run_check()
        self.assertEqual(r.returncode, 1)
        for name in ("Interval", "kNone", "helper"):
            self.assertIn(f"collectors: '{name}' at file scope in src/collectors/a.cpp, src/collectors/nvidia/b.cpp",
                          r.stderr)


if __name__ == "__main__":
    unittest.main()
