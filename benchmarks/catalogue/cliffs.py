"""Performance cliffs as data: shapes the search (python -m mxbench search, docs/search.md)
found and confirmed to cost at least twice as much per element as a neighbouring shape, each a
named case of its catalogue entry, with the neighbours it was confirmed against. bench_cliffs
times them along the release ladder; the cliff report reads where each one holds.

A case here is its entry's base shape class with other dimensions: the inputs' shapes, the
index bounds tied to them (`high`) and the size arguments (num_filter, depth, ...); fills,
pinned dtypes and the other arguments stay the base case's. Names never change once written.

Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
import json
import os
from collections import OrderedDict

from benchmarks import UserError

CLIFFS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cliffs.json")
ABOUT = ("Confirmed performance cliffs: per entry, cases whose forward call costs at least "
         "`threshold` times as much per input element as a neighbouring shape, re-measured "
         "interleaved; each with those neighbours. Written by python -m mxbench search "
         "(docs/search.md); timed along the ladder by bench_cliffs.")


def _tuples(value):
    """JSON lists back to the tuples the catalogue writes (kernel=(3, 3), high=(16, 16))."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


# The fields each reader of a cliff record uses (bench_cliffs, the cliff report)
CLIFF_FIELDS = ("entry", "name", "shape", "dtype", "elements", "case", "neighbours")
NEIGHBOUR_FIELDS = ("name", "kind", "shape", "elements", "ratio", "case")


class CliffsFileError(UserError, ValueError):
    """cliffs.json cannot be read (truncated, not JSON, a record without a field); its
    message names the file and the problem on one line. The benchmark side imports no
    mxbench, so the host's command line turns this into its one-line error."""


def _missing(record, fields):
    if not isinstance(record, dict):
        return "not an object"
    absent = [f for f in fields if f not in record]
    if absent:
        return "no %s" % ", ".join(absent)
    if not isinstance(record["case"], dict) or "base" not in record["case"]:
        return "case is not a case record"
    return None


def read_cliffs(path=CLIFFS_FILE):
    """The cliff records, in the order they were found ([] when there are none); a file
    that cannot be used is a CliffsFileError."""
    if not os.path.exists(path):
        return []
    try:
        with open(path) as fh:
            data = json.load(fh, object_pairs_hook=OrderedDict)
    except (OSError, ValueError) as exc:
        raise CliffsFileError("%s cannot be read: %s" % (path, exc))
    cliffs = data.get("cliffs") if isinstance(data, dict) else None
    if not isinstance(cliffs, list):
        raise CliffsFileError("%s has no list of cliffs" % path)
    for i, record in enumerate(cliffs):
        problem = _missing(record, CLIFF_FIELDS)
        if problem is None and not isinstance(record["neighbours"], list):
            problem = "neighbours is not a list"
        if problem is None:
            problem = next(("neighbour %d: %s" % (n, p) for n, p in (
                (n, _missing(neighbour, NEIGHBOUR_FIELDS))
                for n, neighbour in enumerate(record["neighbours"])) if p), None)
        if problem:
            raise CliffsFileError("%s: cliff %d (%s): %s" % (
                path, i, record.get("name", "?") if isinstance(record, dict) else "?", problem))
    return cliffs


def write_cliffs(cliffs, path=CLIFFS_FILE):
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump({"about": ABOUT, "cliffs": list(cliffs)}, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, path)
    return path


def case_from_record(entry, record):
    """The catalogue Case a stored case record ({"base", "inputs", "highs", "keyword_inputs",
    "kwargs"}) describes, on its entry's base shape class."""
    base = entry.cases[record["base"]]
    highs = record.get("highs", {})
    inputs = tuple(t._replace(shape=tuple(shape), high=_tuples(highs.get(str(i), t.high)))
                   for i, (t, shape) in enumerate(zip(base.inputs, record["inputs"])))
    kwargs = dict(base.kwargs)
    for key, shape in record.get("keyword_inputs", {}).items():
        kwargs[key] = kwargs[key]._replace(shape=tuple(shape),
                                           high=_tuples(highs.get(key, kwargs[key].high)))
    kwargs.update((k, _tuples(v)) for k, v in record.get("kwargs", {}).items())
    return base._replace(inputs=inputs, kwargs=kwargs)


def cliff_points(record):
    """(case name, case record) of a cliff and of each neighbour it was confirmed against."""
    points = [(record["name"], record["case"])]
    points += [(n["name"], n["case"]) for n in record["neighbours"]]
    return points


def cliff_entries(operators, cliffs):
    """{class name: (entry with its cliff cases as its only cases, {case name: dtype})} for
    the entries that have cliffs, in catalogue order."""
    by_entry = OrderedDict()
    for record in cliffs:
        by_entry.setdefault(record["entry"], []).append(record)
    out = OrderedDict()
    for op in operators:
        if op.class_name not in by_entry:
            continue
        cases, dtypes = OrderedDict(), OrderedDict()
        for record in by_entry[op.class_name]:
            for name, case_record in cliff_points(record):
                cases[name] = case_from_record(op, case_record)
                dtypes[name] = record["dtype"]
        out[op.class_name] = (op.replace(cases=cases), dtypes)
    return out
