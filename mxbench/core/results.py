"""The results store: the only reader and writer of asv result files, and the one place
asv results become points (`Store.points`).

Every file is validated before use (a bad one is a `ResultFileError` naming it), writes are
atomic, and a new run is folded into the record without a failure or a skip ever replacing
a measured point (`merge_result_file`). Why and how: docs/results-store.md.
"""
import itertools
import json
import math
import os
import re
import shutil
from collections import OrderedDict, namedtuple

from mxbench.core import names
from mxbench.core.errors import UserError

API_VERSION = 2  # asv 0.6's Results.api_version
MACHINE_FILE = "machine.json"
BENCHMARKS_FILE = "benchmarks.json"
# One line per recording: the machine's load and speed around it (mxbench/asvrun/conditions.py);
# not *.json, so asv never reads it as a result file.
CONDITIONS_FILE = "conditions.jsonl"
TMP_MARK = ".tmp-"  # atomic writes' temporary files: `.<name>.tmp-<pid>` (not *.json)
# The columns asv 0.6 writes for each benchmark; the per-point ones hold one entry a point.
COLUMNS = ("result", "params", "version", "started_at", "duration", "stats_ci_99_a",
           "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat",
           "samples", "profile")
PER_POINT = ("result", "stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75",
             "stats_number", "stats_repeat", "samples")
# Fields of machine.json that describe the hardware (os and ram move a little between
# boots of the same kind of VM; these do not).
HOST_FIELDS = ("arch", "cpu", "num_cpu")
# ... and the fields that do move: asv copies them into every result file's params, where they
# would split one machine's history into one line per boot on the site.
BOOT_FIELDS = ("os", "ram")

# One result file: where and when it was recorded; params: asv's environment description
# (machine, python, the matrix's packages ...); durations: the seconds that belong to no
# benchmark ('<build>', '<setup_cache ...>').
# checked_against: the baselines' (CHECKED_AGAINST below), else None.
Recording = namedtuple("Recording", "machine commit env_name date params durations path "
                                    "checked_against", defaults=(None,))
# One parameter point of a recording. name: asv's 'benchmark(param, ...)' (the benchmark's
# name alone without parameters); params: the values as asv writes them (repr strings);
# value: the result (None: failed, NaN: skipped); stats: asv's dict (ci_99_a, ci_99_b, q_25,
# q_75, number, repeat) or None; samples: a list or None; version, started_at and duration
# (seconds, all its points) are the benchmark's.
Point = namedtuple("Point", "name benchmark params value unit stats samples version "
                            "started_at duration recording",
                   defaults=(None, None, None, None, None, None))
STATS = ("ci_99_a", "ci_99_b", "q_25", "q_75", "number", "repeat")  # stats_<name> columns
# A field of mxbench's beside asv's (asv reads only its own): a baselines result file's
# {framework: version} its counterparts were checked equal with (docs/baselines.md).
CHECKED_AGAINST = "checked_against"


class ResultFileError(UserError, ValueError):
    """A results file that cannot be used; str() is one line naming the file."""

    def __init__(self, path, problem):
        ValueError.__init__(self, "%s: %s" % (path, problem))
        self.path = path
        self.problem = problem


class ResultsProblem(UserError):
    """Several bad files at once: the message names each, one per line after a first line
    saying what to do (the one user error whose message is more than a line)."""

    def __init__(self, errors):
        self.errors = list(errors)
        UserError.__init__(self, "\n".join(str(e) for e in self.errors))

    def message(self):
        return ("results that cannot be used (restore them with `git checkout -- FILE`, or "
                "move them aside to measure again):\n%s" % self)


# --- values -----------------------------------------------------------------------------------
def measured(value):
    """A number that was measured (asv: None = failed, NaN = skipped)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and not math.isnan(value))


def skipped(value):
    """asv's skip (NaN: n/a), not a failure (None) or a measurement."""
    return isinstance(value, float) and math.isnan(value)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def point_count(params):
    count = 1
    for values in params:
        count *= len(values)
    return count


# --- validation -------------------------------------------------------------------------------
def _read_json(path):
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ResultFileError(path, "cannot be read (%s)" % exc.strerror)
    if not text.strip():
        raise ResultFileError(path, "is empty (a write was interrupted?)")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ResultFileError(path, "is not valid JSON (%s)" % exc)


def _expect(path, ok, what):
    if not ok:
        raise ResultFileError(path, what)


