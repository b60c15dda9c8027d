"""One truth in every view (docs/reports.md, "One definition per number"): every
shipped profile read through the text report, CSV, JSON, the HTML page's data, the
report of several profiles, the Python tables (cuscope.load) and `cuscope diff` against
itself gives one kernel record count and one kernel time; the kernels and counters
tables give one Time % to a kernel of one signature; a diff of a profile against
itself reports no change; and a trace against a counters profile of one program reports
no kernel-time change beyond 3% over the launches both timed alike.

    python3 tests/views/check_views.py BUILD_DIR
"""
import csv
import io
import json
import os
import pathlib
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
BUILD = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else REPO / "build")
CLI = BUILD / "bin" / "cuscope"
sys.path.insert(0, str(REPO / "python"))
import cuscope  # noqa: E402  (cuscope.load reads the file itself; no library needed)

PROFILES = sorted(DATA.glob("*.sqlite")) + sorted((DATA / "real").glob("*.sqlite"))
TRACE = DATA / "real" / "h200-gpt2-step-trace.sqlite"
ROTATE = DATA / "real" / "h200-gpt2-rotate-roofline.sqlite"
# One H100 80GB HBM3, bench/device/default_cost.py gpt2 12, 12 steps each: the trace alone
# (t) and the default counters (d: the sweep's verdict set) of one call at commit 119be04
# (2026-12-06 11:40:28 and 11:40:41 UTC, pids 696 and 748, both written to /root/out/g/).
# That default is kept as h100-gpt2-default-119be04.sqlite because it is the one recorded
# in the same call as the shipped trace: a run's first step varies by more than the
# checks' 10% from one call to the next (378.9 ms in this trace, 444.0 ms in the trace of
# the call that recorded h100-gpt2-default.sqlite).
H100_TRACE = DATA / "real" / "h100-gpt2-trace.sqlite"
H100_DEFAULT_119BE04 = DATA / "real" / "h100-gpt2-default-119be04.sqlite"
# The default of commit 6ac3c2e (a verdict per launch size, further samples; 2026-12-06
# 16:34:41, a later call whose trace is not shipped). Its regions and GPU busy share do
# not yet leave out all of cuscope's time (issue #33): tests/unit/
# recorded_own_time_test.cc, RecordedOwnTimeGap, guards that gap; here only its kernel
# time and findings are held to the trace.
H100_DEFAULT = DATA / "real" / "h100-gpt2-default.sqlite"


def run(*args):
    # An unset CUSCOPE_ADVISE_* keeps the advisor's defaults.
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUSCOPE_")}
    out = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise AssertionError(f"cuscope {' '.join(map(str, args))}: {out.stderr}")
    return out.stdout


def report_json(path):
    return json.loads(run("report", path, "--top", "0", "--format", "json"))


def csv_sections(text):
    """# name -> list of rows (dicts by the header)."""
    sections = {}
    for block in text.strip().split("\n\n"):
        lines = block.splitlines()
        name = lines[0].lstrip("# ").strip()
        sections[name] = list(csv.DictReader(io.StringIO("\n".join(lines[1:]))))
    return sections


def html_data(path, tmp):
    page = pathlib.Path(tmp) / "page.html"
    run("report", path, "--html", page, "-o", pathlib.Path(tmp) / "report.txt")
    html = page.read_text()
    m = re.search(r'<script type="application/json" id="cuscope-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1).replace("<\\/", "</")), html


def header_field(text, label):
    m = re.search(rf"^  {re.escape(label)}\s+(.*)$", text, re.M)
    assert m, f"no {label!r} line in\n{text[:800]}"
    return m.group(1)


def rotate_like(trace, out):
    """A counters profile of the trace's own program, as rotate takes one: every third
    launch of each kernel measured (serialized: three times as long), a third of the
    memsets held off while sets ran, the wall time stretched by the time measurement
    held the program; everything else the trace's."""
    shutil.copy(trace, out)
    with sqlite3.connect(out) as db:
        by_name = {}
        for rowid, name in db.execute("SELECT rowid, name_id FROM kernels ORDER BY correlation_id"):
            by_name.setdefault(name, []).append(rowid)
        measured = [r for rows in by_name.values() for r in rows[1::3]]
        db.executemany("UPDATE kernels SET flags = flags | 1, "
                       "end_ns = start_ns + 3 * (end_ns - start_ns) WHERE rowid = ?",
                       [(r,) for r in measured])
        db.execute("DELETE FROM memset WHERE rowid % 3 = 0")
        held_ns = 6_000_000_000
        db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key IN "
                   "('end_ns', 'end_unix_ns')", (held_ns,))
        db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [
            ("extra.counters.strategy", "rotate"),
            ("extra.counters.launches_measured", str(len(measured))),
            ("extra.counters.kernel_trace", "kernel, copy, memset, sync and event records are "
             "held off while rotate's sets run"),
            ("extra.counters.measure_ms", str(held_ns / 1e6)),
        ])
    return len(measured)


