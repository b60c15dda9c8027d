"""The history check of scripts/lint_history.py fails on history in lib/ comments and
passes on contracts, code and string literals."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import lint_history  # noqa: E402
import lint_structure  # noqa: E402


def problems(text, rel="lib/collect/a.h"):
    with tempfile.TemporaryDirectory() as root:  # no include/: lib sources only
        return lint_history.check(root, {rel: text}, lint_structure.segments)


class LintHistoryTest(unittest.TestCase):
    def test_history_comments_fail(self):
        cases = [
            "// Measured on the H200 (CUDA 13.0): the image takes 590 ms.\nint x;\n",
            "int x;  // growing the image failed this way in session 5\n",
            "// Ran 2026-12-01: 20 tests passed.\n",
            "// seen on an H100 at 14:03 UTC\n",
            "// Kernel replay: CUPTI writes 0 as the start and end (H200, CUDA 13.0).\n",
            "/* The old lock order (round 3) deadlocked. */\n",
            "// Fixed in issue #14.\n",
        ]
        for code in cases:
            with self.subTest(code=code):
                out = problems(code)
                self.assertEqual(len(out), 1, out)
                self.assertIn("history in a comment", out[0])

    def test_contract_comments_pass(self):
        code = ("// Kernel replay: CUPTI writes 0 as a replayed launch's start and end, so the\n"
                "// kernel is placed at the end of its API call (docs/validation.md, \"Facts the\n"
                "// code relies on\"). CUPTI's switch costs tens of ms, so it is made outside\n"
                "// the range. Generous bounds: an H200 has 132 SMs. Issue 41% of cycles.\n"
                "// Nsight Compute 2023-2025 spells it so; step 3/forward is one instance.\n"
                "int x;\n")
        self.assertEqual(problems(code), [])

    def test_only_comments_are_read(self):
        code = ('const char* kHelp = "measured on the H200 in session 5, 2026-12-01";\n'
                'const char* kRaw = R"(stop 12 on the H100)";\n'
                "int session_5 = 1'000'000;  // a contract\n")
        self.assertEqual(problems(code), [])

    def test_a_phrase_wrapped_over_lines(self):
        code = ("int a;\n// counted as FLOPs. On the\n// H200 each equals 2mnk.\nint b;\n"
                "// measured\nint c;\n// on the H200 (not one comment with the line above)\n")
        out = problems(code)
        self.assertEqual(len(out), 2, out)
        self.assertTrue(out[0].startswith("lib/collect/a.h:2:"), out[0])
        self.assertIn("On the H200", out[0])
        self.assertTrue(out[1].startswith("lib/collect/a.h:7:"), out[1])

    def test_line_of_a_block_comment(self):
        code = "int a;\n/* first line\n   second line\n   seen on the H200 */\nint b;\n"
        out = problems(code)
        self.assertEqual(len(out), 1, out)
        self.assertTrue(out[0].startswith("lib/collect/a.h:4:"), out[0])

    def test_include_is_checked(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "include", "cuscope"))
            with open(os.path.join(root, "include", "cuscope", "api.h"), "w") as f:
                f.write("/* Validated in session 7. */\n")
            out = lint_history.check(root, {}, lint_structure.segments)
        self.assertEqual(len(out), 1, out)
        self.assertIn("include/cuscope/api.h:1:", out[0])

    def test_strip_code_keeps_lines_and_digit_separators(self):
        text = "int a = 1'000'000;  // c\nchar q = '\\'';\nconst char* s = \"x // y\";\n"
        stripped = lint_structure.strip_code(text)
        self.assertEqual(len(stripped), len(text))
        self.assertEqual(stripped.count("\n"), text.count("\n"))
        self.assertIn("1'000'000;", stripped)
        self.assertNotIn("// c", stripped)
        self.assertNotIn("x // y", stripped)


if __name__ == "__main__":
    unittest.main()
