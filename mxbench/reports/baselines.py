"""The baselines report: MXNet against PyTorch and NumPy timed in one process on the same inputs.

From the bench_baselines results (asv.baselines.conf.json): per point, the ratio MXNet time /
counterpart time (above 1: MXNet is slower), each time the fastest recorded sample; summed up
per flavor, release and shape class, with the largest gaps both ways, as text, Markdown, CSV,
JSON or the site's page. What it measures and shows: docs/baselines.md.
"""
import csv
import io
import json
import math
import os
from collections import OrderedDict, namedtuple

from tabulate import tabulate

from mxbench.core.formatting import quotient, ratio_text, seconds_text
from mxbench.core.project import ROOT, load as load_project
from mxbench.core.results import measured

BASELINES_CONFIG = os.path.join(ROOT, "asv.baselines.conf.json")
TIMINGS = OrderedDict([("time_forward", "forward"), ("time_forward_backward", "forward+backward")])
MODULE = "bench_baselines."
TIMED_BENCHMARKS = r"^bench_baselines\.[^.]+\.(%s)$" % "|".join(TIMINGS)
COUNTERPARTS = ("torch", "numpy")

Row = namedtuple("Row", "operator timing shape_class dtype flavor release mxnet torch numpy")


def _release_key(release):
    from packaging.version import Version
    try:
        return Version(release)
    except Exception:
        return Version("0")


def collect(config=BASELINES_CONFIG, machine=None, results_dir=None):
    """(rows, versions): one Row per (operator, timing, shape class, dtype, flavor, release) with
    the three times in seconds (None where not measured); versions: {(flavor, release):
    {"torch": ..., "numpy": ..., "checked_against": ...}}: torch and numpy as the environment's
    matrix recorded them, checked_against the {framework: version} the counterparts were
    checked equal with when it was recorded (None: a recording made before files carried it)."""
    project = load_project(config, results_dir)
    store = project.store
    store.require_valid(machine)
    flavors = dict((e.name, e.flavor) for e in project.environments)
    times, versions = OrderedDict(), {}
    for point in store.points(machine, benchmarks=TIMED_BENCHMARKS):
        recording = point.recording
        release = project.release_of(recording.commit) or recording.commit[:8]
        flavor = flavors.get(recording.env_name, recording.env_name)
        versions[(flavor, release)] = dict(
            [(name, recording.params.get(name, "")) for name in COUNTERPARTS]
            + [("checked_against", recording.checked_against)])
        _, operator, method = point.benchmark.split(".")
        shape_class, dtype, framework = [p.strip("'") for p in point.params]
        value = point.value
        if measured(value) and point.samples:
            # The fastest sample: on a shared machine a neighbour's burst slows
            # one side's samples, not the other's; the minimum is what each can do.
            value = min(point.samples)
        key = (recording.path, operator, TIMINGS[method], shape_class, dtype, flavor, release)
        times.setdefault(key, {})[framework] = value if measured(value) else None
    rows = [Row(*key[1:], mxnet=by_fw.get("mxnet"), torch=by_fw.get("torch"),
                numpy=by_fw.get("numpy")) for key, by_fw in times.items()]
    rows.sort(key=lambda r: (r.flavor, _release_key(r.release), r.operator,
                             list(TIMINGS.values()).index(r.timing), r.shape_class, r.dtype))
    return rows, versions


def ratio(row, framework):
    """MXNet time / the counterpart's (above 1: MXNet is slower), or None."""
    return quotient(row.mxnet, getattr(row, framework))


def summarize(rows, top=10):
    """Per (flavor, release, counterpart, timing): counts, geometric mean, largest gaps."""
    groups = OrderedDict()
    for row in rows:
        for framework in COUNTERPARTS:
            r = ratio(row, framework)
            if r is not None:
                groups.setdefault((row.flavor, row.release, framework, row.timing),
                                  []).append((r, row))
    summary = []
    for (flavor, release, framework, timing), items in groups.items():
        logs = [math.log(r) for r, _ in items]
        items.sort(key=lambda item: item[0])
        summary.append(OrderedDict([
            ("flavor", flavor), ("release", release), ("versus", framework),
            ("timing", timing), ("points", len(items)),
            ("mxnet_faster", sum(1 for r, _ in items if r < 1)),
            ("counterpart_faster", sum(1 for r, _ in items if r > 1)),
            ("geomean_ratio", math.exp(sum(logs) / len(logs))),
            ("mxnet_slowest", [(r, row) for r, row in reversed(items[-top:]) if r > 1]),
            ("mxnet_fastest", [(r, row) for r, row in items[:top] if r < 1]),
        ]))
    return summary


