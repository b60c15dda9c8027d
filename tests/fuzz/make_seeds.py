#!/usr/bin/env python3
"""Seed corpus for the fuzz targets: the recorded profiles of tests/data, made
small, one of them as version 4 with GPU samples, and SQL mutations of them (values
at and past the loader's bounds, empty and NULL values, invalid UTF-8, reordered
rows, damaged sample BLOBs and configurations), which byte-level mutation of an
SQLite file rarely reaches. Usage: make_seeds.py OUT_DIR"""
import os
import shutil
import sqlite3
import struct
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


# A version-4 profile with GPU samples, made from a recorded (version 2) one: what
# versions 3 and 4 added (lib/store/older_versions.h; the columns and tables as
# lib/store/schema.h declares them), then a configuration of 8 metrics per device
# and samples over the run, a few values NaN.
UPGRADE_TO_4 = """
ALTER TABLE syncs ADD COLUMN event_id INTEGER NOT NULL DEFAULT 4294967295;
ALTER TABLE syncs ADD COLUMN event_sync_id INTEGER NOT NULL DEFAULT -1;
CREATE TABLE cuda_events (correlation_id INTEGER NOT NULL, device_id INTEGER NOT NULL,
  context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, event_id INTEGER NOT NULL,
  event_sync_id INTEGER NOT NULL);
CREATE TABLE gpu_sample_configs (device_id INTEGER NOT NULL, interval_ns INTEGER NOT NULL,
  position INTEGER NOT NULL, metric_id INTEGER NOT NULL REFERENCES strings(id),
  UNIQUE (device_id, position));
CREATE TABLE gpu_samples (device_id INTEGER NOT NULL, start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL, metric_values BLOB NOT NULL);
CREATE VIEW gpu_sample_configs_named AS
  SELECT c.device_id AS device_id, c.interval_ns AS interval_ns, c.position AS position,
         m.text AS metric
  FROM gpu_sample_configs AS c LEFT JOIN strings AS m ON m.id = c.metric_id
  ORDER BY c.device_id, c.position;
UPDATE meta SET value = '4' WHERE key = 'schema_version';
"""
SAMPLE_METRICS = ["gr__cycles_active.avg.pct_of_peak_sustained_elapsed",
                  "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                  "dram__read_throughput.avg.pct_of_peak_sustained_elapsed",
                  "dram__write_throughput.avg.pct_of_peak_sustained_elapsed",
                  "pcie__read_bytes.sum", "pcie__write_bytes.sum",
                  "sm__warps_active.avg.pct_of_peak_sustained_active", "gpc__cycles_elapsed.max"]

# Each: a name and SQL run on a copy of the samples seed.
SAMPLE_MUTATIONS = [
    ("sample-short-blob",
     "UPDATE gpu_samples SET metric_values = substr(metric_values, 1, 12) WHERE rowid % 3 = 0"),
    ("sample-no-config", "DELETE FROM gpu_sample_configs"),
    ("sample-positions", "UPDATE gpu_sample_configs SET position = 8 WHERE position = 7"),
    ("sample-one-metric", "DELETE FROM gpu_sample_configs WHERE position > 0;"
                          "UPDATE gpu_samples SET metric_values = substr(metric_values, 1, 8)"),
    ("sample-backwards", "UPDATE gpu_samples SET end_ns = start_ns - 1"),
    ("sample-negative", "UPDATE gpu_samples SET metric_values = CAST(x'000000000000F0BF'"
                        " || substr(metric_values, 9) AS BLOB) WHERE rowid = 2"),
    ("sample-text", "UPDATE gpu_samples SET metric_values = 'x'"),
    ("sample-zero-times", "UPDATE gpu_samples SET start_ns = 0, end_ns = 0"),
    ("sample-none", "DELETE FROM gpu_samples"),
]


def with_samples(src, dst, count):
    """A copy of src (version 2) as version 4 with `count` samples per device."""
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    db.executescript(UPGRADE_TO_4)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    start, end = int(meta["start_ns"]), int(meta["end_ns"])
    interval = max(1, (end - start) // count)
    next_id = db.execute("SELECT max(id) + 1 FROM strings").fetchone()[0]
    for i, name in enumerate(SAMPLE_METRICS):
        db.execute("INSERT INTO strings (id, text) VALUES (?, ?)", (next_id + i, name))
    for (device,) in db.execute("SELECT id FROM devices").fetchall():
        db.executemany("INSERT INTO gpu_sample_configs VALUES (?, ?, ?, ?)",
                       [(device, interval, i, next_id + i) for i in range(len(SAMPLE_METRICS))])
        for k in range(count):
            values = [float((k * 8 + j) % 100) for j in range(len(SAMPLE_METRICS))]
            if k % 5 == 0:
                values[k % len(values)] = float("nan")
            t = start + k * interval
            db.execute("INSERT INTO gpu_samples VALUES (?, ?, ?, ?)",
                       (device, t, t + interval, struct.pack(f"<{len(values)}d", *values)))
    db.commit()
    db.close()


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
    samples = os.path.join(out, "samples-small-h200-counters-demo.sqlite")
    with_samples(base, samples, 12)
    for name, sql in SAMPLE_MUTATIONS:
        dst = os.path.join(out, f"sql-{name}.sqlite")
        shutil.copyfile(samples, dst)
        db = sqlite3.connect(dst)
        db.executescript(sql)
        db.commit()
        db.close()
    # The smallest recorded profile whole.
    shutil.copyfile(os.path.join(DATA, "h200-timeline-demo.sqlite"), os.path.join(out, "timeline"))
    print(f"make_seeds: {len(os.listdir(out))} seeds in {out}")


if __name__ == "__main__":
    main()
