"""MXNet's known crashes: the points whose call kills the benchmark's process (a segfault, an
abort) on some releases, and on some CPU kinds only. Data, one JSON object a line, in
known_crashes.jsonl beside this file: written by hand with the source of each row, and
appended by `mxbench run` when a point crashes again in a probe of its own (the row's
`source` says which run saw it, on which machine).

A row:
  entry    the catalogue entry's class name (bench_operators.<entry>, bench_memory.<entry>)
  module   null for a catalogue entry's call; a benchmark module otherwise (bench_gluon...)
  case     the shape class it crashes at (null: every one)
  method   the benchmark method that crashes (null: every one; a method's row skips only it)
  since    the first release affected; until: the last one known (null: every later one)
  cpu      {"vendor", "family", "model"} of the CPU kind it crashes on (null: every CPU)
  what     what happens, one line; source: who saw it, where
  point, flavor, exit_status, evidence: what an observing run saw (its rows only)

The harness skips such a point with the reason (bench_operators), and mxbench's run counts
it as MXNet's crash, not the suite's failure, and does not run it again.
Runs inside benchmark environments (Python 3.7+): no mxnet, no mxbench.
"""
import json
import os
import re

from benchmarks import UserError

CRASHES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_crashes.jsonl")
# Another file instead (a test, a fork's own observations); mxbench run appends there too.
CRASHES_FILE_VARIABLE = "MXBENCH_KNOWN_CRASHES"
# /proc/cpuinfo is read from this file instead when it is set (tests of another CPU kind).
CPUINFO_VARIABLE = "MXBENCH_CPUINFO_FILE"
FIELDS = ("entry", "case", "method", "since", "until", "cpu", "what", "source")
CPU_FIELDS = ("vendor", "family", "model")
# The modules whose classes are catalogue entries making the entry's call: a row without a
# module names their points.
CATALOGUE_MODULES = ("bench_operators", "bench_memory")


class CrashDataError(UserError, ValueError):
    """known_crashes.jsonl cannot be read: the message names the file and the line."""


def crashes_file():
    return os.environ.get(CRASHES_FILE_VARIABLE) or CRASHES_FILE


def release_tuple(release):
    """'1.9.1' -> (1, 9, 1); '1.8.0.post0' -> (1, 8, 0): MXNet's own version has no post."""
    return tuple(int(n) for n in re.findall(r"\d+", str(release))[:3])


def read_rows(path=None):
    """The rows of the crash file ([] when it does not exist); CrashDataError on a bad line."""
    path = path or crashes_file()
    try:
        with open(path) as fh:
            lines = fh.read().splitlines()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise CrashDataError("%s cannot be read: %s" % (path, exc.strerror or exc))
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            problem = row_problem(row)
        except ValueError as exc:
            problem = "not JSON (%s)" % exc
        if problem:
            raise CrashDataError("%s line %d: %s" % (path, number, problem))
        rows.append(row)
    return rows


def row_problem(row):
    if not isinstance(row, dict):
        return "not an object"
    missing = [f for f in ("entry", "since", "what") if not isinstance(row.get(f), str)]
    if missing:
        return "no %s" % ", ".join(missing)
    cpu = row.get("cpu")
    if cpu is not None and not (isinstance(cpu, dict) and all(
            isinstance(cpu.get(f), str) for f in CPU_FIELDS)):
        return "cpu must be null or {vendor, family, model} as strings"
    return None


def cpuinfo_text():
    path = os.environ.get(CPUINFO_VARIABLE) or "/proc/cpuinfo"
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return ""


def first_cpu_fields(cpuinfo=None):
    """{field: value} of the first CPU's block of /proc/cpuinfo (of the text given)."""
    first = (cpuinfo_text() if cpuinfo is None else cpuinfo).split("\n\n")[0]
    return dict((k.strip(), v.strip()) for k, v in re.findall(r"^([^:\n]+):(.*)$", first, re.M))


def cpu_kind(cpuinfo=None):
    """{vendor, family, model} of the first CPU in /proc/cpuinfo ({} without one): what a
    crash that only some CPUs show depends on."""
    fields = first_cpu_fields(cpuinfo)
    names = {"vendor": "vendor_id", "family": "cpu family", "model": "model"}
    kind = dict((key, fields.get(name)) for key, name in names.items())
    return kind if all(kind.values()) else {}


def cpu_text(cpu):
    """'AuthenticAMD family 26 model 2', or 'every CPU'."""
    if not cpu:
        return "every CPU"
    return "%s family %s model %s" % tuple(cpu.get(f) for f in CPU_FIELDS)


def _same_cpu(row_cpu, cpu):
    return row_cpu is None or all(row_cpu.get(f) == (cpu or {}).get(f) for f in CPU_FIELDS)


def matches(row, entry, release, case=None, method=None, cpu=None, module=None):
    """Does the row name this point (entry, shape class, method; module: None for the
    catalogue entry's call) on this release and CPU?"""
    if row["entry"] != entry or (row.get("case") not in (None, case)):
        return False
    if row.get("module") != (None if module in CATALOGUE_MODULES else module):
        return False
    if method is not None and row.get("method") not in (None, method):
        return False
    if release_tuple(release) < release_tuple(row["since"]):
        return False
    if row.get("until") and release_tuple(release) > release_tuple(row["until"]):
        return False
    return _same_cpu(row.get("cpu"), cpu)


def known_crash(entry, release, case=None, method=None, cpu=None, rows=None, module=None):
    """The row of a known crash of this point on this release and CPU kind (cpu: this one's
    when None), or None. method=None asks about the whole point (a row of one method then
    does not match: the other methods run)."""
    cpu = cpu_kind() if cpu is None else cpu
    for row in read_rows() if rows is None else rows:
        if method is None and row.get("method"):
            continue
        if matches(row, entry, release, case, method, cpu, module):
            return row
    return None


def crashing_methods(entry, release, case, cpu=None, rows=None):
    """{method: row} of the rows of single methods that crash at this point."""
    cpu = cpu_kind() if cpu is None else cpu
    return dict((row["method"], row) for row in (read_rows() if rows is None else rows)
                if row.get("method") and matches(row, entry, release, case, row["method"], cpu))


def reason(row, version):
    """The skip's message: what happens, where it was seen."""
    return "crashes the process in mxnet %s on %s: %s (%s)" % (
        version, cpu_text(row.get("cpu")), row["what"], crashes_file_label())


def crashes_file_label():
    path = crashes_file()
    return ("benchmarks/catalogue/known_crashes.jsonl" if path == CRASHES_FILE else path)


def append_row(row, path=None):
    """Add a row (an observed crash) unless one like it is there; True when added."""
    path = path or crashes_file()
    problem = row_problem(row)
    if problem:
        raise CrashDataError("a crash row to add: %s" % problem)
    same = ("module", "entry", "case", "method", "since", "until", "cpu")
    key = [row.get(f) for f in same]
    for old in read_rows(path):
        if [old.get(f) for f in same] == key:
            return False
    with open(path, "a") as fh:
        fh.write(json.dumps(row, sort_keys=True) + "\n")
    return True
