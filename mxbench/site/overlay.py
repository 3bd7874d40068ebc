"""mxbench's overlay on asv's pages: <html_dir>/mxbench/ (site-sources/overlay/ holds its JS and CSS).

- the site's data: every JSON file asv's pages fetch is written as a script,
  mxbench/file-data/*.js (file_data.py), which overlay.js answers asv's requests from, over
  HTTP and from disk (browsers refuse JSON requests there); the JSON files are then dropped;
- default views: in each benchmark's graph script, a benchmark page's selection when its
  address has none
  (the machine with the most results, one A/B variant, only parameter values with data, at most
  MAX_DEFAULT_SERIES series, a log scale where the values drawn span LOG_SCALE_SPAN), set
  through asv's own address parameters;
- mxbench/about.js (about.py: the about block, the history's machine) and mxbench/noise.js
  (generated-reports/noise/: each point's noise, the graphs' bands);
- the overlay's tags in index.html, between OVERLAY_BEGIN and OVERLAY_END.
"""
import collections
import itertools
import json
import math
import os
import re
import shutil
import time

from mxbench.core.project import ROOT
from mxbench.site import SITE_DIR, PublishError, about, change_data, file_data
from mxbench.site.about import ABOUT_SCRIPT

OVERLAY = "mxbench"
OVERLAY_FILES = ("overlay.js", "overlay.css")
FILE_DATA = file_data.FILE_DATA
OVERLAY_BEGIN = "<!-- mxbench publish overlay (site-sources/overlay/) -->"
OVERLAY_END = "<!-- /mxbench publish overlay -->"
# The markers' earlier spellings (the overlay's sources were in site/ before
# site-sources/), removed too when a site is localized again.
OLD_MARKERS = (("<!-- mxbench publish overlay (site/overlay/) -->", OVERLAY_END),
               ("<!-- mxbench.publish overlay (site/overlay/) -->",
                "<!-- /mxbench.publish overlay -->"))
# A benchmark page's default view: at most this many series (legend entries) where the
# benchmark allows it (asv's own default is up to 8 per machine and environment, and every
# machine and environment at once).
MAX_DEFAULT_SERIES = 8
# Generic parameters of which the default view selects one value, the one with the most
# results: which machine, and which A/B variant (asv.variants.conf.json) measured. The others
# (flavor, Python) are the history's own coordinates: all values with data are selected.
ONE_VALUE_PARAMS = ("machine", "env-MXBENCH_VARIANT")
# A default view whose values span at least this factor (largest / smallest drawn) opens on
# asv's log scale: on a linear axis a line below a tenth of the largest value is a flat line
# near the bottom (a small shape under a medium one, a release 25x faster).
LOG_SCALE_SPAN = 10.0


def _has_value(value):
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _measured(data, params):
    """(number of measured points, per parameter axis the set of value indices measured) of
    one asv graph file: [[revision, value], ...], value a list over the product of the
    benchmark's parameters (the last one varying fastest) or one number."""
    count, seen = 0, [set() for _ in params]
    combos = list(itertools.product(*[range(len(p)) for p in params])) if params else None
    for point in data or ():
        value = point[1] if len(point) > 1 else None
        if params:
            if not isinstance(value, list):
                continue
            for combo, item in zip(combos, value):
                if _has_value(item):
                    count += 1
                    for axis, index in enumerate(combo):
                        seen[axis].add(index)
        elif _has_value(value):
            count += 1
    return count, seen


