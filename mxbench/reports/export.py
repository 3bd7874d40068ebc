"""Export asv results (any results directory) to JSON, CSV or Markdown.

One row per parameter point of every recording (machine, commit, environment), with its
status (ok, skipped, failed) and the statistics its recording supports (`stats_source`:
samples, asv-summary or value-only). Columns and examples: docs/adhoc-and-export.md. The
renderers (mxbench/core/tables.py) are shared with mxbench.adhoc: Python 3.7 syntax.
"""
import ast
import math
import os
import re
import subprocess

from mxbench.core import stats
from mxbench.core.tables import FORMATS, render_csv, render_json, render_markdown

COLUMNS = ("machine", "commit", "tag", "env", "benchmark", "params", "unit", "status",
           "stats_source", "result", "number") + stats.FIELDS
# Markdown is for reading: values carry their unit, and duplicates (median = p50) go.
MARKDOWN_COLUMNS = ("machine", "commit", "tag", "env", "benchmark", "params", "status",
                    "stats_source", "sample_count", "result", "mean", "min", "p50", "p90",
                    "p99", "max", "iqr")


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


# --- rendering -------------------------------------------------------------------------
def render(rows, fmt, columns=COLUMNS, markdown_columns=MARKDOWN_COLUMNS):
    if fmt == "json":
        return render_json(rows)
    if fmt == "csv":
        return render_csv(rows, columns)
    if fmt == "markdown":
        return render_markdown(rows, markdown_columns)
    raise ValueError("unknown format %r (one of %s)" % (fmt, ", ".join(FORMATS)))


# --- the summary line --------------------------------------------------------------------
def summary_line(rows):
    def count(key, value):
        return sum(1 for r in rows if r[key] == value)
    return ("exported %d rows: %d ok (%d from samples, %d asv-summary only, %d value-only), "
            "%d skipped, %d failed" % (
                len(rows), count("status", "ok"), count("stats_source", stats.SOURCE_SAMPLES),
                count("stats_source", stats.SOURCE_ASV_SUMMARY),
                count("stats_source", stats.SOURCE_VALUE_ONLY),
                count("status", "skipped"), count("status", "failed")))
