#!/usr/bin/env python3
"""Seed corpus for the fuzz targets: the recorded profiles of tests/data, made
small, and SQL mutations of them (values at and past the loader's bounds, empty
and NULL values, invalid UTF-8, reordered rows), which byte-level mutation of an
SQLite file rarely reaches. Usage: make_seeds.py OUT_DIR"""
import os
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")

# Each mutation: a name and SQL run on a copy of the small seed.
MUTATIONS = [
    ("edge-device", "UPDATE devices SET id = 1023, warp_size = 1024, sm_count = 16384,"
                    " max_warps_per_sm = 1024, max_threads_per_block = 8192"),
    ("bad-device-id", "UPDATE devices SET id = 4294967295"),
    ("bad-warp", "UPDATE devices SET warp_size = 1073741824"),
    ("zero-device", "UPDATE devices SET warp_size = 0, sm_count = 0, max_warps_per_sm = 0,"
                    " core_clock_khz = 0, max_threads_per_block = 0"),
    ("zero-times", "UPDATE kernels SET start_ns = 0, end_ns = 0; UPDATE api_calls SET end_ns = 0"),
    ("long-kernels", "UPDATE kernels SET end_ns = (SELECT value FROM meta WHERE key = 'end_ns')"),
    ("backwards", "UPDATE kernels SET end_ns = start_ns - 1"),
    ("open-run", "UPDATE meta SET value = '0' WHERE key IN ('end_ns', 'end_unix_ns')"),
    ("no-run-start", "DELETE FROM meta WHERE key IN ('start_ns', 'end_ns')"),
    ("bad-utf8", "UPDATE strings SET text = CAST(x'41FF42C0AF' AS TEXT) WHERE id % 2 = 1;"
                 "UPDATE meta SET value = CAST(x'E282' AS TEXT) WHERE key = 'hostname'"),
    ("newline-meta", "UPDATE meta SET value = 'x' || char(10) || 'y' WHERE key = 'pid'"),
    ("empty-strings", "UPDATE strings SET text = '' WHERE id > 0"),
    ("huge-counter", "UPDATE counter_values SET value = 1e30; UPDATE device_metrics SET value = 0"),
    ("neg-counter", "UPDATE counter_values SET value = -1"),
    ("null-counter", "UPDATE counter_values SET value = NULL"),
    ("big-bytes", "UPDATE memcpy SET bytes = 1125899906842624; UPDATE memset SET bytes = 1"),
    ("nested-ranges", "UPDATE ranges SET start_ns = (SELECT min(start_ns) FROM ranges) + rowid,"
                      " end_ns = (SELECT max(end_ns) FROM ranges) - rowid, thread_id = 1,"
                      " process_id = 1"),
    ("graph-kernels", "UPDATE kernels SET correlation_id = 7, graph_id = 1"),
    ("no-devices", "DELETE FROM devices"),
    ("empty", "DELETE FROM kernels; DELETE FROM api_calls; DELETE FROM ranges;"
              " DELETE FROM memcpy; DELETE FROM memset"),
]


def small_copy(src, dst, keep):
    """A copy of src with at most `keep` rows per record table."""
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    tables = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN "
        "('meta', 'strings', 'devices', 'counter_sets')")]
    for t in tables:
        try:
            db.execute(f"DELETE FROM {t} WHERE rowid NOT IN (SELECT rowid FROM {t} "
                       f"ORDER BY rowid LIMIT {keep})")
        except sqlite3.OperationalError:
            pass  # a table without rowid (an index table): left whole
    db.commit()
    db.execute("PRAGMA page_size = 512")  # small files: byte mutations hit more of them
    db.execute("VACUUM")
    db.close()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    profiles = sorted(f for f in os.listdir(DATA) if f.endswith(".sqlite"))
    for f in profiles:
        small_copy(os.path.join(DATA, f), os.path.join(out, "small-" + f), 12)
    base = os.path.join(out, "small-h200-counters-demo.sqlite")
    timeline = os.path.join(out, "small-h200-timeline-demo.sqlite")
    for name, sql in MUTATIONS:
        for src in (base, timeline):
            dst = os.path.join(out, f"sql-{name}-{os.path.basename(src)}")
            shutil.copyfile(src, dst)
            db = sqlite3.connect(dst)
            try:
                db.executescript(sql)
                db.commit()
            except sqlite3.Error:
                pass  # a constraint of that file: keep the unmutated copy
            db.close()
    # The smallest recorded profile whole.
    shutil.copyfile(os.path.join(DATA, "h200-timeline-demo.sqlite"), os.path.join(out, "timeline"))
    print(f"make_seeds: {len(os.listdir(out))} seeds in {out}")


if __name__ == "__main__":
    main()
