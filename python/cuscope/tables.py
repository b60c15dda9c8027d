"""cuscope.load: a profile's tables (docs/profile-format.md) as Python objects.

    prof = cuscope.load("run.sqlite")
    prof.kernels[0].name, prof.kernels[0].duration_ns
    prof.to_pandas("kernels")                      # a DataFrame, when pandas is there
    cuscope.load("run.sqlite", as_dataframe=True).kernels

Each table is read from the profile's named view (names, durations and enum names
joined in), once, when first asked for. Rows are frozen dataclasses whose fields are
the view's columns, in its order.

`kernel_summary` is the kernels table of `cuscope report` (docs/reports.md, "One
definition per number"): one row per kernel name with `launches` (its kernel records),
`instances` and `total_ns` (its timed launches: launches measured with counters are
left out while the kernel has others), `measured_launches` and `all_measured`. It is
computed here, not read from the file's `kernel_summary` view, so that it follows the
report's rule for every profile, older ones included.
"""
import dataclasses
import math
import os
import pathlib
import sqlite3
import struct

# attribute -> (view, row class name)
TABLES = {
    "devices": ("devices", "Device"),
    "kernels": ("kernels_named", "Kernel"),
    # Computed by kernel_summary() (the report's kernels table), not read from the view.
    "kernel_summary": ("kernel_summary", "KernelSummary"),
    "memcpys": ("memcpy_named", "Memcpy"),
    "memsets": ("memset_named", "Memset"),
    "api_calls": ("api_calls_named", "ApiCall"),
    "syncs": ("syncs_named", "Sync"),
    "regions": ("ranges_named", "Region"),
    "overheads": ("overheads_named", "Overhead"),
    "counters": ("counters_named", "Counter"),
    "device_metrics": ("device_metrics_named", "DeviceMetric"),
    "cuda_events": ("cuda_events", "CudaEvent"),
    "gpu_sample_configs": ("gpu_sample_configs_named", "GpuSampleConfig"),
    # Read by _gpu_samples: each sample's BLOB of float64 values becomes a dict.
    "gpu_samples": ("gpu_samples", "GpuSample"),
    # cuscope's own time: kernel replays, counter windows, decodes, flushes.
    "own_time": ("own_time_named", "OwnInterval"),
}
# Tables that older profiles lack: the schema version that added them. Read from an
# older profile, they are empty.
SINCE = {"cuda_events": 3, "gpu_sample_configs": 4, "gpu_samples": 4, "own_time": 6}

_classes = {}


def row_class(name, columns):
    """The frozen dataclass for rows of `columns` (one class per name and columns)."""
    key = (name, tuple(columns))
    if key not in _classes:
        _classes[key] = dataclasses.make_dataclass(
            name, [(c, object) for c in columns], frozen=True, namespace={"__module__": __name__})
    return _classes[key]


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("cuscope: DataFrames need pandas (pip install pandas); without it, "
                          "use the tables as lists of dataclasses") from e
    return pandas


