#!/usr/bin/env python3
"""Tests of scripts/check_includes.py on small trees that carry the real layer table: it passes a clean tree
and fails, naming the file, the line and the rule, on a forbidden include, an include climbing out with
"..", a link to a layer the table forbids and a link to the umbrella rpl. Standard library only."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "..", "..", "scripts", "check_includes.py")
DOC = os.path.join(HERE, "..", "..", "docs", "architecture.md")


class CheckIncludes(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check_includes.")
        os.makedirs(os.path.join(self.root, "docs"))
        shutil.copy(DOC, os.path.join(self.root, "docs", "architecture.md"))
        self.write("src/analysis/CMakeLists.txt", "rpl_add_layer(analysis EXPOSES support model)\n")
        self.write("src/analysis/stats.cpp", '#include "analysis/stats.hpp"\n#include "model/trace.hpp"\n'
                                              '#include "support/errors.hpp"\n#include "rpl/version.hpp"\n')
        self.write("src/cli/main.cpp", '#include "app/analyze.hpp"\n#include "report/analyze_report.hpp"\n')
        self.write("src/optimize/llm/proposer.cpp", '#include "optimize/proposer.hpp"\n')

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def run_check(self):
        r = subprocess.run([sys.executable, CHECK, "--root", self.root], capture_output=True, text=True)
        return r.returncode, r.stdout

    def test_clean_tree_passes(self):
        self.assertEqual(self.run_check(), (0, ""))

    def test_include_against_the_table_fails_naming_file_line_and_rule(self):
        self.write("src/analysis/bad.cpp", '#include "analysis/stats.hpp"\n#include "store/rocpd_reader.hpp"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn('src/analysis/bad.cpp:2: #include "store/rocpd_reader.hpp": analysis may not use store', out)

    def test_cli_may_not_reach_below_app(self):
        self.write("src/cli/counters.cpp", '#include "collectors/counter_catalog.hpp"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn("cli may not use collectors", out)

    def test_longest_folder_wins(self):
        # The optimizer may not use its LLM proposer (the proposer depends on the optimizer, not back).
        self.write("src/optimize/loop.cpp", '#include "optimize/llm/llm_proposer.hpp"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn("optimize may not use optimize/llm", out)

    def test_climbing_out_fails(self):
        self.write("src/model/trace.cpp", '#include "../store/rocpd_reader.hpp"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn("src/model/trace.cpp:1", out)

    def test_raw_string_includes_are_not_includes(self):
        self.write("src/optimize/stubs.cpp", 'const char* k = R"(\n#include "store/x.hpp"\n)";\n')
        self.assertEqual(self.run_check()[0], 0)

    def test_forbidden_links_fail(self):
        self.write("src/analysis/CMakeLists.txt", "rpl_add_layer(analysis EXPOSES support model store)\n")
        self.write("src/autotune/CMakeLists.txt", "rpl_add_layer(autotune APPLICATION USES app)\n"
                                                  "target_link_libraries(rpl_autotune PUBLIC rpl)\n"
                                                  "target_include_directories(rpl_autotune PUBLIC ${PROJECT_SOURCE_DIR}/src)\n")
        rc, out = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn("rpl_add_layer(analysis) links store, which analysis may not use", out)
        self.assertIn("rpl_autotune links the umbrella rpl", out)
        self.assertIn("rpl_autotune has src/ as a whole as an include directory", out)

    def test_missing_table_is_an_error(self):
        self.write("docs/architecture.md", "# no table\n")
        self.assertEqual(self.run_check()[0], 2)


if __name__ == "__main__":
    unittest.main()