# What a value of each kind of benchmark can be (asv's unit, else the method's prefix): a
# timing is positive and finite, a memory figure non-negative and finite, an instruction
# count a whole number above 0; any other value (a rate) finite. NaN (a skip) and null (a
# failure) are not values.
TIMING_PREFIXES = ("time_", "timeraw_")
MEMORY_PREFIXES = ("mem_", "peakmem_")
# The instruction counts' benchmarks (benchmarks/bench_instructions.py), by name prefix.
INSTRUCTION_BENCHMARKS = "bench_instructions."
INSTRUCTIONS_UNIT = "instructions"


def value_problem(name, value, unit=None):
    """None when `value` can be a measurement of benchmark `name` (unit from
    benchmarks.json, if known), else what is wrong with it."""
    if not measured(value):
        return None
    method = name.rsplit(".", 1)[-1]
    if unit == "seconds" or (unit is None and method.startswith(TIMING_PREFIXES)):
        if not (math.isfinite(value) and value > 0):
            return "%r is not a timing (a timing is positive and finite)" % value
    elif unit == "bytes" or (unit is None and method.startswith(MEMORY_PREFIXES)):
        if not (math.isfinite(value) and value >= 0):
            return "%r is not a memory figure (it is non-negative and finite)" % value
    elif unit == INSTRUCTIONS_UNIT or (unit is None and name.startswith(INSTRUCTION_BENCHMARKS)):
        # a call into MXNet always runs some of libmxnet's code: 0 is callgrind naming none
        # of it (1.6.0's `mxnet` wheel), which bench_instructions records as a skip
        if not (math.isfinite(value) and value > 0 and value == int(value)):
            return "%r is not an instruction count (it is a whole number above 0)" % value
    elif not math.isfinite(value):
        return "%r is not a measurement (it is finite)" % value
    return None


_BENCHMARKS_FILES = {}  # path -> (file_stamp, contents): the last version read of each


def file_stamp(path):
    """(inode, mtime, size) of a file, None when there is none: what a reader that keeps a
    file's contents compares to know the file changed (an atomic write is a new inode)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def benchmarks_beside(path):
    """The benchmarks.json of the results directory that holds the result file `path`."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(path))),
                        BENCHMARKS_FILE)


def benchmarks_file(path):
    """The contents of a benchmarks.json ({} when there is none), read again only when the
    file changed; raises ResultFileError when it cannot be used."""
    key = file_stamp(path)
    if key is None:
        return {}
    cached = _BENCHMARKS_FILES.get(path)
    if cached is None or cached[0] != key:
        cached = _BENCHMARKS_FILES[path] = (key, read_benchmarks_file(path))
    return cached[1]


def units_beside(path):
    """{benchmark: unit} from the benchmarks.json of the results directory that holds the
    result file `path` ({} when there is none or it cannot be read)."""
    try:
        info = benchmarks_file(benchmarks_beside(path))
    except ResultFileError:
        return {}
    return dict((k, v.get("unit")) for k, v in info.items() if v.get("unit"))


def _check_row(path, name, row, columns, units=None):
    where = "benchmark %s" % name
    _expect(path, isinstance(row, list) and 0 < len(row) <= len(columns),
            "%s: a row must be a list of at most %d values" % (where, len(columns)))
    values = dict(zip(columns, row))
    params = values.get("params")
    _expect(path, isinstance(params, list) and all(
        isinstance(p, list) and all(isinstance(v, str) for v in p) for p in params),
        "%s: params must be lists of strings" % where)
    n = point_count(params)
    result = values.get("result")
    _expect(path, result is None or (isinstance(result, list) and len(result) == n and all(
        v is None or _is_number(v) for v in result)),
        "%s: result must be null or %d numbers/nulls (one per parameter point)" % (where, n))
    for i, value in enumerate(result or []):
        problem = value_problem(name, value, (units or {}).get(name))
        _expect(path, problem is None, "%s: point %d: %s" % (where, i, problem))
    for column in PER_POINT[1:]:
        value = values.get(column)
        if column == "samples":
            ok = value is None or (isinstance(value, list) and len(value) == n and all(
                s is None or (isinstance(s, list) and all(_is_number(x) for x in s))
                for s in value))
        else:
            ok = value is None or (isinstance(value, list) and len(value) == n and all(
                v is None or _is_number(v) for v in value))
        _expect(path, ok, "%s: %s must be null or %d entries" % (where, column, n))
    _expect(path, values.get("version") is None or isinstance(values["version"], str),
            "%s: version must be a string" % where)
    for column in ("started_at", "duration"):
        _expect(path, values.get(column) is None or _is_number(values[column]),
                "%s: %s must be a number" % (where, column))