class Profile:
    """One profile file. Attributes named in TABLES are lists of rows (or DataFrames
    with as_dataframe=True); `meta` is the meta table as a dict."""

    def __init__(self, path, as_dataframe=False):
        self.path = str(path)
        self.as_dataframe = as_dataframe
        if not os.path.isfile(self.path):
            raise FileNotFoundError(f"cuscope.load: no profile at {self.path}")
        uri = pathlib.Path(self.path).absolute().as_uri() + "?mode=ro"
        try:
            self._db = sqlite3.connect(uri, uri=True)
            self.meta = dict(self._db.execute("SELECT key, value FROM meta"))
        except sqlite3.Error as e:
            raise ValueError(f"cuscope.load: {self.path} is not a readable cuscope profile ({e})") from e
        if self.meta.get("format") != "cuscope-profile":
            raise ValueError(f"cuscope.load: {self.path} is not a cuscope profile "
                             f"(meta.format is {self.meta.get('format')!r})")
        self.schema_version = int(self.meta.get("schema_version", "0"))
        self._cache = {}

    def rows(self, table):
        """The table's rows as dataclasses (table: a name in TABLES)."""
        view, cls_name = self._view(table)
        if self._absent(table):
            return []
        if table not in self._cache:
            if table == "gpu_samples":
                self._cache[table] = self._gpu_samples()
            elif table == "kernel_summary":
                self._cache[table] = kernel_summary(self._db)
            else:
                cur = self._db.execute(f'SELECT * FROM "{view}"')
                cls = row_class(cls_name, [d[0] for d in cur.description])
                self._cache[table] = [cls(*r) for r in cur]
        return self._cache[table]

    def _gpu_samples(self):
        """GPU metric samples (docs/gpu-metrics.md): device_id, start_ns, end_ns and
        `values`, a dict of metric name -> value (NaN when not known)."""
        names = {}
        for c in self.rows("gpu_sample_configs"):
            names.setdefault(c.device_id, []).append(c.metric)
        cls = row_class("GpuSample", ["device_id", "start_ns", "end_ns", "values"])
        out = []
        for device, start, end, blob in self._db.execute(
                "SELECT device_id, start_ns, end_ns, metric_values FROM gpu_samples ORDER BY rowid"):
            metrics = names.get(device, [])
            values = struct.unpack(f"<{len(blob) // 8}d", blob) if blob else ()
            out.append(cls(device, start, end, dict(zip(metrics, values))))
        return out

    def to_pandas(self, table=None):
        """A DataFrame of one table, or a dict of every table's when table is None."""
        if table is None:
            return {name: self.to_pandas(name) for name in TABLES}
        pandas = _pandas()
        view, _ = self._view(table)
        if self._absent(table):
            return pandas.DataFrame()
        if table == "kernel_summary":
            rows = self.rows(table)
            return pandas.DataFrame.from_records([dataclasses.astuple(r) for r in rows],
                                                 columns=KERNEL_SUMMARY_COLUMNS)
        if table == "gpu_samples":
            # One column per metric (NaN where a device does not sample it).
            records = [{"device_id": r.device_id, "start_ns": r.start_ns, "end_ns": r.end_ns,
                        **r.values} for r in self.rows(table)]
            return pandas.DataFrame.from_records(records)
        cur = self._db.execute(f'SELECT * FROM "{view}"')
        return pandas.DataFrame.from_records(list(cur), columns=[d[0] for d in cur.description])

    def _absent(self, table):
        return self.schema_version < SINCE.get(table, 0)

    def close(self):
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __getattr__(self, name):
        if name in TABLES:
            return self.to_pandas(name) if self.as_dataframe else self.rows(name)
        raise AttributeError(f"'Profile' object has no attribute {name!r}; tables: "
                             f"{', '.join(TABLES)}")

    def __repr__(self):
        return f"cuscope.Profile({self.path!r})"

    @staticmethod
    def _view(table):
        if table not in TABLES:
            raise KeyError(f"cuscope: no table {table!r}; tables: {', '.join(TABLES)}")
        return TABLES[table]


KERNEL_SUMMARY_COLUMNS = ["name", "launches", "instances", "total_ns", "avg_ns", "min_ns",
                          "max_ns", "measured_launches", "all_measured"]
_MEASURED = 1  # kKernelCountersMeasured
_FROM_LAUNCH = 4  # kKernelFromLaunch
_DURATION_METRIC = "gpu__time_duration.sum"
_LONGEST_KERNEL_NS = 3.6e12


def _usable(d):
    return d is not None and math.isfinite(d) and 0 < d < _LONGEST_KERNEL_NS


def _llround(d):
    return int(math.floor(d + 0.5))