def every_launch_measured(demo, out):
    """The counters demo with every launch of sgemm_naive measured by kernel replay and
    stored without times (CUPTI writes none): the launch with a counter set is placed
    by its profiler duration when read, the others stay unusable; the kernel's time is
    that of its measured launches."""
    shutil.copy(demo, out)
    with sqlite3.connect(out) as db:
        db.execute("UPDATE kernels SET flags = flags | 1, start_ns = 0, end_ns = 0 WHERE name_id = "
                   "(SELECT id FROM strings WHERE text LIKE 'sgemm_naive%')")


class Views(unittest.TestCase):
    """Each profile through every view: one count of kernel records, one kernel time."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.derived = pathlib.Path(cls.tmp) / "gpt2-rotate-like.sqlite"
        rotate_like(TRACE, cls.derived)
        cls.all_measured = pathlib.Path(cls.tmp) / "counters-demo-all-measured.sqlite"
        every_launch_measured(DATA / "h200-counters-demo.sqlite", cls.all_measured)
        cls.profiles = PROFILES + [cls.derived, cls.all_measured]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_profiles_are_there(self):
        self.assertGreaterEqual(len(PROFILES), 7)

    def test_a_kernel_measured_at_every_launch_is_timed_by_those(self):
        rows = {k.name: k for k in cuscope.load(self.all_measured).kernel_summary}
        sgemm = next(k for name, k in rows.items() if name.startswith("sgemm_naive"))
        self.assertEqual((sgemm.launches, sgemm.instances, sgemm.measured_launches,
                          sgemm.all_measured), (3, 1, 1, True))
        self.assertGreater(sgemm.total_ns, 0)

    def test_every_view_gives_one_count_and_one_kernel_time(self):
        texts = {}
        for path in self.profiles:
            with self.subTest(profile=path.name):
                texts[path] = self.check_one(path)
        # The report of several profiles: one row each, with the same two numbers.
        ranks = run("report", *self.profiles, "--width", "400")
        for path, (kernel_time, records) in texts.items():
            row = next(line for line in ranks.splitlines() if line.endswith(" " + str(path))
                       or line.endswith(" " + path.name))
            self.assertIn(f" {kernel_time} ", row, path.name)
            self.assertRegex(row, rf"\s{records}\s", path.name)

    def check_one(self, path):
        j = report_json(path)
        rows = j["kernels"]["rows"]
        # Python: cuscope.load's kernel_summary is the kernels table, row by row.
        summary = cuscope.load(path).kernel_summary
        by_name = {r["name"]: r for r in rows}
        self.assertEqual(sum(k.total_ns for k in summary), sum(r["total_ns"] for r in rows))
        self.assertEqual(len(summary), len(rows))
        for k in summary:
            r = by_name[k.name]
            self.assertEqual((k.instances, k.total_ns, k.min_ns, k.max_ns, k.measured_launches,
                              k.all_measured),
                             (r["instances"], r["total_ns"], r["min_ns"], r["max_ns"],
                              r["measured_launches"], r["all_measured"]), k.name)
        self.check_time_percent(j, summary)
        records, kernel_ns = j["counts"]["kernels"], j["run"]["kernel_time_ns"]
        timed = j["run"]["timed_launches"]
        self.assertEqual(sum(k.launches for k in summary), records)
        self.assertEqual(sum(r["total_ns"] for r in rows), kernel_ns)
        self.assertEqual(sum(r["instances"] for r in rows), timed)
        self.assertEqual(sum(r["measured_launches"] for r in rows), j["run"]["measured_launches"])
        # CSV: the run section and the kernels table.
        sections = csv_sections(run("report", path, "--top", "0", "--format", "csv"))
        fields = {r["key"]: r["value"] for r in sections["run"]}
        self.assertEqual(int(fields["kernels"]), records)
        self.assertEqual(int(fields["kernel_time_ns"]), kernel_ns)
        self.assertEqual(int(fields["timed_launches"]), timed)
        self.assertEqual(sum(int(r["total_ns"]) for r in sections["kernels"]), kernel_ns)
        self.assertEqual(sum(int(r["instances"]) for r in sections["kernels"]), timed)
        # Text: the header's records and kernel time.
        text = run("report", path, "--width", "200")
        self.assertRegex(header_field(text, "Records"), rf"^kernels {records},")
        kernel_time = header_field(text, "Kernel time")
        self.assertRegex(kernel_time, rf" in {timed} timed launches")
        duration = kernel_time.split(" in ")[0]
        # HTML: the page's data and its kernels heading.
        with tempfile.TemporaryDirectory() as tmp:
            data, html = html_data(path, tmp)
        self.assertEqual(data["run"]["kernels"], records)
        self.assertEqual(data["run"]["kernel_time_ns"], kernel_ns)
        self.assertEqual(data["run"]["timed_launches"], timed)
        self.assertIn(f"{duration} in {timed} timed launches)</h2>", html)
        self.check_self_diff(path, kernel_ns, records)
        return duration, records

    def check_time_percent(self, j, summary):
        """A kernel of one signature, all of whose launches the counters table counts, has
        one Time % in the kernels table and the counters table."""
        counters = j.get("kernel_counters", {}).get("rows", [])
        signatures = {}
        for c in counters:
            if not c["region"]:
                signatures.setdefault(c["name"], []).append(c)
        launches = {k.name: k.launches for k in summary}
        percent = {r["name"]: r["time_percent"] for r in j["kernels"]["rows"]}
        for name, rows in signatures.items():
            if len(rows) == 1 and rows[0]["launches"] == launches.get(name):
                self.assertAlmostEqual(rows[0]["time_percent"], percent[name], places=9, msg=name)
        coverage = j.get("counter_coverage")
        if coverage:
            self.assertEqual(coverage["kernel_ns"], j["run"]["kernel_time_ns"])

    def check_self_diff(self, path, kernel_ns, records):
        d = json.loads(run("diff", path, path, "--top", "0", "--format", "json"))
        self.assertEqual({f["change"] for f in d["finding_changes"]} - {"stayed"}, set())
        self.assertEqual(d["verdict_changes"], [])
        self.assertEqual(d["kernel_ns"], [kernel_ns, kernel_ns])
        self.assertEqual(d["kernel_count"], [records, records])
        kt = d["comparable_kernel_time"]
        self.assertTrue(kt["whole"])
        self.assertFalse(kt["changed"])
        self.assertEqual((kt["base_ns"], kt["new_ns"], kt["change_ns"]), (kernel_ns, kernel_ns, 0))
        self.assertEqual(d["not_compared"], [])
        for table in ("kernels", "regions", "memory", "api"):
            for row in d[table]:
                self.assertEqual(row["change_ns"], 0, (table, row["name"]))
        for row in d["kernels"]:
            self.assertEqual(row["base"], row["new"], row["name"])
        text = run("diff", path, path, "--top", "0", "--width", "200")
        self.assertIn("within 3%, no change", header_field(text, "Kernel time"))
        changed = re.findall(r"^  (appeared|resolved|not compared) .*$", text, re.M)
        self.assertEqual(changed, [])
        self.assertEqual(re.findall(r"^.*\s(?:new|gone)\s.*$", text, re.M), [])


class TraceAgainstCounters(unittest.TestCase):
    """A trace and a counters profile of one program: no kernel-time change beyond 3% over
    the launches both timed alike; what the profiler removed is not compared; nothing
    is resolved that the program still does."""

    def diff(self, base, new):
        return json.loads(run("diff", base, new, "--top", "0", "--format", "json"))

    def test_rotate_like_profile_of_the_trace(self):
        with tempfile.TemporaryDirectory() as tmp:
            derived = pathlib.Path(tmp) / "rotate-like.sqlite"
            measured = rotate_like(TRACE, derived)
            d = self.diff(TRACE, derived)
            text = run("diff", TRACE, derived, "--width", "200")
        changes = {(f["change"], f["rule"]) for f in d["finding_changes"]}
        self.assertFalse({c for c in changes if c[0] in ("resolved", "appeared")}, changes)
        self.assertIn(("stayed", "pageable_copies"), changes)
        self.assertEqual(d["kernel_count"][0], d["kernel_count"][1])
        self.assertEqual(d["copies"]["change_ns"], 0)
        kt = d["comparable_kernel_time"]
        self.assertFalse(kt["changed"], kt)
        self.assertLessEqual(abs(kt["change_percent"]), 3)
        self.assertEqual(kt["new_left_out"], measured)
        self.assertTrue(d["kernel_count_compared"])
        self.assertEqual(d["kernel_count"][0], d["kernel_count"][1])
        # Every kernel: its launches timed alike took as long on both sides.
        for row in d["kernels"]:
            self.assertEqual(row["base"]["total_ns"], row["new"]["total_ns"], row["name"])
        # Memsets held off in NEW's sets: not compared; copies identical: compared.
        self.assertEqual([n["quantity"] for n in d["not_compared"]], ["[CUDA memset]"])
        self.assertFalse(d["copies"]["not_compared"])
        self.assertEqual(d["copies"]["change_ns"], 0)
        self.assertEqual(re.findall(r"^  (?:appeared|resolved) .*$", text, re.M), [])
        self.assertIn("within 3%, no change", header_field(text, "Comparable"))
        self.assertIn("not compared", header_field(text, "Kernels") + text)

    def test_recorded_gpt2_pair(self):
        # The recorded pair: one script (gpt2_step.py), 4 steps traced against 30 steps
        # with rotate counters by a version that kept no record of the launches it
        # measured. Over the launches both timed alike, no kernel-time change.
        d = self.diff(TRACE, ROTATE)
        kt = d["comparable_kernel_time"]
        self.assertFalse(kt["changed"], kt)
        self.assertFalse(kt["whole"])
        self.assertFalse(d["kernel_count_compared"])
        self.assertGreater(d["profilers"]["new"]["launches_without_records"], 0)
        self.assertNotIn("resolved", {f["change"] for f in d["finding_changes"]})

    def test_recorded_trace_against_the_default_counters(self):
        # Same program: the trace against the default counters. Kernel time over the
        # comparable launches leaves out what cuscope held; no finding appears or is
        # resolved.
        for default in (H100_DEFAULT_119BE04, H100_DEFAULT):
            with self.subTest(default=default.name):
                d = self.diff(H100_TRACE, default)
                kt = d["comparable_kernel_time"]
                self.assertFalse(kt["changed"], kt)
                self.assertLessEqual(abs(kt["change_percent"]), 3)
                self.assertTrue(d["kernel_count_compared"])
                changes = {(f["change"], f["rule"]) for f in d["finding_changes"]}
                self.assertFalse({c for c in changes if c[0] in ("resolved", "appeared")},
                                 changes)
                self.assertIn(("stayed", "misaligned_gemm"), changes)

    def test_recorded_default_leaves_out_what_cuscope_held(self):
        # Same program, same call: region durations and the GPU's busy share leave out
        # what cuscope held.
        d = self.diff(H100_TRACE, H100_DEFAULT_119BE04)
        regions = {r["name"]: r for r in d["regions"]}
        for name in ("step", "step/forward", "step/backward", "step/optimizer"):
            base, new = regions[name]["base"]["total_ns"], regions[name]["new"]["total_ns"]
            self.assertLessEqual(abs(new - base), 0.1 * base, name)
        for busy in d["gpu_busy"]:
            self.assertTrue(busy["of_program"])
            self.assertLessEqual(abs(busy["change_points"]), 1.0, busy)


if __name__ == "__main__":
    unittest.main(verbosity=1)
