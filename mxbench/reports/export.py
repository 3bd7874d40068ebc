"""Export asv results (any results directory) to JSON, CSV or Markdown.

One row per parameter point of every recording (machine, commit, environment), with its
status (ok, skipped, failed) and the statistics its recording supports (`stats_source`:
samples, asv-summary or value-only). Columns and examples: docs/adhoc-and-export.md. The
renderers (render_json/csv/markdown) are shared with mxbench.adhoc: Python 3.7 syntax.
"""
import argparse
import ast
import csv
import io
import json
import math
import os
import re
import subprocess
import sys

from mxbench.core import stats
from mxbench.core.arguments import regex
from mxbench.core.errors import UserError
from mxbench.core.formatting import human_value

COLUMNS = ("machine", "commit", "tag", "env", "benchmark", "params", "unit", "status",
           "stats_source", "result", "number") + stats.FIELDS
# Markdown is for reading: values carry their unit, and duplicates (median = p50) go.
MARKDOWN_COLUMNS = ("machine", "commit", "tag", "env", "benchmark", "params", "status",
                    "stats_source", "sample_count", "result", "mean", "min", "p50", "p90",
                    "p99", "max", "iqr")
VALUE_COLUMNS = ("result", "mean", "median", "min", "max", "p50", "p90", "p99", "q25",
                 "q75", "iqr")
FORMATS = ("json", "csv", "markdown")


