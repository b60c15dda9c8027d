"""cuscope.load over the recorded profiles of tests/data (docs/profile-format.md)."""
import dataclasses
import sqlite3
import sys
import types

import pytest

import cuscope
from conftest import DATA

PROFILES = sorted(DATA.glob("*.sqlite"))
# attribute -> the table it must hold every row of
BASE = {"devices": "devices", "kernels": "kernels", "memcpys": "memcpy", "memsets": "memset",
        "api_calls": "api_calls", "syncs": "syncs", "regions": "ranges",
        "overheads": "overheads", "counters": "counter_values",
        "device_metrics": "device_metrics"}


def count(path, table):
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_the_recorded_profiles_are_there():
    assert len(PROFILES) >= 3, f"no profiles in {DATA}"


@pytest.mark.parametrize("path", PROFILES, ids=lambda p: p.name)
def test_every_table_holds_every_row(path):
    prof = cuscope.load(path)
    assert prof.meta["format"] == "cuscope-profile" and prof.schema_version == 2
    for attr, table in BASE.items():
        assert len(getattr(prof, attr)) == count(path, table), attr
    for k in prof.kernels:
        assert k.duration_ns == k.end_ns - k.start_ns >= 0 and k.name
    assert sum(s.launches for s in prof.kernel_summary) == len(prof.kernels)


def test_kernel_summary_is_the_reports_kernels_table():
    # docs/reports.md, "One definition per number": launches measured with counters are
    # left out of a kernel's statistics while it has others; the totals add up to the
    # report's kernel time (8.160 ms in `cuscope report h200-counters-demo.sqlite`).
    summary = cuscope.load(DATA / "h200-counters-demo.sqlite").kernel_summary
    sgemm = next(k for k in summary if k.name.startswith("sgemm_naive"))
    assert (sgemm.launches, sgemm.instances, sgemm.measured_launches, sgemm.all_measured) == \
        (3, 2, 1, False)
    assert sgemm.total_ns == 6356187 and sgemm.avg_ns == sgemm.total_ns / 2
    assert sum(k.total_ns for k in summary) == 8160331
    assert [k.total_ns for k in summary] == sorted((k.total_ns for k in summary), reverse=True)
    frame = cuscope.load(DATA / "h200-counters-demo.sqlite", as_dataframe=True) \
        if _has_pandas() else None
    if frame is not None:
        assert list(frame.kernel_summary.columns) == cuscope.tables.KERNEL_SUMMARY_COLUMNS


