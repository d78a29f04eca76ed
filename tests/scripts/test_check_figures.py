#!/usr/bin/env python3
"""Tests of scripts/check_figures.py on small made-up repositories: it must fail on a changed last digit, a missing
raw file, an unregistered figure, an ambiguous locator, and pass on a correct registry."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import check_figures  # noqa: E402

RESULTS = """# Results

| size | median (s) |
| --- | --- |
| 1M | 1.94 |
| 3M | 5.68 |

Overhead **+32.0%** (`--rounds 9`, CUDA 13.0, torch 2.11.0, an H100); section 6.2 of nothing.

```sh
tool --threshold 0.75
```
"""
LOG = """n=1000000 median_cpu_s=1.94 wall=7.90
n=3000000 median_cpu_s=5.68 wall=39.77
"""
SUMMARY = {"variants": [{"name": "untraced", "loop_s": 0.3055}, {"name": "default", "loop_s": 0.4034}]}


class CheckFigures(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.write("bench/RESULTS.md", RESULTS)
        self.write("bench/results/run.log", LOG)
        self.write("bench/results/summary.json", json.dumps(SUMMARY))
        self.write("bench/results/table.csv", "size,median\n1M,1.9400\n3M,5.675\n")
        self.entries = [
            {"doc": "bench/RESULTS.md", "context": "| 1M | 1.94 |", "figure": "1.94",
             "raw": "bench/results/run.log", "re": r"^n=1000000 median_cpu_s=(\S+)"},
            {"doc": "bench/RESULTS.md", "context": "| 3M | 5.68 |", "figure": "5.68",
             "raw": "bench/results/table.csv", "csv": {"row": {"size": "3M"}, "col": "median"}},
            {"doc": "bench/RESULTS.md", "context": "**+32.0%**", "figure": "+32.0",
             "raw": "bench/results/summary.json", "expr": "(b / a - 1) * 100",
             "values": {"a": {"json": "variants[name=untraced].loop_s"},
                        "b": {"json": "variants[name=default].loop_s"}}},
        ]

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def run_check(self):
        self.write("bench/figures/test.jsonl", "\n".join(json.dumps(e) for e in self.entries) + "\n")
        failures, checked, _, _, _ = check_figures.check(self.root)
        return failures, checked

    def test_correct_registry_passes(self):
        failures, checked = self.run_check()
        self.assertEqual(failures, [])
        self.assertEqual(checked, 3)

    def test_changed_last_digit_fails(self):
        self.write("bench/RESULTS.md", RESULTS.replace("| 1M | 1.94 |", "| 1M | 1.95 |"))
        self.entries[0]["context"] = "| 1M | 1.95 |"
        self.entries[0]["figure"] = "1.95"
        failures, _ = self.run_check()
        self.assertEqual(len(failures), 1)
        self.assertIn("figure 1.95 but the raw value 1.94", failures[0])

    def test_changed_raw_value_fails(self):
        self.write("bench/results/run.log", LOG.replace("median_cpu_s=5.68", "median_cpu_s=5.69"))
        self.entries[1]["csv"] = None
        del self.entries[1]["csv"]
        self.entries[1].update(raw="bench/results/run.log", re=r"^n=3000000 median_cpu_s=(\S+)")
        failures, _ = self.run_check()
        self.assertEqual(len(failures), 1)
        self.assertIn("5.69", failures[0])

    def test_rounding_is_half_up_to_the_written_decimals(self):
        self.assertTrue(check_figures.compare("5.68", check_figures.Decimal("5.675"), "half-up")[0])
        self.assertFalse(check_figures.compare("5.67", check_figures.Decimal("5.675"), "half-up")[0])
        self.assertTrue(check_figures.compare("5.68", check_figures.Decimal("5.675"), "half-even")[0])
        self.assertFalse(check_figures.compare("5.68", check_figures.Decimal("5.675"), "exact")[0])

    def test_missing_raw_file_fails(self):
        os.remove(os.path.join(self.root, "bench/results/table.csv"))
        failures, _ = self.run_check()
        self.assertEqual(len(failures), 1)
        self.assertIn("raw file bench/results/table.csv is missing", failures[0])

    def test_unregistered_figure_fails(self):
        del self.entries[1]
        failures, _ = self.run_check()
        self.assertEqual(len(failures), 1)
        self.assertIn("figure 5.68 has no entry", failures[0])

    def test_pending_document_is_not_required_complete(self):
        del self.entries[1]
        self.write("bench/figures/pending.txt", "bench/RESULTS.md\n")
        failures, _ = self.run_check()
        self.assertEqual(failures, [])

    def test_exemption_covers_its_context(self):
        self.write("bench/RESULTS.md", RESULTS + "\nA kernel below 0.25 of peak is flagged.\n")
        failures, _ = self.run_check()
        self.assertEqual(len(failures), 1)
        self.entries.append({"doc": "bench/RESULTS.md", "context": "below 0.25 of peak",
                             "exempt": "a threshold of the rule, not a measurement"})
        failures, _ = self.run_check()
        self.assertEqual(failures, [])

    def write_archive(self, rel, members):
        import io
        import tarfile
        path = os.path.join(self.root, rel)
        with tarfile.open(path, "w:gz") as archive:
            for name, text in members.items():
                data = text.encode("latin-1")
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))

    def test_member_of_a_tar_archive_is_located(self):
        self.write_archive("bench/results/run.tar.gz", {"run/summary.tsv": "size\tmedian\n3M\t5.675\n",
                                                         "run/other.tsv": "size\tmedian\n3M\t9.99\n"})
        self.entries[1].update(raw="bench/results/run.tar.gz", member="run/summary.tsv")
        failures, checked = self.run_check()
        self.assertEqual(failures, [])
        self.entries[1]["member"] = "run/other.tsv"
        failures, _ = self.run_check()
        self.assertEqual(len(failures), 1)
        self.assertIn("run.tar.gz:run/other.tsv", failures[0])
        self.entries[1]["member"] = "run/absent.tsv"
        failures, _ = self.run_check()
        self.assertEqual(len(failures), 1)
        self.assertIn("no member run/absent.tsv", failures[0])

    def test_member_of_an_archive_inside_an_archive_is_located(self):
        import io
        import tarfile
        inner = io.BytesIO()
        with tarfile.open(fileobj=inner, mode="w:gz") as archive:
            data = b"size,median\n3M,5.68\n"
            info = tarfile.TarInfo("./deep/table.csv")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        self.write_archive("bench/results/outer.tar.gz", {"outer/inner.tar.gz": inner.getvalue().decode("latin-1")})
        self.entries[1].update(raw="bench/results/outer.tar.gz", member=["outer/inner.tar.gz", "./deep/table.csv"])
        failures, _ = self.run_check()
        self.assertEqual(failures, [])

    def test_misspelt_key_is_refused(self):
        self.entries[0]["scael"] = "1000"
        self.entries[2]["values"]["a"]["ocurrence"] = 2
        failures, _ = self.run_check()
        self.assertTrue(any("test.jsonl:1: unknown key(s) scael" in f for f in failures), failures)
        self.assertTrue(any("test.jsonl:3: unknown key(s) ocurrence" in f for f in failures), failures)

    def test_regex_matching_several_lines_is_refused(self):
        self.entries[0]["re"] = r"median_cpu_s=(\S+)"
        failures, _ = self.run_check()
        self.assertEqual(len(failures), 1)
        self.assertIn("matches 2 lines", failures[0])

    def test_context_must_be_unique_and_present(self):
        self.entries[0]["context"] = "| 1M | 1.94 |  gone"
        failures, _ = self.run_check()
        self.assertTrue(any("found 0 times" in f for f in failures))

    def test_tokens_skip_versions_code_and_names(self):
        line = "CUDA 13.0, torch 2.11.0, `--x 0.75`, H100, sm_90, §6.2, see [a](b/1.5.md) but 1.5x and 244-250 MB"
        texts = [t[2] for t in check_figures.figure_tokens(line)]
        self.assertEqual(texts, ["1.5", "244", "250"])
        self.assertEqual([t[2] for t in check_figures.figure_tokens("from -0.9% to +4.0%")], ["-0.9", "+4.0"])
        versions = "CUDA <= 13.2, NCCL ≥ 2.19, ROCm < 6.0, rocpd 3.0, but < 0.6 and >= 1.5x"
        self.assertEqual([t[2] for t in check_figures.figure_tokens(versions)], ["0.6", "1.5"])

    def test_code_span_across_lines_is_not_a_figure(self):
        self.write("bench/RESULTS.md", RESULTS + "\nRun `tool --cv\n0.05` to set it.\n")
        failures, _ = self.run_check()
        self.assertEqual(failures, [])


if __name__ == "__main__":
    unittest.main()