def default_view(benchmark, index, graph_data, max_series=MAX_DEFAULT_SERIES, prefer=None):
    """The default selection of a benchmark page, as asv's address parameters ({key: [values]},
    in order), or None when nothing was measured.

    benchmark: index.json's entry; graph_data(params) -> the graph file's data of one entry of
    index.json's graph_param_list (None: no such file). Rules: the machine `prefer` (the
    history's) where it has a measured point, else the one with the most; then of the other
    ONE_VALUE_PARAMS the value with the most points; of the other
    generic parameters the values with measured points, where that leaves any out; of the
    benchmark's parameters the values with measured points there (device='gpu' goes where no
    GPU point has a value), then, while the series exceed max_series, the last value of the
    parameter with the most values (the first ones are the catalogue's primary cases) is left
    out. Ties go to the value listed first in index.json.
    """
    params = benchmark.get("params") or []
    names = benchmark.get("param_names") or []
    files = []
    for graph_params in index["graph_param_list"]:
        data = graph_data(graph_params)
        if data is not None:
            files.append((graph_params,) + _measured(data, params))
    if not any(count for _, count, _ in files):
        return None

    view = collections.OrderedDict()
    chosen = files
    for key in ONE_VALUE_PARAMS:
        values = index["params"].get(key)
        if values is None:
            continue
        totals = collections.OrderedDict((value, 0) for value in values)
        for graph_params, count, _ in chosen:
            totals[graph_params.get(key)] = totals.get(graph_params.get(key), 0) + count
        best = max(totals, key=lambda value: totals[value])  # the first of equals
        if key == "machine" and totals.get(prefer):
            best = prefer
        chosen = [f for f in chosen if f[0].get(key) == best]
        if key == "machine" or len(values) > 1:
            view[key] = [best]
    measured = [f for f in chosen if f[1]]
    for key, values in index["params"].items():
        if key in ONE_VALUE_PARAMS or key == "branch" or len(values) < 2:
            continue
        present = {f[0].get(key) for f in chosen}
        kept = {f[0].get(key) for f in measured}
        if kept < present:
            view[key] = [value for value in values if value in kept]
            chosen = [f for f in chosen if f[0].get(key) in kept]

    selected = [sorted(set().union(*[f[2][axis] for f in measured]))
                for axis in range(len(params))]

    def series():
        n = len(chosen)
        for values in selected:
            n *= len(values)
        return n

    while series() > max_series and any(len(values) > 1 for values in selected):
        axis = max(range(len(selected)), key=lambda a: (len(selected[a]), a))
        selected[axis].pop()
    for axis, name in enumerate(names):
        view["p-" + name] = [params[axis][i] for i in selected[axis]]
    low, high = _drawn_range([graph_data(f[0]) for f in chosen], params, selected)
    if low and high / low >= LOG_SCALE_SPAN:
        view["y-axis-scale"] = ["log"]  # asv's own address parameter (its "log scale" button)
    return view


def _drawn_range(files, params, selected):
    """(smallest, largest) positive value of the graph files' points within the selected
    parameter values (one list of indices per axis); (None, None) when there is none."""
    combos = list(itertools.product(*[range(len(p)) for p in params])) if params else None
    keep = [all(combo[a] in selected[a] for a in range(len(params))) for combo in combos or ()]
    values = []
    for data in files:
        for point in data or ():
            value = point[1] if len(point) > 1 else None
            items = ([v for v, k in zip(value, keep) if k] if params and isinstance(value, list)
                     else [] if params else [value])
            values += [v for v in items if _has_value(v) and v > 0]
    return (min(values), max(values)) if values else (None, None)


