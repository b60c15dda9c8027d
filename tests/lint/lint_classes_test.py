"""The class checks of scripts/lint_classes.py catch what they promise to catch."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import lint_classes  # noqa: E402
import lint_structure  # noqa: E402


def problems(files):
    return lint_classes.check("/", files, lint_structure.strip_code, lint_structure.functions)


def guarded(n, prefix="f"):
    return "".join("  int %s%d ABSL_GUARDED_BY(mu_);\n" % (prefix, i) for i in range(n))


class LintClassesTest(unittest.TestCase):
    def test_three_mutexes_fail(self):
        code = "class A {\n  absl::Mutex a_;\n  absl::Mutex b_;\n  std::mutex c_;\n};\n"
        out = problems({"lib/collect/a.h": code})
        self.assertEqual(len(out), 1)
        self.assertIn("class A holds 3 mutexes", out[0])

    def test_two_mutexes_pass(self):
        code = "class A {\n  absl::Mutex a_;\n  absl::Mutex b_;\n};\n"
        self.assertEqual(problems({"lib/collect/a.h": code}), [])

    def test_guarded_fields_counted_through_member_struct(self):
        code = ("struct Parts {\n" + "".join("  int p%d;\n" % i for i in range(10)) + "};\n"
                "class A {\n  absl::Mutex mu_;\n  Parts parts_ ABSL_GUARDED_BY(mu_);\n" +
                guarded(6) + "};\n")
        out = problems({"lib/collect/a.h": code})
        self.assertEqual(len(out), 1)
        self.assertIn("16 guarded fields", out[0])

    def test_mutexes_counted_through_member_struct(self):
        code = ("struct Locks {\n  absl::Mutex a;\n  absl::Mutex b;\n};\n"
                "class A {\n  absl::Mutex mu_;\n  Locks locks_;\n};\n")
        out = problems({"lib/collect/a.h": code})
        self.assertTrue(any("class A holds 3 mutexes" in p for p in out), out)

    def test_model_struct_is_one_value_elsewhere(self):
        model = "struct Profile {\n" + "".join("  int t%d;\n" % i for i in range(30)) + "};\n"
        cls = "class Sink {\n  absl::Mutex mu_;\n  Profile batch_ ABSL_GUARDED_BY(mu_);\n};\n"
        self.assertEqual(problems({"lib/model/profile.h": model, "lib/collect/sink.h": cls}), [])

    def test_member_defined_in_wrong_file(self):
        files = {"lib/collect/a.h": "class A {\n  void Run();\n};\n",
                 "lib/collect/a.cc": "",
                 "lib/collect/other.cc": "void A::Run() {\n  int x = 1;\n}\n"}
        out = problems(files)
        self.assertEqual(len(out), 1, out)
        self.assertIn("A::Run is defined outside the file of its class", out[0])

    def test_member_defined_in_its_file(self):
        files = {"lib/collect/a.h": "class A {\n  void Run();\n};\n",
                 "lib/collect/a.cc": "void A::Run() {\n  int x = 1;\n}\n"}
        self.assertEqual(problems(files), [])


if __name__ == "__main__":
    unittest.main()