def _median(values):
    """The upper middle value, as the reader's placement takes it."""
    values = sorted(values)
    return values[len(values) // 2]


def _placed_durations(db):
    """rowid -> duration of each measured kernel stored without times that the C++
    reader places on reading (lib/store/measured_times.h): kernel replay's by its
    profiler duration when shorter than its call; one made from its launch by its own
    sample's duration, else its signature's median sample, else the median of its
    signature's launches CUPTI timed."""
    placed, wanted = {}, {}
    candidates = db.execute(f"""
        WITH own AS (
          SELECT l.correlation_id AS cid, MIN(v.value) AS value FROM counter_launches AS l
            JOIN counter_values AS v ON v.set_id = l.set_id
            JOIN strings AS s ON s.id = v.metric_id
          WHERE s.text = ? GROUP BY l.correlation_id)
        SELECT k.rowid, MIN(a.start_ns), MAX(a.end_ns), own.value, k.flags, k.name_id,
               k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z
        FROM kernels AS k JOIN api_calls AS a ON a.correlation_id = k.correlation_id
          LEFT JOIN own ON own.cid = k.correlation_id
        WHERE k.start_ns = 0 AND k.end_ns = 0 AND (k.flags & {_MEASURED}) != 0
        GROUP BY k.rowid""", (_DURATION_METRIC,))
    for rowid, api_start, api_end, own, flags, *signature in candidates:
        if api_start is None or api_start <= 0 or api_end < api_start:
            continue
        if flags & _FROM_LAUNCH:
            if _usable(own):
                placed[rowid] = _llround(own)
            else:
                wanted[rowid] = tuple(signature)
        elif _usable(own) and own < api_end - api_start:
            placed[rowid] = _llround(own)
    if wanted:
        by_signature = {}
        for *signature, value in db.execute("""
                SELECT c.name_id, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z,
                       v.value
                FROM counter_sets AS c JOIN counter_values AS v ON v.set_id = c.id
                  JOIN strings AS s ON s.id = v.metric_id WHERE s.text = ?""",
                                            (_DURATION_METRIC,)):
            if _usable(value):
                by_signature.setdefault(tuple(signature), []).append(value)
        medians = {k: _median(v) for k, v in by_signature.items()}
        missing = set(wanted.values()) - set(medians)
        if missing:
            traced = {}
            for *signature, value in db.execute(f"""
                    SELECT name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z,
                           end_ns - start_ns
                    FROM kernels WHERE start_ns > 0 AND end_ns > start_ns
                      AND (flags & {_MEASURED}) = 0"""):
                if tuple(signature) in missing and _usable(value):
                    traced.setdefault(tuple(signature), []).append(value)
            medians.update({k: _median(v) for k, v in traced.items()})
        for rowid, signature in wanted.items():
            if signature in medians:
                placed[rowid] = _llround(medians[signature])
    return placed


def kernel_summary(db):
    """The report's kernels table (docs/reports.md) from an open profile: one row per
    kernel name (its demangled name, else its mangled name), largest total first."""
    placed = _placed_durations(db)
    groups = {}
    for rowid, name, start, end, flags in db.execute("""
            SELECT k.rowid, coalesce(nullif(n.text, ''), nullif(m.text, ''), '<unnamed kernel>'),
                   k.start_ns, k.end_ns, k.flags
            FROM kernels AS k LEFT JOIN strings AS n ON n.id = k.name_id
              LEFT JOIN strings AS m ON m.id = k.mangled_name_id ORDER BY k.rowid"""):
        group = groups.setdefault(name, [0, [], []])  # launches, unmeasured, measured
        group[0] += 1
        if start != 0 and end >= start:
            duration = end - start
        elif rowid in placed:
            duration = placed[rowid]
        else:
            continue  # unusable times: in no statistic
        group[2 if flags & _MEASURED else 1].append(duration)
    cls = row_class("KernelSummary", KERNEL_SUMMARY_COLUMNS)
    out = []
    for name, (launches, unmeasured, measured) in groups.items():
        timed = unmeasured or measured
        if not timed:
            continue
        total = sum(timed)
        out.append(cls(name, launches, len(timed), total, total / len(timed), min(timed),
                       max(timed), len(measured), not unmeasured))
    out.sort(key=lambda r: (-r.total_ns, r.name))
    return out


def load(path, as_dataframe=False):
    """Opens a profile (read-only). as_dataframe=True: tables as pandas DataFrames."""
    if as_dataframe:
        _pandas()
    return Profile(path, as_dataframe=as_dataframe)
