"""cuscope.load: a profile's tables (docs/profile-format.md) as Python objects.

    prof = cuscope.load("run.sqlite")
    prof.kernels[0].name, prof.kernels[0].duration_ns
    prof.to_pandas("kernels")                      # a DataFrame, when pandas is there
    cuscope.load("run.sqlite", as_dataframe=True).kernels

Each table is read from the profile's named view (names, durations and enum names
joined in), once, when first asked for. Rows are frozen dataclasses whose fields are
the view's columns, in its order.
"""
import dataclasses
import os
import pathlib
import sqlite3
import struct

# attribute -> (view, row class name)
TABLES = {
    "devices": ("devices", "Device"),
    "kernels": ("kernels_named", "Kernel"),
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


def load(path, as_dataframe=False):
    """Opens a profile (read-only). as_dataframe=True: tables as pandas DataFrames."""
    if as_dataframe:
        _pandas()
    return Profile(path, as_dataframe=as_dataframe)