def summarize_shape_classes(rows):
    """{(counterpart, timing, shape class): (points, MXNet faster, counterpart faster,
    geometric mean ratio)}."""
    groups = OrderedDict()
    for row in sorted(rows, key=lambda r: (r.shape_class, r.timing)):
        for framework in COUNTERPARTS:
            r = ratio(row, framework)
            if r is not None:
                groups.setdefault((framework, row.timing, row.shape_class), []).append(r)
    return OrderedDict((key, (len(v), sum(1 for r in v if r < 1), sum(1 for r in v if r > 1),
                              math.exp(sum(math.log(r) for r in v) / len(v))))
                       for key, v in sorted(groups.items()))


def checked_text(versions, flavor, release):
    """'mxnet 1.9.1, torch 2.13.0, numpy 1.23.5': the versions a recording's counterparts
    were checked equal with, or 'not recorded' (a file from before they were written)."""
    checked = versions.get((flavor, release), {}).get("checked_against")
    if not checked:
        return "not recorded"
    return ", ".join("%s %s" % item for item in sorted(checked.items()))


def _point(row):
    return "%s %s %s %s" % (row.operator, row.timing, row.shape_class, row.dtype)


def render_text(rows, versions, top=10, markdown=False):
    summary = summarize(rows, top)
    fmt = "github" if markdown else "simple"
    out = io.StringIO()
    heading = (lambda text: "### %s\n" % text) if markdown else (lambda text: "%s\n" % text)
    out.write(heading("MXNet time / counterpart time (above 1: MXNet is slower), same process, "
                      "same inputs, same thread count"))
    table = [[s["flavor"], s["release"], "%s %s" % (s["versus"], versions.get(
        (s["flavor"], s["release"]), {}).get(s["versus"], "")), s["timing"], s["points"],
        s["mxnet_faster"], s["counterpart_faster"], ratio_text(s["geomean_ratio"]),
        checked_text(versions, s["flavor"], s["release"])] for s in summary]
    out.write(tabulate(table, headers=["flavor", "release", "versus", "timing", "points",
                                       "MXNet faster", "counterpart faster",
                                       "geometric mean ratio", "checked against"],
                       tablefmt=fmt))
    out.write("\n")
    by_shape_class = summarize_shape_classes(rows)
    out.write("\n" + heading("By shape class (all flavors and releases; geometric means)"))
    out.write(tabulate([[k[0], k[1], k[2], v[0], v[1], v[2], ratio_text(v[3])]
                        for k, v in by_shape_class.items()],
                       headers=["versus", "timing", "shape", "points", "MXNet faster",
                                "counterpart faster", "geometric mean ratio"], tablefmt=fmt))
    out.write("\n")
    for s in summary:
        for title, key in (("MXNet slowest against", "mxnet_slowest"),
                           ("MXNet fastest against", "mxnet_fastest")):
            if not s[key]:
                continue
            out.write("\n" + heading("%s %s (%s %s, %s): largest gaps" % (
                title, s["versus"], s["flavor"], s["release"], s["timing"])))
            table = [[_point(row), seconds_text(row.mxnet), seconds_text(getattr(row, s["versus"])),
                      ratio_text(r)] for r, row in s[key]]
            out.write(tabulate(table, headers=["operator timing shape dtype", "MXNet",
                                               s["versus"], "ratio"], tablefmt=fmt))
            out.write("\n")
    return out.getvalue()


def as_records(rows):
    return [OrderedDict([
        ("operator", r.operator), ("timing", r.timing), ("shape", r.shape_class), ("dtype", r.dtype),
        ("flavor", r.flavor), ("release", r.release), ("mxnet_s", r.mxnet),
        ("torch_s", r.torch), ("numpy_s", r.numpy),
        ("mxnet_over_torch", ratio(r, "torch")), ("mxnet_over_numpy", ratio(r, "numpy"))])
        for r in rows]


def render_csv(rows):
    out = io.StringIO()
    records = as_records(rows)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(records[0]) if records else list(Row._fields))
    for record in records:
        writer.writerow(["" if v is None else v for v in record.values()])
    return out.getvalue()


def render_json(rows, versions):
    return json.dumps({"versions": [dict(flavor=f, release=r, **v)
                                    for (f, r), v in sorted(versions.items())],
                       "points": as_records(rows)}, indent=1) + "\n"


def rendered(rows, versions, fmt, top=10):
    """The report in a format: text, markdown, csv or json."""
    if fmt in ("text", "markdown"):
        return render_text(rows, versions, top, markdown=fmt == "markdown")
    return render_csv(rows) if fmt == "csv" else render_json(rows, versions)
