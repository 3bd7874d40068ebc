"""The site's data as scripts: mxbench/file-data/*.js, the only copy the published site keeps.

asv's pages fetch JSON (info.json, index.json, graphs/**, and mxbench's changes.json and
confirmations.json); overlay.js (section 1) answers every such request, over HTTP as from
disk (file://, where browsers refuse JSON requests), from these scripts, each a call
mxbenchFileData({path: data, ...}). A page loads only the scripts of what it shows
(bundle_of), so the JSON copies are dropped once the scripts are written (drop_json): no page
fetches them, and a republish rewrites a few thousand files, not twenty thousand.

Some files are packed smaller in their script (pack; overlay.js unpacks them the same way as
unpack here): index.json without the benchmarks' code (each benchmark's code is in its graph
script, which the graph page loads) and without the fields asv's pages never read;
changes.json with each distinct text (a point, a machine, a release...) once; the list
view's tables as columns, without the row names asv derives from index.json.
read_site_json reads a file back as asv wrote it (less the dropped fields).
"""
import collections
import json
import os
import re
import shutil

from mxbench.core.results import file_stamp
from mxbench.site.change_data import CHANGES_FILE
from mxbench.site.verdict_data import VERDICTS_FILE

FILE_DATA = "mxbench/file-data"
# Top-level JSON files of a published site, each in one script; asv's regressions.json is
# read by change_data.py when publishing and by no page (overlay.js draws the regressions
# page from changes.json), so it has none and is dropped with the others.
TOP_FILES = collections.OrderedDict((("info.json", "index"), ("index.json", "index"),
                                     (CHANGES_FILE, "changes"),
                                     (VERDICTS_FILE, "confirmations"),
                                     ("regressions.json", None)))
GRAPHS = "graphs"
# graphs/summary/<benchmark>.json (the grid's little graphs): SUMMARY_CHUNK benchmarks, in
# index.json's order, per script, so the grid loads the few its first screen draws.
SUMMARY_CHUNK = 40
# A benchmark's code and default view (overlay.default_view), in its graph script.
BENCHMARK_ENTRY = "benchmark/"
# What asv's pages read of a benchmark in index.json (code comes with its graph script).
BENCHMARK_FIELDS = ("params", "param_names", "unit", "pretty_name")
SCRIPT_RE = re.compile(r"^mxbenchFileData\((.*)\);$", re.M | re.S)


# --- which script holds what --------------------------------------------------------------------
def benchmark_positions(index):
    """{benchmark: its position in index.json}: the grid's summary scripts go by it."""
    return {name: n for n, name in enumerate(index["benchmarks"])}