def _has_pandas():
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def test_rows_carry_names_and_enum_names():
    prof = cuscope.load(DATA / "h200-timeline-demo.sqlite")
    assert {m.kind_name for m in prof.memcpys} <= {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP"}
    assert prof.memcpys and all(m.bytes > 0 for m in prof.memcpys)
    assert {a.domain_name for a in prof.api_calls} <= {"runtime", "driver"}
    assert any(a.name.startswith("cudaLaunchKernel") for a in prof.api_calls)
    assert prof.devices[0].name == "NVIDIA H200"
    calls = {a.correlation_id for a in prof.api_calls}
    assert all(k.correlation_id in calls for k in prof.kernels)


def test_regions_and_counters():
    loop = cuscope.load(DATA / "h200-torch-loop.sqlite")
    assert {r.name for r in loop.regions} >= {"matmul"}
    assert all(r.source_name == "nvtx_push_pop" for r in loop.regions)
    demo = cuscope.load(DATA / "h200-counters-demo.sqlite")
    metrics = {c.metric for c in demo.counters}
    assert any(m.startswith("dram__bytes") for m in metrics)
    assert {c.name for c in demo.counters} <= {k.name for k in demo.kernels}


def test_rows_are_frozen_dataclasses_of_the_view_columns():
    k = cuscope.load(DATA / "h200-torch-loop.sqlite").kernels[0]
    fields = [f.name for f in dataclasses.fields(k)]
    assert type(k).__name__ == "Kernel" and fields[:3] == ["name", "duration_ns", "start_ns"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        k.name = "x"


def test_not_a_profile_and_unknown_tables(tmp_path):
    with pytest.raises(FileNotFoundError):
        cuscope.load(tmp_path / "missing.sqlite")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(ValueError, match="not a readable cuscope profile"):
        cuscope.load(other)
    with pytest.raises(AttributeError, match="tables: devices, kernels"):
        cuscope.load(PROFILES[0]).kernals


class FakePandas(types.ModuleType):
    class DataFrame:
        @classmethod
        def from_records(cls, rows, columns):
            frame = cls()
            frame.rows, frame.columns = rows, columns
            return frame


def test_dataframes_through_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", FakePandas("pandas"))
    path = DATA / "h200-torch-loop.sqlite"
    frame = cuscope.load(path, as_dataframe=True).kernels
    assert frame.columns[:2] == ["name", "duration_ns"] and len(frame.rows) == count(path, "kernels")
    frames = cuscope.load(path).to_pandas()
    assert set(frames) == set(cuscope.TABLES) and len(frames["regions"].rows) == 30


def test_dataframes_without_pandas_say_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        cuscope.load(PROFILES[0], as_dataframe=True)
    assert cuscope.load(PROFILES[0]).kernels  # lists need no pandas


def test_real_pandas_when_installed():
    pandas = pytest.importorskip("pandas")
    frame = cuscope.load(DATA / "h200-torch-loop.sqlite").to_pandas("kernels")
    assert isinstance(frame, pandas.DataFrame) and frame["duration_ns"].min() >= 0


def test_cuda_events_empty_before_schema_3_and_read_from_3(tmp_path):
    """The event records (schema 3): an older profile has none; a schema-3 one its rows."""
    old = PROFILES[0]
    assert cuscope.load(old).cuda_events == []
    new = tmp_path / "v3.sqlite"
    new.write_bytes(old.read_bytes())
    with sqlite3.connect(new) as db:
        db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
        db.execute("CREATE TABLE cuda_events (correlation_id INTEGER NOT NULL, device_id INTEGER "
                   "NOT NULL, context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, event_id "
                   "INTEGER NOT NULL, event_sync_id INTEGER NOT NULL)")
        db.execute("INSERT INTO cuda_events VALUES (3382, 0, 1, 7, 6, 1)")
    events = cuscope.load(new).cuda_events
    assert len(events) == 1 and events[0].correlation_id == 3382 and events[0].event_id == 6


def test_gpu_samples_empty_before_schema_4_and_decoded_from_4(tmp_path):
    """GPU metric samples (schema 4): their configuration by device and position, and
    each sample's BLOB of little-endian float64 as a dict of metric -> value."""
    import math
    import struct
    old = PROFILES[0]
    assert cuscope.load(old).gpu_samples == [] and cuscope.load(old).gpu_sample_configs == []
    new = tmp_path / "v4.sqlite"
    new.write_bytes(old.read_bytes())
    with sqlite3.connect(new) as db:
        db.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
        ids = []
        for name in ("sm__cycles_elapsed.avg", "dram__bytes_read.sum"):
            db.execute("INSERT INTO strings (text) VALUES (?)", (name,))
            ids.append(db.execute("SELECT max(id) FROM strings").fetchone()[0])
        db.execute("CREATE TABLE gpu_sample_configs (device_id INTEGER NOT NULL, interval_ns "
                   "INTEGER NOT NULL, position INTEGER NOT NULL, metric_id INTEGER NOT NULL)")
        db.execute("CREATE TABLE gpu_samples (device_id INTEGER NOT NULL, start_ns INTEGER NOT "
                   "NULL, end_ns INTEGER NOT NULL, metric_values BLOB NOT NULL)")
        db.execute("CREATE VIEW gpu_sample_configs_named AS SELECT c.device_id AS device_id, "
                   "c.interval_ns AS interval_ns, c.position AS position, m.text AS metric FROM "
                   "gpu_sample_configs AS c LEFT JOIN strings AS m ON m.id = c.metric_id "
                   "ORDER BY c.device_id, c.position")
        for pos, i in enumerate(ids):
            db.execute("INSERT INTO gpu_sample_configs VALUES (0, 10000, ?, ?)", (pos, i))
        db.execute("INSERT INTO gpu_samples VALUES (0, 100, 10100, ?)",
                   (struct.pack("<2d", 19800.0, float("nan")),))
    prof = cuscope.load(new)
    assert [c.metric for c in prof.gpu_sample_configs] == ["sm__cycles_elapsed.avg",
                                                          "dram__bytes_read.sum"]
    (s,) = prof.gpu_samples
    assert (s.device_id, s.start_ns, s.end_ns) == (0, 100, 10100)
    assert s.values["sm__cycles_elapsed.avg"] == 19800.0
    assert math.isnan(s.values["dram__bytes_read.sum"])
