"""scripts/lint_claims.py: a README figure missing from docs/performance.md fails; one
present, in a code block, or listed as not measured passes; then the repository's own
README and performance document."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(REPO, "scripts"))
import lint_claims  # noqa: E402


class LintClaimsTest(unittest.TestCase):
    def test_missing_figures_fail(self):
        perf = "| mode | 1.15x | 96.7 |\n"
        self.assertEqual(lint_claims.missing("whole run 1.15x, steps 1.20x\n", perf),
                         [(1, "1.20x")])
        self.assertEqual(lint_claims.missing("agrees on 96.7% and 98.0%\n", perf),
                         [(1, "98.0%")])
        # A range needs both ends.
        self.assertEqual(lint_claims.missing("mean 1.15-1.40x\n", perf), [(1, "1.15-1.40x")])
        self.assertEqual(lint_claims.missing("0.14 s a launch, 10 us, 5 MB\n", "0.14 10"),
                         [(1, "5 MB")])

    def test_code_versions_and_exempt_figures_pass(self):
        text = ("```bash\nrun --budget 25% 3.5x\n```\n"
                "an 81 MB download; issue #33, sm_90, v1.2, CUDA 13.0\n")
        self.assertEqual(lint_claims.missing(text, ""), [])

    def test_the_readme(self):
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        with open(os.path.join(REPO, "docs", "performance.md"), encoding="utf-8") as f:
            performance = f.read()
        self.assertGreater(len(lint_claims.figures(readme)), 10)
        self.assertEqual(lint_claims.missing(readme, performance), [])


if __name__ == "__main__":
    unittest.main()