def bundle_of(path, positions):
    """The script (its name under FILE_DATA, without .js) that holds the site's file `path`,
    or None for a file no page reads; the same rule as bundle_of in site-sources/overlay/overlay.js.
    A graph page loads one script (every machine's and environment's graph of its benchmark,
    its code and default view), the grid the summary scripts of the boxes it draws, the list
    view its one table, the regressions and change pages the changes."""
    if path in TOP_FILES:
        return TOP_FILES[path]
    if path.startswith(BENCHMARK_ENTRY):
        return "graphs/" + path[len(BENCHMARK_ENTRY):]
    parts = path.split("/")
    if parts[0] != GRAPHS or len(parts) < 2 or not parts[-1].endswith(".json"):
        raise ValueError("no file-data script for %s" % path)
    if len(parts) == 3 and parts[1] == "summary":
        return "summaries/%d" % (positions[parts[2][:-len(".json")]] // SUMMARY_CHUNK)
    if len(parts) > 2 and parts[-1] == "summary.json":
        return path[:-len(".json")]  # the list view's table of one machine and environment
    return "graphs/" + parts[-1][:-len(".json")]


def site_json_files(html_dir):
    """(path relative to html_dir with "/", absolute path) of every JSON file asv publish and
    mxbench wrote for the pages, in a fixed order."""
    for name in TOP_FILES:
        if os.path.isfile(os.path.join(html_dir, name)):
            yield name, os.path.join(html_dir, name)
    for dirpath, dirnames, names in os.walk(os.path.join(html_dir, GRAPHS)):
        dirnames.sort()
        for name in sorted(names):
            if name.endswith(".json"):
                full = os.path.join(dirpath, name)
                yield os.path.relpath(full, html_dir).replace(os.sep, "/"), full


# --- packed forms -------------------------------------------------------------------------------
def _table_index(table, seen, value):
    """The index of `value` in `table` (appended if new); `seen`: {key of a value: index}."""
    key = value if isinstance(value, str) else (json.dumps(value, sort_keys=True),)
    if key not in seen:
        seen[key] = len(table)
        table.append(value)
    return seen[key]


def pack_index(index):
    """index.json with its benchmarks as {"units", "params": [[params, param_names]],
    "groups": {"a.b": [[c, unit, params (, pretty_name)]]}} (names sorted: a group's names are
    consecutive, so unpacking gives the same order)."""
    units, params, seen = [], [], {}
    groups = collections.OrderedDict()
    for name, bench in index["benchmarks"].items():
        prefix, _, tail = name.rpartition(".")
        if bench.get("unit") not in units:
            units.append(bench.get("unit"))
        row = [tail, units.index(bench.get("unit")),
               _table_index(params, seen, [bench.get("params", []), bench.get("param_names", [])])]
        if bench.get("pretty_name") is not None:
            row.append(bench["pretty_name"])
        if groups and prefix in groups and next(reversed(groups)) != prefix:
            raise ValueError("index.json's benchmarks are not sorted by name (%s)" % name)
        groups.setdefault(prefix, []).append(row)
    packed = collections.OrderedDict((k, v) for k, v in index.items() if k != "benchmarks")
    packed["mxbench_benchmarks"] = {"units": units, "params": params, "groups": groups,
                                    "summary_chunk": SUMMARY_CHUNK}
    return packed


def unpack_index(packed):
    """index.json as asv wrote it, with BENCHMARK_FIELDS (and name) of each benchmark."""
    compact = packed["mxbench_benchmarks"]
    benchmarks = collections.OrderedDict()
    for prefix, rows in compact["groups"].items():
        for row in rows:
            name = prefix + "." + row[0] if prefix else row[0]
            params, names = compact["params"][row[2]]
            bench = {"name": name, "unit": compact["units"][row[1]], "params": params,
                     "param_names": names}
            if len(row) > 3:
                bench["pretty_name"] = row[3]
            benchmarks[name] = bench
    index = collections.OrderedDict((k, v) for k, v in packed.items()
                                    if k != "mxbench_benchmarks")
    index["benchmarks"] = benchmarks
    return index


def pack_columns(fields, rows):
    """(rows, tables): rows as lists, each column of text or objects that repeat as indices
    into its table of distinct values ({field: values}) where that is smaller."""
    rows = [list(row) for row in rows]
    tables = collections.OrderedDict()
    for column, field in enumerate(fields):
        values = [row[column] for row in rows]
        if not all(v is None or isinstance(v, (str, dict, list)) for v in values):
            continue
        table, seen = [], {}
        indices = [_table_index(table, seen, value) for value in values]
        if len(js_value(table)) + len(js_value(indices)) < len(js_value(values)):
            tables[field] = table
            for row, index in zip(rows, indices):
                row[column] = index
    return rows, tables


def unpack_columns(fields, rows, tables):
    columns = [(fields.index(field), table) for field, table in tables.items()]
    out = []
    for row in rows:
        row = list(row)
        for column, table in columns:
            row[column] = table[row[column]]
        out.append(row)
    return out


def pack_changes(data):
    """changes.json with its columns of few distinct values (machine, flavor, releases,
    graph parameters, state...) as tables (pack_columns)."""
    rows, tables = pack_columns(data["fields"], data["changes"])
    return dict(data, changes=rows, tables=tables)


def unpack_changes(packed):
    rows = unpack_columns(packed["fields"], packed["changes"], packed["tables"])
    return {k: v for k, v in dict(packed, changes=rows).items() if k != "tables"}


def row_pretty_name(bench, name, idx):
    """asv's pretty_name of a list-view row (asv/plugins/summarylist.py): the benchmark's
    name (or pretty_name) with the values of parameter combination `idx` (the last parameter
    varying fastest)."""
    pretty = bench.get("pretty_name") or name
    if idx is None:
        return pretty
    combo = []
    for values in reversed(bench["params"]):
        combo.append(values[idx % len(values)])
        idx //= len(values)
    return "%s(%s)" % (pretty, ", ".join(reversed(combo)))


def pack_table(objects, benchmarks):
    """A list of objects (the list view's table) as {"mxbench_fields", "rows", "tables"};
    a pretty_name that row_pretty_name gives from index.json's `benchmarks` as null."""
    fields = []
    for row in objects:
        fields += [k for k in row if k not in fields]
    rows = []
    for row in objects:
        bench = benchmarks.get(row.get("name"))
        derived = (row_pretty_name(bench, row["name"], row.get("idx"))
                   if bench is not None else None)
        rows.append([None if k == "pretty_name" and row[k] == derived else row.get(k)
                     for k in fields])
    rows, tables = pack_columns(fields, rows)
    return {"mxbench_fields": fields, "rows": rows, "tables": tables}


def unpack_table(packed, benchmarks):
    fields = packed["mxbench_fields"]
    objects = [dict(zip(fields, row))
               for row in unpack_columns(fields, packed["rows"], packed["tables"])]
    for row in objects:
        if "pretty_name" in row and row["pretty_name"] is None:
            row["pretty_name"] = row_pretty_name(benchmarks[row["name"]], row["name"],
                                                 row.get("idx"))
    return objects


def is_list_table(path):
    parts = path.split("/")
    return parts[0] == GRAPHS and len(parts) > 3 and parts[-1] == "summary.json"


def pack(path, data, index):
    """A site file as its script holds it (`index`: the site's index.json)."""
    if path == "index.json":
        return pack_index(data)
    if path == CHANGES_FILE:
        return pack_changes(data)
    if is_list_table(path) and isinstance(data, list):
        return pack_table(data, index["benchmarks"])
    return data


def unpack(path, data, index=None):
    """A site file from its script, as asv (or change_data.py) wrote it; the same as
    overlay.js's unpack (`index`: the site's index.json, unpacked; a list-view table needs it)."""
    if path == "index.json":
        return unpack_index(data)
    if path == CHANGES_FILE:
        return unpack_changes(data)
    if is_list_table(path):
        return unpack_table(data, index["benchmarks"])
    return data


# --- writing and reading the scripts ------------------------------------------------------------
def js_value(value):
    """JSON as a JavaScript expression (ASCII only, so valid in any script encoding)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


def write_script(html_dir, bundle, content):
    """FILE_DATA/<bundle>.js with `content` ({path: packed data}); returns its size."""
    text = ("/* python -m mxbench publish: %d file(s) of this site (mxbench/site/file_data.py; "
            "site-sources/overlay/overlay.js reads them) */\nmxbenchFileData(%s);\n"
            % (len(content), js_value(content)))
    target = os.path.join(html_dir, FILE_DATA, bundle + ".js")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="ascii") as fh:
        fh.write(text)
    return len(text)


def read_script(path):
    """{path: packed data} of one file-data script."""
    with open(path, encoding="ascii") as fh:
        found = SCRIPT_RE.search(fh.read())
    if found is None:
        raise ValueError("%s is not a file-data script" % path)
    return json.loads(found.group(1))


def script_path(html_dir, bundle):
    return os.path.join(html_dir, FILE_DATA, bundle + ".js")


# The last site's index.json, unpacked, with its benchmarks' positions, while the file it was
# read from is unchanged: a summary graph and a list table are placed by it, and a reader of
# every benchmark's asks for it thousands of times. Read here only (bundle_of, unpack), never
# handed out.
_INDEX = {}


def site_index(html_dir):
    """(index.json of the site in html_dir, benchmark_positions of it), or (None, None) where
    it has none; read once while its file (the JSON, or the script that holds it) is
    unchanged."""
    source = os.path.join(html_dir, "index.json")
    if not os.path.isfile(source):
        source = script_path(html_dir, bundle_of("index.json", None))
    stamp = file_stamp(source)
    if stamp is None:
        return None, None
    if _INDEX.get("key") != (source, stamp):
        index = read_site_json(html_dir, "index.json")
        _INDEX.update(key=(source, stamp), index=index,
                      positions=index and benchmark_positions(index))
    return _INDEX["index"], _INDEX["positions"]


def read_site_json(html_dir, path):
    """A file of a published site (index.json, changes.json, graphs/...json) as asv or
    mxbench wrote it: from html_dir/<path> where it is still there, else from its script.
    None where the site has no such file."""
    full = os.path.join(html_dir, path)
    if os.path.isfile(full):
        with open(full, encoding="utf-8") as fh:
            return json.load(fh)
    index = positions = None
    if path.startswith(GRAPHS + "/summary/") or is_list_table(path):
        index, positions = site_index(html_dir)
    bundle = bundle_of(path, positions)
    script = script_path(html_dir, bundle) if bundle else None
    if script is None or not os.path.isfile(script):
        return None
    content = read_script(script)
    return unpack(path, content[path], index) if path in content else None


def benchmark_entry(html_dir, name):
    """{"code", "view"} of a benchmark, from its graph script (None: no script)."""
    script = script_path(html_dir, "graphs/" + name)
    if not os.path.isfile(script):
        return None
    return read_script(script).get(BENCHMARK_ENTRY + name)


def has_json(html_dir):
    """Whether html_dir still holds asv's JSON (a site just published, or an older one)."""
    return os.path.isfile(os.path.join(html_dir, "index.json"))


def drop_json(html_dir):
    """Delete the JSON files and graphs/ the scripts replace; returns how many files went."""
    gone = 0
    for name in TOP_FILES:
        path = os.path.join(html_dir, name)
        if os.path.isfile(path):
            os.remove(path)
            gone += 1
    graphs = os.path.join(html_dir, GRAPHS)
    if os.path.isdir(graphs):
        gone += sum(len(names) for _, _, names in os.walk(graphs))
        shutil.rmtree(graphs)
    return gone