# --- reading asv's files -----------------------------------------------------------------
def release_tags(repo):
    """{full commit hash: 'tag[,tag]'} for a git repository (annotated tags peeled)."""
    out = subprocess.run(
        ["git", "-C", str(repo), "for-each-ref", "refs/tags",
         "--format=%(objectname) %(*objectname) %(refname:short)"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if out.returncode != 0:
        raise ValueError("not a git repository: %s (%s)" % (repo, out.stderr.strip()))
    tags = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        commit, name = parts[-2], parts[-1]  # the peeled commit when the tag is annotated
        tags.setdefault(commit, []).append(name)
    return dict((commit, ",".join(sorted(names))) for commit, names in tags.items())


def param_value(text):
    """asv stores parameter values as repr strings: "'small'" -> small."""
    try:
        return str(ast.literal_eval(text))
    except (ValueError, SyntaxError):
        return text


def param_label(names, combo):
    values = [param_value(v) for v in combo]
    if names and len(names) == len(values):
        return ", ".join("%s=%s" % pair for pair in zip(names, values))
    return ", ".join(values)


def status_of(value):
    """asv: None = failed (exception, timeout); NaN = skipped (n/a)."""
    if value is None:
        return "failed"
    if isinstance(value, float) and math.isnan(value):
        return "skipped"
    return "ok"


def measurement(value, stats_dict, samples):
    """(stats_source, summary) for one parameter combination."""
    if status_of(value) != "ok":
        return "", stats.empty_summary()
    if samples:
        return stats.SOURCE_SAMPLES, stats.summarize_samples(samples)
    if stats_dict:
        return stats.SOURCE_ASV_SUMMARY, stats.summarize_asv_stats(value, stats_dict)
    return stats.SOURCE_VALUE_ONLY, stats.empty_summary()


def point_row(point, info, tags):
    """The row of one parameter point (a results.Point)."""
    value, stats_dict = point.value, point.stats
    source, summary = measurement(value, stats_dict, point.samples)
    recording = point.recording
    row = {
        "machine": recording.machine,
        "commit": recording.commit,
        "tag": tags.get(recording.commit, ""),
        "env": recording.env_name,
        "benchmark": point.benchmark,
        "params": param_label(info.get(point.benchmark, {}).get("param_names"), point.params),
        "unit": point.unit or "",
        "status": status_of(value),
        "stats_source": source,
        "result": value if source else None,
        "number": (stats_dict or {}).get("number") if source else None,
    }
    row.update(summary)
    return row


def _matches(regex, *texts):
    return regex is None or any(re.search(regex, t) for t in texts)


def open_store(results_dir):
    """(Store, machine or None) for a results directory or one machine's folder in it."""
    from mxbench.core.results import MACHINE_FILE, Store
    results_dir = os.path.abspath(str(results_dir))
    if not os.path.isdir(results_dir):
        raise ValueError("no results directory at %s" % results_dir)
    if os.path.exists(os.path.join(results_dir, MACHINE_FILE)):
        return Store(os.path.dirname(results_dir)), os.path.basename(results_dir)
    return Store(results_dir), None


def collect_rows(results_dir, benchmark=None, env=None, repo=None, ok_only=False):
    """Every row of a results directory (or of one machine's folder in it). A file that
    cannot be used raises ResultsProblem (naming it): no export without that file."""
    store, machine = open_store(results_dir)
    store.require_valid(machine)
    info = store.benchmark_info()
    tags = release_tags(repo) if repo else {}
    rows = []
    for point in store.points(machine):
        if not _matches(env, point.recording.env_name):
            continue
        row = point_row(point, info, tags)
        label = "%s(%s)" % (row["benchmark"], row["params"])
        if _matches(benchmark, row["benchmark"], label):
            if row["status"] == "ok" or not ok_only:
                rows.append(row)
    return rows


# --- rendering (shared with mxbench.adhoc) -------------------------------------------------
def _json_safe(value):
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return dict((k, _json_safe(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def render_json(rows):
    return json.dumps(_json_safe(list(rows)), indent=1, allow_nan=False) + "\n"


def render_csv(rows, columns):
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(dict((k, "" if row.get(k) is None else row.get(k)) for k in columns))
    return buf.getvalue()


def markdown_cell(value):
    return "" if value is None else str(value).replace("|", "\\|")


def render_markdown(rows, columns, value_columns=VALUE_COLUMNS):
    """A GitHub Markdown table; value columns are shown with their unit."""
    from tabulate import tabulate
    table = []
    for row in rows:
        cells = []
        for col in columns:
            value = row.get(col)
            if col in value_columns:
                value = human_value(value, row.get("unit"))
            elif col == "commit" and value:
                value = value[:8]
            cells.append(markdown_cell(value))
        table.append(cells)
    return tabulate(table, headers=list(columns), tablefmt="github",
                    disable_numparse=True) + "\n"


def render(rows, fmt, columns=COLUMNS, markdown_columns=MARKDOWN_COLUMNS):
    if fmt == "json":
        return render_json(rows)
    if fmt == "csv":
        return render_csv(rows, columns)
    if fmt == "markdown":
        return render_markdown(rows, markdown_columns)
    raise ValueError("unknown format %r (one of %s)" % (fmt, ", ".join(FORMATS)))


def write_output(text, path):
    if path in (None, "-"):
        sys.stdout.write(text)
    else:
        try:
            with open(path, "w") as fh:
                fh.write(text)
        except OSError as exc:  # a missing folder, no permission, a full disk
            raise UserError("cannot write %s: %s" % (path, exc.strerror or exc))


# --- command line ---------------------------------------------------------------------------
def summary_line(rows):
    def count(key, value):
        return sum(1 for r in rows if r[key] == value)
    return ("exported %d rows: %d ok (%d from samples, %d asv-summary only, %d value-only), "
            "%d skipped, %d failed" % (
                len(rows), count("status", "ok"), count("stats_source", stats.SOURCE_SAMPLES),
                count("stats_source", stats.SOURCE_ASV_SUMMARY),
                count("stats_source", stats.SOURCE_VALUE_ONLY),
                count("status", "skipped"), count("status", "failed")))


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "export", help="asv results (any results directory) as JSON, CSV or Markdown",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results_dir", help="asv results directory (or one machine's folder)")
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("-o", "--output", help="file to write (default: stdout)")
    parser.add_argument("--benchmark", metavar="REGEX", type=regex,
                        help="keep benchmarks whose name or name(params) matches")
    parser.add_argument("--env", metavar="REGEX", type=regex, help="keep environments whose name matches")
    parser.add_argument("--repo", metavar="GIT_REPO",
                        help="the ladder repository, to name each commit's release tag")
    parser.add_argument("--ok-only", action="store_true",
                        help="leave out skipped and failed parameter combinations")
    parser.set_defaults(func=cmd_export, needs_project=False)
    return parser


def cmd_export(args):
    try:
        rows = collect_rows(args.results_dir, benchmark=args.benchmark, env=args.env,
                            repo=args.repo, ok_only=args.ok_only)
    except ValueError as exc:
        raise UserError(exc)
    write_output(render(rows, args.format), args.output)
    print("mxbench.export: " + summary_line(rows), file=sys.stderr)
    return 0
