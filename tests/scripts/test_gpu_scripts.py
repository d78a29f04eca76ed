#!/usr/bin/env python3
"""The GPU scripts name the commit of the binaries they run (issue 28): scripts/gpu/staged_commit.sh records it when
binaries are staged and reads it back, and every suite script that runs staged binaries logs it. No GPU needed."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
HELPER = os.path.join(ROOT, "scripts", "gpu", "staged_commit.sh")


def sh(script, cwd):
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


class StagedCommit(unittest.TestCase):
    @unittest.skipIf(shutil.which("git") is None, "git is not installed: staged_commit.sh reads the commit with it")
    def test_written_when_staged_and_read_back_with_a_note_for_uncommitted_changes(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo, dest = os.path.join(tmp, "repo"), os.path.join(tmp, "dest")
            os.makedirs(dest)
            sh("git init -q repo && cd repo && echo a > f && git add f && git -c user.name=t -c user.email=t@t "
               "commit -qm one", tmp)
            head = sh("git rev-parse HEAD", repo)
            read = f'. "{HELPER}"; write_staged_commit "{dest}" "{repo}"; staged_commit "{dest}"'
            self.assertEqual(sh(read, tmp), head)
            sh("echo b > f", repo)
            self.assertEqual(sh(read, tmp), head + " plus uncommitted changes")
            self.assertIn("unknown (no COMMIT file", sh(f'. "{HELPER}"; staged_commit "{tmp}"', tmp))

    def test_every_suite_that_runs_staged_binaries_logs_their_commit(self):
        scripts = glob.glob(os.path.join(ROOT, "scripts", "gpu", "*.sh")) + [
            os.path.join(ROOT, "bench", "replay-proof", "run_proof.sh")]
        runs_binaries = re.compile(r"\$DEVBUILD/lib|\$RPL_BIN_DIR")
        missing = []
        for path in sorted(scripts):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if os.path.basename(path).startswith("stage") or not runs_binaries.search(text):
                continue  # staging scripts write the commit; others run no staged binary
            logs = re.search(r'(?:log|echo|say) "binaries: commit \$\(staged_commit', text)
            delegate = re.search(r'^exec bash "[^"]*/([\w.-]+\.sh)"', text, re.M)  # replay_proof.sh -> run_proof.sh
            if not logs and not (delegate and delegate.group(1) in {os.path.basename(s) for s in scripts}):
                missing.append(os.path.relpath(path, ROOT))
        self.assertEqual(missing, [], "these run staged binaries without logging their commit")


class GpuRunsIndex(unittest.TestCase):
    """scripts/gpu_runs.py lists each GPU log's failed and timed-out phases and FAIL lines next to the runs."""

    def test_failures_timeouts_and_commit_are_listed_and_a_stale_readme_is_caught(self):
        import sys
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        import gpu_runs
        with tempfile.TemporaryDirectory() as root:
            run = os.path.join(root, "bench", "results", "2030-01-01", "cuda", "sweep_h200")
            os.makedirs(run)
            with open(os.path.join(run, "batch.log"), "w") as f:
                f.write("batch on vm, 2030-01-01T00:00:00Z, 1 GPU(s)\nbinaries: commit abc1234\n"
                        "== sweep: exit 0 after 10 s (limit 60 s; x.sh )\n   PASS: fine\n"
                        "== proof: exit 124 after 60 s (limit 60 s; y.sh )\n   FAIL: chase: too slow\n"
                        "   torch memory 124 - - 125.01 exit 124, no profile.json\n")
            with open(os.path.join(run, "notes.txt"), "w") as f:
                f.write("no status here\n")
            readmes = gpu_runs.readmes(root)
            self.assertEqual(list(readmes), [os.path.join(root, "bench", "results", "2030-01-01", "README.md")])
            text = next(iter(readmes.values()))
            row = [l for l in text.splitlines() if "cuda/sweep_h200/batch.log" in l]
            self.assertEqual(len(row), 1, text)
            for expected in ("H200 (folder name)", "`abc1234`", "1 of 2 exit 0", "1 PASS, 1 FAIL",
                             "proof: **timed out** (exit 124 after 60 s, limit 60 s)", "`FAIL: chase: too slow`",
                             "timeout inside a phase: `torch memory 124"):
                self.assertIn(expected, row[0])
            self.assertNotIn("notes.txt", text)
            script = os.path.join(ROOT, "scripts", "gpu_runs.py")
            check = lambda: subprocess.run([sys.executable, script, "--root", root, "--check"], capture_output=True)
            self.assertEqual(check().returncode, 1, "no README yet")
            subprocess.run([sys.executable, script, "--root", root], check=True, capture_output=True)
            self.assertEqual(check().returncode, 0)
            with open(os.path.join(run, "batch.log"), "a") as f:
                f.write("== late: exit 1 after 5 s (limit 60 s; z.sh )\n")
            self.assertEqual(check().returncode, 1, "a log changed, the README did not")


if __name__ == "__main__":
    unittest.main()