def write_overlay_data(html_dir):
    """mxbench/file-data/*.js (every JSON file of the site, grouped and packed as file_data
    says, each benchmark's code and default view, on the history's machine where it has data
    (about.js), in its graph script) and mxbench/defaults.js (the benchmarks without data).
    Returns counts and sizes."""
    with open(os.path.join(html_dir, "index.json"), encoding="utf-8") as fh:
        index = json.load(fh)
    positions = file_data.benchmark_positions(index)
    bundles = collections.OrderedDict()
    history = write_about_data(html_dir)
    history_summaries(html_dir, index, history)
    summaries = set()
    for path, full in file_data.site_json_files(html_dir):
        bundle = file_data.bundle_of(path, positions)
        if bundle is not None:
            bundles.setdefault(bundle, []).append((path, full))
        if bundle and bundle.startswith("summaries/"):
            summaries.add(path)
    for name in index["benchmarks"]:  # its code, with or without graphs
        bundles.setdefault(file_data.bundle_of(file_data.BENCHMARK_ENTRY + name, positions), [])
    files = size = views = 0
    for bundle, members in bundles.items():
        content = collections.OrderedDict()
        for path, full in members:
            with open(full, encoding="utf-8") as fh:
                content[path] = file_data.pack(path, json.load(fh), index)
        name = bundle[len("graphs/"):]
        if bundle.startswith("graphs/") and name in index["benchmarks"]:
            entry = benchmark_entry(index, name, content, prefer=history)
            views += entry["view"] is not None
            content[file_data.BENCHMARK_ENTRY + name] = entry
        files += len(members)
        size += file_data.write_script(html_dir, bundle, content)
    # Benchmarks without a single measured value (no graphs/summary/<name>.json): the grid
    # leaves them out, so no section of it is a title over empty boxes.
    no_data = [name for name in sorted(index.get("benchmarks", {}))
               if "graphs/summary/%s.json" % name not in summaries]
    text = ("/* python -m mxbench publish: the benchmarks without data (the grid leaves them "
            "out); each benchmark's default view comes with its graph script "
            "(mxbench/site/overlay.py:default_view; site-sources/overlay/overlay.js applies it) */\n"
            "window.MXBENCH_NO_DATA = %s;\n"
            "window.MXBENCH_DEFAULTS = {};\n" % file_data.js_value(no_data))
    with open(os.path.join(html_dir, OVERLAY, "defaults.js"), "w", encoding="ascii") as fh:
        fh.write(text)
    return {"json_files": files, "scripts": len(bundles), "bytes": size,
            "default_views": views, "defaults_bytes": len(text)}


def benchmark_entry(index, name, content, prefer=None):
    """A benchmark's entry in its graph script: its code (asv shows it; index.json's copy is
    left out) and its default view, from the graph files of `content` (on machine `prefer`
    where it has data)."""
    from asv.graph import Graph

    def graph_data(graph_params):
        path = Graph.get_file_path(graph_params, name).replace(os.sep, "/") + ".json"
        return content.get(path)
    bench = index["benchmarks"][name]
    return {"code": bench.get("code"),
            "view": default_view(bench, index, graph_data, prefer=prefer)}


# --- the about block's data, the graphs' noise bands ----------------------------------------------
NOISE_SCRIPT = "noise.js"


def write_about_data(html_dir, root=ROOT):
    """mxbench/about.js (about.about_data: the machines, flavors, build time) and
    mxbench/noise.js (each noise table of generated-reports/noise/ whose machine is on the site: its
    flavor, Python and every point's noise). Returns the history's machine."""
    data = about.about_data(html_dir, root)
    on_site = {m["name"] for m in data["machines"]}
    noise = collections.OrderedDict()
    for machine, table in sorted(change_data.noise_tables(root).items()):
        if machine in on_site:
            noise[machine] = table
    for name, variable, value in ((ABOUT_SCRIPT, "MXBENCH_ABOUT", data),
                                  (NOISE_SCRIPT, "MXBENCH_NOISE", noise)):
        with open(os.path.join(html_dir, OVERLAY, name), "w", encoding="ascii") as fh:
            fh.write("/* python -m mxbench publish (mxbench/site/overlay.py:write_about_data; "
                     "site-sources/overlay/overlay.js shows it) */\nwindow.%s = %s;\n"
                     % (variable, file_data.js_value(value)))
    return data["history"]


def history_summaries(html_dir, index, machine):
    """The grid's little graphs (graphs/summary/<benchmark>.json) of the history's machine
    alone, asv's own summary (make_summary_graph) of its graph files, where it has any: asv's
    summed every machine's into one line. Returns how many were written."""
    from asv.graph import Graph, make_summary_graph
    from asv.util import sanitize_filename
    if machine is None:
        return 0
    own = [p for p in index["graph_param_list"] if p.get("machine") == machine]
    written = 0
    for name in sorted(index.get("benchmarks", {})):
        summary = os.path.join(html_dir, "graphs", "summary", sanitize_filename(name) + ".json")
        if not os.path.exists(summary):
            continue
        graphs = []
        for params in own:
            path = os.path.join(html_dir, Graph.get_file_path(params, name) + ".json")
            if os.path.exists(path):
                graph = Graph(name, params)
                with open(path, encoding="utf-8") as fh:
                    for point in json.load(fh):
                        graph.add_data_point(point[0], point[1])
                graphs.append(graph)
        graphs = [g for g in graphs if g.get_data()]
        if graphs:
            make_summary_graph(graphs).save(html_dir)
            written += 1
    return written


