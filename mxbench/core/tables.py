"""Rows of dicts as JSON, CSV or a GitHub Markdown table, and the one way a report reaches its
file or stdout: shared by the results export (mxbench/reports/export.py) and adhoc's timings
(mxbench/inside/adhoc.py). Python 3.7 syntax.
"""
import csv
import io
import json
import math
import sys

from mxbench.core.errors import UserError
from mxbench.core.formatting import human_value

VALUE_COLUMNS = ("result", "mean", "median", "min", "max", "p50", "p90", "p99", "q25",
                 "q75", "iqr")
FORMATS = ("json", "csv", "markdown")


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


def write_output(text, path):
    if path in (None, "-"):
        sys.stdout.write(text)
    else:
        try:
            with open(path, "w") as fh:
                fh.write(text)
        except OSError as exc:  # a missing folder, no permission, a full disk
            raise UserError("cannot write %s: %s" % (path, exc.strerror or exc))