def validate_result_data(path, data, units=None):
    """Raise ResultFileError unless `data` is a result file as asv 0.6 writes it, holding
    values that can be measurements (value_problem; units: {benchmark: asv unit})."""
    _expect(path, isinstance(data, dict), "not a JSON object")
    _expect(path, data.get("version") == API_VERSION,
            "result format version %r, expected %d (asv 0.6)" % (data.get("version"), API_VERSION))
    for key, kind in (("commit_hash", str), ("env_name", str), ("python", str),
                      ("params", dict), ("requirements", dict), ("results", dict),
                      ("result_columns", list)):
        _expect(path, isinstance(data.get(key), kind),
                "field %s missing or not a %s" % (key, kind.__name__))
    _expect(path, data.get("date") is None or _is_number(data["date"]), "date must be a number")
    _expect(path, isinstance(data.get("env_vars", {}), dict), "env_vars must be an object")
    _expect(path, isinstance(data.get("durations", {}), dict) and all(
        _is_number(v) for v in data.get("durations", {}).values()),
        "durations must map names to numbers")
    columns = data["result_columns"]
    _expect(path, all(c in COLUMNS for c in columns) and "result" in columns
            and "params" in columns, "unknown result_columns %r" % (columns,))
    _expect(path, isinstance(data["params"].get("machine"), str), "params.machine missing")
    checked = data.get(CHECKED_AGAINST, {})
    _expect(path, isinstance(checked, dict) and all(
        isinstance(v, str) for v in checked.values()),
        "%s must map frameworks to versions" % CHECKED_AGAINST)
    for name, row in data["results"].items():
        _check_row(path, name, row, columns, units)
    _expect_names(path, [data["params"]["machine"]], names.machine_problem)
    _expect_names(path, list(data["params"]) + list(data.get("env_vars", {})),
                  names.parameter_problem)
    _expect_names(path, data["results"], names.benchmark_problem)


def _expect_names(path, found, problem_of):
    """Names become folders, keys and parts of the site's HTML (mxbench.core.names)."""
    for name in found:
        problem = problem_of(name)
        _expect(path, problem is None, problem)


def read_result_file(path):
    """The validated contents of one result file (a dict as asv wrote it); the units of its
    values are those of the benchmarks.json beside its machine folder."""
    data = _read_json(path)
    validate_result_data(path, data, units_beside(path))
    machine_dir = os.path.basename(os.path.dirname(os.path.abspath(path)))
    _expect(path, data["params"]["machine"] == machine_dir,
            "recorded for machine %r but stored under %r" % (data["params"]["machine"], machine_dir))
    return data


_RESULT_FILES = OrderedDict()  # abspath -> (stamps, contents), the latest read
RESULT_FILES_KEPT = 80  # a history's files and its archive's; the oldest read goes first


def _read_unchanged(path):
    """read_result_file(path) for the readers (Store._read), read again only when the file
    changed: a report reads the same recordings several times. Writers read the file itself
    (they change what they read)."""
    # its validation reads the units of the benchmarks.json beside its machine folder
    key = (file_stamp(path), file_stamp(benchmarks_beside(path)))
    where = os.path.abspath(path)
    cached = _RESULT_FILES.pop(where, None)
    if cached is None or cached[0] != key:
        cached = (key, read_result_file(path))
    _RESULT_FILES[where] = cached
    while len(_RESULT_FILES) > RESULT_FILES_KEPT:
        _RESULT_FILES.popitem(last=False)
    return cached[1]


def read_machine_file(path):
    data = _read_json(path)
    _expect(path, isinstance(data, dict) and isinstance(data.get("machine"), str) and all(
        isinstance(data.get(f), str) for f in HOST_FIELDS),
        "not an asv machine description (machine, %s)" % ", ".join(HOST_FIELDS))
    _expect_names(path, [data["machine"]], names.machine_problem)
    return data


def read_benchmarks_file(path):
    data = _read_json(path)
    _expect(path, isinstance(data, dict) and all(
        isinstance(v, dict) and isinstance(v.get("params", []), list)
        for k, v in data.items() if k != "version"),
        "not an asv benchmarks.json (an object of benchmark descriptions)")
    described = dict((k, v) for k, v in data.items() if k != "version")
    _expect_names(path, list(described) + [v.get("name", k) for k, v in described.items()],
                  names.benchmark_problem)
    _expect_names(path, [p for v in described.values() for p in v.get("param_names", [])],
                  names.parameter_problem)
    return described


def point_counts(path):
    """{'measured', 'failed', 'skipped'}: parameter points of one result file (a benchmark
    that failed as a whole counts once)."""
    counts = {"measured": 0, "failed": 0, "skipped": 0}
    for row in read_result_file(path)["results"].values():
        for value in (row[0] if isinstance(row[0], list) else [row[0]]):
            kind = ("measured" if measured(value) else "failed" if value is None else "skipped")
            counts[kind] += 1
    return counts