def inject_overlay(text):
    """index.html with the overlay's <link>/<script> tags before </head> (an earlier copy of
    them removed first, so that localizing a site twice gives the same page)."""
    for begin, end in ((OVERLAY_BEGIN, OVERLAY_END),) + OLD_MARKERS:
        text = re.sub(r"^[ \t]*%s.*?%s[ \t]*\n" % (re.escape(begin), re.escape(end)),
                      "", text, flags=re.S | re.M)
    end = text.lower().rfind("</head>")
    if end < 0:
        raise PublishError("the published index.html has no </head>: cannot add the overlay")
    line = text.rfind("\n", 0, end) + 1
    indent = re.match(r"[ \t]*", text[line:end]).group(0)
    block = "".join(indent + "  " + tag + "\n" for tag in (
        OVERLAY_BEGIN,
        '<link href="%s/overlay.css" rel="stylesheet" type="text/css"/>' % OVERLAY,
        '<script type="text/javascript" src="%s/defaults.js"></script>' % OVERLAY,
        '<script type="text/javascript" src="%s/%s"></script>' % (OVERLAY, ABOUT_SCRIPT),
        '<script type="text/javascript" src="%s/%s"></script>' % (OVERLAY, NOISE_SCRIPT),
        '<script type="text/javascript" src="%s/overlay.js"></script>' % OVERLAY,
        OVERLAY_END))
    return text[:line] + block + text[line:]


def add_overlay(html_dir, site_dir=SITE_DIR, log=print):
    """The overlay on a published site in html_dir: <html_dir>/mxbench/ and its tags in
    index.html. The data scripts are written from asv's JSON where html_dir has it (a site
    just published, or one published before the scripts replaced it), which is then dropped;
    a site without it keeps the scripts it has."""
    started = time.time()
    target = os.path.join(html_dir, OVERLAY)
    rebuild = file_data.has_json(html_dir)
    if not rebuild and not os.path.isfile(file_data.script_path(html_dir, "index")):
        raise PublishError("%s has neither index.json nor %s/index.js: no site data"
                           % (html_dir, FILE_DATA))
    if rebuild and os.path.isdir(target):
        shutil.rmtree(target)
    os.makedirs(target, exist_ok=True)
    for name in OVERLAY_FILES:
        source = os.path.join(site_dir, "overlay", name)
        if not os.path.isfile(source):
            raise PublishError("%s is missing (the site's overlay)" % source)
        shutil.copyfile(source, os.path.join(target, name))
    stats = write_overlay_data(html_dir) if rebuild else {}
    if rebuild:
        stats["dropped"] = file_data.drop_json(html_dir)
    index_html = os.path.join(html_dir, "index.html")
    with open(index_html, encoding="utf-8") as fh:
        text = fh.read()
    new = inject_overlay(text)
    if new != text:
        with open(index_html, "w", encoding="utf-8") as fh:
            fh.write(new)
    stats["seconds"] = round(time.time() - started, 1)
    if rebuild:
        log("overlay: %s/ (default views of %d benchmarks; %d JSON files as %d scripts in %s/, "
            "%.1f MB; the %d JSON files dropped; %.1f s)"
            % (OVERLAY, stats["default_views"], stats["json_files"], stats["scripts"],
               FILE_DATA, stats["bytes"] / 1e6, stats["dropped"], stats["seconds"]))
    else:
        log("overlay: %s/ (the site's data scripts in %s/ kept as they are)"
            % (OVERLAY, FILE_DATA))
    return stats