# --- atomic writes ----------------------------------------------------------------------------
def write_json_atomic(path, data, compact=False):
    """Write JSON so that `path` always holds either the old or the complete new file."""
    if compact:
        text = json.dumps(data)  # as asv writes result files
    else:
        text = json.dumps(data, indent=4, sort_keys=True)
    _write_atomic(path, text.encode("utf-8"))


def write_text_atomic(path, text):
    _write_atomic(path, text.encode("utf-8"))


def copy_atomic(src, dst):
    with open(src, "rb") as fh:
        _write_atomic(dst, fh.read())


def _write_atomic(path, data):
    """A temporary file beside `path`, synced, then renamed over it."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, ".%s%s%d" % (os.path.basename(path), TMP_MARK, os.getpid()))
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError:  # disk full, read-only: `path` is as it was, no temporary is left
        if os.path.exists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise


def copy_for_site(store, target, fields=BOOT_FIELDS):
    """A copy of `store` in `target` for asv publish, whose result files have none of `fields`
    (BOOT_FIELDS) in their params: the site then draws one history per machine (the machine
    name already says which hardware). The files themselves keep what asv recorded;
    machine.json is copied as is."""
    shutil.copytree(store.results_dir, target,
                    ignore=shutil.ignore_patterns(".*"))  # no temporaries of a running asv
    copy = Store(target)
    for path in copy.files():
        data = read_result_file(path)
        if any(field in data["params"] for field in fields):
            for field in fields:
                data["params"].pop(field, None)
            write_json_atomic(path, data, compact=True)
    return copy


# --- merging a new run into the record --------------------------------------------------------
def _row_dict(row, columns):
    values = dict(zip(columns, row))
    return dict((c, values.get(c)) for c in COLUMNS)


def _row_list(values):
    row = [values[c] for c in COLUMNS]
    while row and row[-1] is None:
        row.pop()
    return row


def _column(values, column, n):
    value = values.get(column)
    return list(value) if isinstance(value, list) else [None] * n


def _started_later(a, b):
    """Was row `a` measured after row `b` (asv's started_at, ms)? False when unknown."""
    a, b = a.get("started_at"), b.get("started_at")
    return _is_number(a) and _is_number(b) and a > b


def merge_rows(old, new, base=None):
    """One benchmark's row: the new run's, except where the record's point is at least as
    new (same benchmark version and parameter values):
    - the new run failed or skipped a point the record has measured;
    - the new point is what the record held when the new run began (`base`, the staging's
      starting copy): the run did not measure it, and the record may have a newer value;
    - the record's row was measured later (started_at) than the new one, and its point is
      not the starting copy's.
    There the record's point stays, with its statistics and samples. Points are matched by
    their parameter values, so a grid that grew (a dtype added to an entry) keeps the points
    recorded before; a point the new grid no longer has is gone with it."""
    if old["version"] != new["version"]:
        return new  # another benchmark now: asv compares only the same version
    if base is not None and base.get("version") != new["version"]:
        base = None
    if base is not None and json.dumps(_row_list(base)) == json.dumps(_row_list(new)):
        return old  # a copy of what was recorded when the run began: nothing measured
    old_points = dict((point, i) for i, point in enumerate(row_points(old["params"])))
    new_points = row_points(new["params"])
    old_result = _column(old, "result", len(old_points))
    new_result = _column(new, "result", len(new_points))
    base_value = {}
    if base is not None:
        base_points = row_points(base["params"])
        base_value = dict(zip(base_points, _column(base, "result", len(base_points))))
    record_later = _started_later(old, new)
    source = []  # per new point: the record's index to keep, or None
    for i, point in enumerate(new_points):
        j = old_points.get(point)
        if j is None:
            keep = False
        elif not measured(new_result[i]):
            keep = measured(old_result[j])
        elif point in base_value and base_value[point] == new_result[i]:
            keep = True  # not measured by the new run
        else:
            keep = (record_later and measured(old_result[j])
                    and not (point in base_value and base_value[point] == old_result[j]))
        source.append(j if keep else None)
    if all(j is None for j in source):
        return new
    merged = dict(new)
    if all(j is not None for j in source):
        merged["started_at"], merged["duration"] = old["started_at"], old["duration"]
    for column in PER_POINT:
        a, b = _column(old, column, len(old_points)), _column(new, column, len(new_points))
        merged[column] = [b[i] if j is None else a[j] for i, j in enumerate(source)]
        if all(v is None for v in merged[column]):
            merged[column] = None
    return merged


def row_points(params):
    """A row's points in order: tuples of parameter values (asv's repr strings); [()] for a
    benchmark without parameters."""
    return list(itertools.product(*(params or [])))


def point_name(benchmark, params):
    """asv's name of a parameter point: 'bench(p1, p2)'; the benchmark's name without any."""
    return "%s(%s)" % (benchmark, ", ".join(params)) if params else benchmark


def _point_stats(row, n):
    """Per point, asv's stats dict of the row as asv.results loads it: None where no stats
    column is recorded, else the point's recorded ones."""
    columns = [(k, row["stats_" + k]) for k in STATS if row.get("stats_" + k) is not None]
    if not columns:
        return [None] * n
    return [dict((k, v[i]) for k, v in columns if v[i] is not None) for i in range(n)]


def _unroll(recording, benchmark, row, unit):
    """The Points of one benchmark's row (a dict of its columns)."""
    combos = row_points(row.get("params"))
    n = len(combos)
    values, samples = row.get("result") or [None] * n, row.get("samples") or [None] * n
    return [Point(point_name(benchmark, combo), benchmark, combo, value, unit, stats, sample,
                  row.get("version"), row.get("started_at"), row.get("duration"), recording)
            for combo, value, stats, sample in zip(combos, values, _point_stats(row, n), samples)]


def by_name(points):
    """{point name: Point} of the points of one recording."""
    return dict((p.name, p) for p in points)


def merge_result_data(old, new, base=None):
    """A result file's data: `new` (a later run of the same commit and environment) folded
    into `old` by merge_rows; benchmarks only one side has are kept. `base`: what the new
    run started from (a staging's copy of the record; {"results": {}} when there was none),
    or None when that is not known."""
    merged = dict(old)  # mxbench's own fields (checked_against) stay unless new has them
    merged.update(new)
    merged["result_columns"] = list(COLUMNS)
    merged["version"] = API_VERSION
    rows = dict((name, _row_dict(row, old["result_columns"])) for name, row in old["results"].items())
    base_rows = None
    if base is not None:
        base_rows = dict((name, _row_dict(row, base["result_columns"]))
                         for name, row in base["results"].items())
    for name, row in new["results"].items():
        row = _row_dict(row, new["result_columns"])
        if name in rows:
            start = (base_rows or {}).get(name) if base_rows is not None else None
            if base_rows is not None and start is None:
                start = dict.fromkeys(COLUMNS)  # a benchmark the start lacked: measured
                start.update(version=row["version"], params=row["params"])
            rows[name] = merge_rows(rows[name], row, start)
        else:
            rows[name] = row
    merged["results"] = dict((name, _row_list(row)) for name, row in rows.items())
    durations = dict(old.get("durations", {}))
    durations.update(new.get("durations", {}))
    merged["durations"] = durations
    return merged


def merge_result_file(staged, recorded, base=None, stamp=None):
    """Fold the staged result file into the recorded one (atomically). Returns False, and
    changes nothing, while the staged file is incomplete (asv is writing it). `base`: the
    data the staged file started from (merge_result_data), None when unknown. `stamp`:
    mxbench's fields the run adds beside asv's (Project.result_stamp)."""
    try:
        new = read_result_file(staged)
    except ResultFileError:
        return False
    new.update(stamp or {})
    if os.path.exists(recorded):
        new = merge_result_data(read_result_file(recorded), new, base)
    write_json_atomic(recorded, without_gpu_skips(new), compact=True)
    return True


# --- a CPU environment's GPU points -----------------------------------------------------------
# Every benchmark class has a device axis ['cpu', 'gpu'] (its `DEVICES`); on a CPU build the
# 'gpu' points can only skip (n/a), and they made half of each CPU result file and of plain
# `asv compare`'s rows. The store writes a CPU environment's file without the 'gpu' value of
# a row whose every 'gpu' point skipped (NaN); one that holds a measurement or a failure
# (None) stays. asv reads a row by its own params, so it never shows the dropped points.
FLAVOR_VARIABLE = "MXNET_FLAVOR"  # the matrix's variable, in a result file's env_vars
CPU_FLAVOR_PREFIX = "cpu-"
DEVICE_VALUES = ("'cpu'", "'gpu'")  # the device axis's values, as asv writes them
GPU_VALUE = "'gpu'"


def cpu_environment(data):
    """Was the result file's data recorded in a CPU flavor's environment?"""
    flavor = data.get("env_vars", {}).get(FLAVOR_VARIABLE)
    return isinstance(flavor, str) and flavor.startswith(CPU_FLAVOR_PREFIX)


def device_axis(params):
    """The index of a row's device axis (the first axis holding 'cpu' or 'gpu'), or None."""
    for i, values in enumerate(params or []):
        if any(v in DEVICE_VALUES for v in values):
            return i
    return None


def _reshaped(row, params, source, filler):
    """`row` (a dict of COLUMNS) over `params`: per point, the row's entry at source[i],
    filler(column) where source[i] is None; a column recorded as null stays null."""
    out = dict(row, params=params)
    for column in PER_POINT:
        if row.get(column) is None:
            continue
        out[column] = [filler(column) if j is None else row[column][j] for j in source]
        if column != "result" and all(v is None for v in out[column]):
            out[column] = None  # as asv writes a column without entries
    return out


def row_without_gpu_skips(row):
    """One benchmark's row (a dict of COLUMNS) without its device axis's 'gpu' value where
    every 'gpu' point skipped; the row itself (the same object) otherwise."""
    params, axis = row.get("params"), device_axis(row.get("params"))
    if axis is None or GPU_VALUE not in params[axis] or len(params[axis]) < 2 \
            or row.get("result") is None:  # null: the whole benchmark failed
        return row
    combos = row_points(params)
    if not all(skipped(v) for combo, v in zip(combos, row["result"]) if combo[axis] == GPU_VALUE):
        return row
    kept = [i for i, combo in enumerate(combos) if combo[axis] != GPU_VALUE]
    slim = [list(v) if i != axis else [x for x in v if x != GPU_VALUE]
            for i, v in enumerate(params)]
    return _reshaped(row, slim, kept, None)


def row_with_gpu_skips(row):
    """row_without_gpu_skips undone: the device axis gets its 'gpu' value back, every point
    of it skipped (NaN), as asv recorded it. For asv's eyes (a staging copy): asv keeps the
    points a run does not measure from the benchmark's declared grid, and a point missing
    from the row would come back as a failure (None)."""
    params, axis = row.get("params"), device_axis(row.get("params"))
    if axis is None or GPU_VALUE in params[axis] or row.get("result") is None:
        return row
    full = [list(v) + ([GPU_VALUE] if i == axis else []) for i, v in enumerate(params)]
    index = dict((combo, i) for i, combo in enumerate(row_points(params)))
    source = [index.get(combo) for combo in row_points(full)]
    return _reshaped(row, full, source, lambda column: math.nan if column == "result" else None)


def _rows_mapped(data, row_rule):
    """`data` with row_rule applied to each row of a CPU environment's file; `data` itself
    (the same object) when no row changes. Unchanged rows keep their lists as they were."""
    if not cpu_environment(data):
        return data
    columns = data["result_columns"]
    rows, changed = {}, False
    for name, row in data["results"].items():
        values = _row_dict(row, columns)
        mapped = row_rule(values)
        changed = changed or mapped is not values
        rows[name] = row if mapped is values and columns == list(COLUMNS) else _row_list(mapped)
    if not changed:
        return data
    return dict(data, results=rows, result_columns=list(COLUMNS))


def without_gpu_skips(data):
    """A result file's data as the store writes it: a CPU environment's rows without their
    all-skipped 'gpu' points (row_without_gpu_skips); `data` itself when there are none."""
    return _rows_mapped(data, row_without_gpu_skips)


def with_gpu_skips(data):
    """A CPU environment's data with the 'gpu' skips back (row_with_gpu_skips): what asv
    recorded, for a staging copy asv reads and adds to."""
    return _rows_mapped(data, row_with_gpu_skips)


def copy_for_asv(src, dst):
    """A result file copied for asv to read and add to (a staging): a CPU environment's with
    its 'gpu' skips back (with_gpu_skips), any other one byte for byte."""
    data = read_result_file(src)
    full = with_gpu_skips(data)
    if full is data:
        shutil.copy2(src, dst)
    else:
        write_json_atomic(dst, full, compact=True)


def drop_gpu_skips(store):
    """Rewrite every result file of `store` as the store now writes it (without_gpu_skips),
    after validating them all (a bad file: ResultsProblem, nothing is written). Returns
    [(path, points dropped)] of the files rewritten; the others are left as they are."""
    store.require_valid()
    rewritten = []
    for path in store.files():
        data = read_result_file(path)
        slim = without_gpu_skips(data)
        if slim is not data:
            write_json_atomic(path, slim, compact=True)
            rewritten.append((path, _point_total(data) - _point_total(slim)))
    return rewritten


def _point_total(data):
    return sum(point_count(dict(zip(data["result_columns"], row))["params"])
               for row in data["results"].values())


def read_conditions_log(path):
    """The entries of a conditions log ([] when absent); a line that is not a conditions
    entry is a ResultFileError naming the file and the line."""
    if not os.path.exists(path):
        return []
    entries = []
    with open(path) as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError as exc:
                raise ResultFileError(path, "line %d is not JSON (%s)" % (number, exc))
            if not (isinstance(entry, dict) and isinstance(entry.get("commits"), list)
                    and isinstance(entry.get("env_names"), list)):
                raise ResultFileError(path, "line %d is not a conditions entry" % number)
            entries.append(entry)
    return entries


def write_conditions_log(path, entries):
    write_text_atomic(path, "".join(json.dumps(e, sort_keys=True) + "\n" for e in entries))


def join_conditions_logs(path, other):
    """The conditions log `path` with the entries of the log `other` it lacks, each once,
    after its own."""
    recorded = read_conditions_log(path)
    new = [e for e in read_conditions_log(other) if e not in recorded]
    if new:
        write_conditions_log(path, recorded + new)


# --- reading a results directory --------------------------------------------------------------
class Store(object):
    """One results directory: `<dir>/<machine>/<commit[:8]>-<env>.json`, machine.json,
    benchmarks.json."""

    def __init__(self, results_dir):
        self.results_dir = os.path.abspath(str(results_dir))

    def __repr__(self):
        return "Store(%r)" % self.results_dir

    # paths
    def machines(self):
        if not os.path.isdir(self.results_dir):
            return []
        return sorted(name for name in os.listdir(self.results_dir)
                      if os.path.isdir(os.path.join(self.results_dir, name))
                      and not name.startswith("."))

    def machine_dir(self, machine):
        return os.path.join(self.results_dir, machine)

    def conditions_path(self, machine):
        return os.path.join(self.machine_dir(machine), CONDITIONS_FILE)

    def conditions(self, machine, commit=None, env_name=None):
        """The conditions entries of `machine`'s recordings (mxbench/asvrun/conditions.py),
        oldest first; with commit and env_name, those of the recordings that measured them."""
        entries = read_conditions_log(self.conditions_path(machine))
        if commit:
            entries = [e for e in entries if any(c[:8] == commit[:8] for c in e["commits"])]
        if env_name:
            entries = [e for e in entries if env_name in e["env_names"]]
        return entries

    def filename(self, machine, commit, env_name):
        """asv's own file name (it hashes long environment names)."""
        from asv.results import get_filename
        return os.path.join(self.results_dir, get_filename(machine, commit, env_name))

    def files(self, machine=None):
        """Result files (not machine.json), sorted, of one machine or all."""
        paths = []
        for name in ([machine] if machine else self.machines()):
            folder = self.machine_dir(name)
            if os.path.isdir(folder):
                paths += [os.path.join(folder, f) for f in sorted(os.listdir(folder))
                          if f.endswith(".json") and f != MACHINE_FILE]
        return paths

    # validated reads
    def problems(self, machine=None, commits=None):
        """ResultFileErrors of every file of `machine` (or all), optionally only those of
        some commits; machine.json and benchmarks.json are checked too."""
        errors = []
        prefixes = tuple(c[:8] for c in commits) if commits else None
        for path in self.files(machine):
            if prefixes and not os.path.basename(path).startswith(prefixes):
                continue
            try:
                _read_unchanged(path)  # validated, and kept for the reads that follow
            except ResultFileError as exc:
                errors.append(exc)
        for name in ([machine] if machine else self.machines()):
            path = os.path.join(self.machine_dir(name), MACHINE_FILE)
            readers = ((path, read_machine_file),
                       (self.conditions_path(name), read_conditions_log))
            for path, read in readers:
                if os.path.exists(path):
                    try:
                        read(path)
                    except ResultFileError as exc:
                        errors.append(exc)
        path = os.path.join(self.results_dir, BENCHMARKS_FILE)
        if os.path.exists(path):
            try:
                read_benchmarks_file(path)
            except ResultFileError as exc:
                errors.append(exc)
        return errors

    def require_valid(self, machine=None, commits=None):
        errors = self.problems(machine, commits)
        if errors:
            raise ResultsProblem(errors)

    def machine_info(self, machine):
        path = os.path.join(self.machine_dir(machine), MACHINE_FILE)
        return read_machine_file(path) if os.path.exists(path) else None

    def benchmark_info(self):
        """benchmarks.json ({} when absent): units and parameter names (read again only
        when the file changed)."""
        return benchmarks_file(os.path.join(self.results_dir, BENCHMARKS_FILE))

    def has(self, machine, commit, env_name):
        """Is a result file recorded for (machine, commit, environment)?"""
        return os.path.exists(self.filename(machine, commit, env_name))

    def recordings(self, machine=None, commit=None, env_name=None):
        """A Recording of each result file of `machine`, `commit` and `env_name` (each: any
        when None), validated first; in (machine, date, commit, environment) order."""
        return [recording for recording, _ in self._read(machine, commit, env_name)]

    def _read(self, machine, commit, env_name):
        """[(Recording, its file's data)] for recordings() and points()."""
        if machine and commit and env_name:
            path = self.filename(machine, commit, env_name)
            paths = [path] if os.path.exists(path) else []
        else:
            paths = [p for p in self.files(machine)
                     if not commit or os.path.basename(p).startswith(commit[:8])]
        found = []
        for path in paths:
            data = _read_unchanged(path)
            if commit and not data["commit_hash"].startswith(commit):
                continue
            if env_name and data["env_name"] != env_name:
                continue
            found.append((Recording(data["params"]["machine"], data["commit_hash"],
                                    data["env_name"], data.get("date"), data["params"],
                                    data.get("durations", {}), path,
                                    data.get(CHECKED_AGAINST)), data))
        found.sort(key=lambda rd: (rd[0].machine, rd[0].date or 0, rd[0].commit, rd[0].env_name))
        return found

    def points(self, machine=None, commit=None, env_name=None, benchmarks=None):
        """Every parameter point (Point) of the result files that recordings() selects whose
        benchmark name the regex `benchmarks` matches (re.search; all when None): the one
        place in the project where asv results become points. Per file, benchmarks in name
        order, each one's points in asv's order (the product of its parameter values)."""
        info = self.benchmark_info()
        out = []
        for recording, data in self._read(machine, commit, env_name):
            columns = data["result_columns"]
            for benchmark in sorted(data["results"]):
                if benchmarks and not re.search(benchmarks, benchmark):
                    continue
                row = dict(zip(columns, data["results"][benchmark]))
                out += _unroll(recording, benchmark, row, info.get(benchmark, {}).get("unit"))
        return out

    def stale_temporaries(self):
        """Temporary files an atomic write left behind when its process was killed."""
        found = []
        for folder, _, names in os.walk(self.results_dir):
            found += [os.path.join(folder, n) for n in names if TMP_MARK in n]
        return found



# --- merging result directories of other machines (CI jobs) ------------------------------------
def merge_results_dir(store, source):
    """Fold a results directory (`<source>/<machine>/...`, as another machine or CI job wrote
    it) into `store` with merge_result_file. Every file is validated first: a bad one is a
    ResultsProblem and nothing is merged. Returns {machine: files merged} and a list of notes
    (a machine.json whose hardware differs from the recorded one under that name: the recorded
    one stays; CI names machines by runner type, and a hosted pool's CPUs vary)."""
    incoming = Store(source)
    if not incoming.machines():
        raise ResultsProblem(["%s: no machine directories (expected <dir>/<machine>/*.json)"
                              % incoming.results_dir])
    bad = [names.machine_problem(m) for m in incoming.machines() if names.machine_problem(m)]
    if bad:
        raise ResultsProblem(["%s: %s" % (incoming.results_dir, p) for p in bad])
    incoming.require_valid()
    merged, notes = {}, []
    for machine in incoming.machines():
        src_info = os.path.join(incoming.machine_dir(machine), MACHINE_FILE)
        dst_info = os.path.join(store.machine_dir(machine), MACHINE_FILE)
        if os.path.exists(src_info):
            new = read_machine_file(src_info)
            if not os.path.exists(dst_info):
                copy_atomic(src_info, dst_info)
            else:
                old = read_machine_file(dst_info)
                if [old.get(f) for f in HOST_FIELDS] != [new.get(f) for f in HOST_FIELDS]:
                    notes.append("%s: hardware differs from the recorded machine.json (%s vs "
                                 "%s); results merged under the same name"
                                 % (machine, new.get("cpu"), old.get("cpu")))
        files = incoming.files(machine)
        for path in files:
            merge_result_file(path, os.path.join(store.machine_dir(machine),
                                                 os.path.basename(path)))
        merged[machine] = len(files)
        # the conditions of the recordings merged: each entry once
        join_conditions_logs(store.conditions_path(machine), incoming.conditions_path(machine))
    src_bench = os.path.join(incoming.results_dir, BENCHMARKS_FILE)
    if os.path.exists(src_bench):
        data = read_benchmarks_file(src_bench)
        dst_bench = os.path.join(store.results_dir, BENCHMARKS_FILE)
        if os.path.exists(dst_bench):
            recorded = read_benchmarks_file(dst_bench)
            recorded.update(data)  # the same suite; a newer job's description wins
            data = recorded
        data["version"] = _read_json(src_bench).get("version", API_VERSION)
        write_json_atomic(dst_bench, data)
    return merged, notes
