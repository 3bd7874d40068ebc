"""Every page mxbench adds to the published site, and the front page's links to them.

    models.html     the model report (mxbench.reports.models) of the newest recorded release
    baselines.html  MXNet against PyTorch and NumPy (mxbench.reports.baselines), + its CSV
    cliffs.html     the performance cliffs the search found and where each holds
                    (mxbench.reports.cliffs)

The reports print Markdown; render_markdown turns that (headings, tables, paragraphs) into
HTML. The links go into asv's navigation bar (add_nav_links), not over the graphs.
"""
import contextlib
import html
import io
import math
import os
import re

from env_matrix.matrix import MatrixError

from mxbench.core import project as project_model
from mxbench.core.formatting import ratio_text, seconds_text

MODELS_PAGE = "models.html"
BASELINES_PAGE = "baselines.html"
BASELINES_CSV = "baselines.csv"
CLIFFS_PAGE = "cliffs.html"
STYLE = ("body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;"
         "margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}"
         "td.num{text-align:right}nav a{margin-right:1.5em}.bar{display:inline-block;height:10px}"
         ".slow{background:#d62728}.fast{background:#2ca02c}")
# The pages in asv's navigation bar: (page, title), after asv's own entries.
NAV_BEGIN = "<!-- mxbench publish pages -->"
NAV_END = "<!-- /mxbench publish pages -->"
NAV_ANCHOR = '<li id="nav-li-regressions">'


# --- Markdown (the reports' output) -> HTML ------------------------------------------------------
def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_number(text):
    return re.match(r"^[-+]?[0-9.]+%?$", text) is not None


def render_markdown(text):
    """HTML of the Markdown the reports print: # headings, GitHub tables, paragraphs."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")) + 1, 6)  # the page's h1 is its title
            out.append("<h%d>%s</h%d>" % (level, html.escape(line.lstrip("#").strip()), level))
            i += 1
        elif line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-|: ]+\|$",
                                                                       lines[i + 1].strip()):
            rows = ["<tr>%s</tr>" % "".join("<th>%s</th>" % html.escape(c)
                                            for c in _cells(line))]
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append("<tr>%s</tr>" % "".join(
                    "<td%s>%s</td>" % (' class="num"' if _is_number(c) else "", html.escape(c))
                    for c in _cells(lines[i])))
                i += 1
            out.append("<table>\n%s\n</table>" % "\n".join(rows))
        else:
            paragraph = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|")):
                paragraph.append(lines[i].strip())
                i += 1
            out.append("<p>%s</p>" % html.escape(" ".join(paragraph)))
    return "\n".join(out)


def page(title, body):
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title><style>%s"
            "</style></head><body>\n<nav><a href=\"index.html\">Benchmark grid</a><a href=\""
            "%s\">Models</a><a href=\"%s\">MXNet vs PyTorch and NumPy</a></nav>\n<h1>%s</h1>\n"
            "%s\n</body></html>\n" % (html.escape(title), STYLE, MODELS_PAGE, BASELINES_PAGE,
                                      html.escape(title), body))


def graph_link(benchmark, text=None):
    """A link to one benchmark's graph page of the site."""
    return '<a href="index.html#%s">%s</a>' % (html.escape(benchmark, quote=True),
                                              html.escape(text or benchmark))


# --- models.html -------------------------------------------------------------------------------
def write_models_page(config, html_dir, log=print):
    """<html_dir>/models.html: the report for the newest release recorded with the model
    benchmarks, per CPU flavor, against the one recorded before it. Returns its path."""
    from mxbench.reports import models
    project = project_model.load(config)
    data = models.M.load_data()
    sections = []
    for machine in project.store.machines():
        for flavor in project.flavors:
            try:
                releases = models.recorded_releases(project, machine, flavor)
            except MatrixError:  # a config without the default environments (variants)
                continue
            if not releases:
                continue
            text = io.StringIO()
            with contextlib.redirect_stdout(text):
                models.print_report(project, machine, data, releases[-1], flavor,
                                    releases[-2] if len(releases) > 1 else None)
                print("\nrecorded: %s" % ", ".join(releases))
            sections.append(render_markdown(text.getvalue()))
    graphs = ", ".join(graph_link("bench_models.Model_%s.time_forward" % name, name)
                       for name in sorted(data["models"]))
    body = ("<p>Each model's predicted time (the sum of its layers' benchmarks, count x time) "
            "against its measured end-to-end time, and which layers account for a change "
            "between releases (docs/models.md). Written by <code>python -m mxbench publish"
            "</code> from <code>python -m mxbench models report</code>. The graphs of the "
            "models' end-to-end benchmarks: %s.</p>\n%s"
            % (graphs, "\n".join(sections) or
               "<p>No model benchmarks are recorded yet (make models).</p>"))
    path = os.path.join(html_dir, MODELS_PAGE)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page("Model-derived benchmarks: layers against end to end", body))
    log("models page: %s (%d report(s))" % (path, len(sections)))
    return path


# --- baselines.html ----------------------------------------------------------------------------
def render_baselines(rows, versions, top=10):
    """baselines.html: the summary, and every point with a bar of its log ratio (a chart that
    needs no script) and a link to its graph (MXNet's line and the counterparts' side by
    side, in the site's own grid); the CSV beside it for other charts."""
    from mxbench.reports import baselines
    summary = baselines.summarize(rows, top)
    parts = ["<p>Ratio = MXNet time / counterpart time, measured in the same process on the "
             "same input arrays with the same thread count (above 1, red: MXNet is slower; "
             "below 1, green: MXNet is faster). <a href='%s'>Every point as CSV</a>; each "
             "point links to its graph. How: docs/baselines.md.</p>" % BASELINES_CSV,
             "<h2>Summary</h2>",
             "<table><tr><th>flavor</th><th>release</th><th>versus</th><th>timing</th>"
             "<th>points</th><th>MXNet faster</th><th>counterpart faster</th>"
             "<th>geometric mean ratio</th></tr>"]
    for s in summary:
        version = versions.get((s["flavor"], s["release"]), {}).get(s["versus"], "")
        cells = [s["flavor"], s["release"], "%s %s" % (s["versus"], version), s["timing"],
                 s["points"], s["mxnet_faster"], s["counterpart_faster"],
                 ratio_text(s["geomean_ratio"])]
        parts.append("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(str(c))
                                             for c in cells))
    parts.append("</table><h2>Every point</h2><table><tr><th>flavor</th><th>release</th>"
                 "<th>operator timing shape dtype</th><th>MXNet</th><th>torch</th>"
                 "<th>MXNet/torch</th><th>numpy</th><th>MXNet/numpy</th></tr>")
    methods = dict((label, method) for method, label in baselines.TIMINGS.items())
    for row in rows:
        name = "%s%s.%s" % (baselines.MODULE, row.operator, methods[row.timing])
        cells = [html.escape(row.flavor), html.escape(row.release),
                 graph_link(name, "%s %s %s %s" % (row.operator, row.timing, row.shape_class,
                                                   row.dtype)),
                 html.escape(seconds_text(row.mxnet))]
        for framework in baselines.COUNTERPARTS:
            r = baselines.ratio(row, framework)
            bar = ""
            if r is not None:
                bar = "<span class='bar %s' style='width:%dpx'></span> " % (
                    "slow" if r > 1 else "fast", min(120, int(abs(math.log(r, 2)) * 20)))
            cells += [html.escape(seconds_text(getattr(row, framework))),
                      bar + ratio_text(r)]
        parts.append("<tr>%s</tr>" % "".join("<td>%s</td>" % c for c in cells))
    parts.append("</table>")
    return page("Neutral baselines: MXNet against PyTorch and NumPy", "\n".join(parts))


def write_baselines_page(baselines_config, html_dir, log=print):
    """<html_dir>/baselines.html and baselines.csv from the baselines' results."""
    from mxbench.reports import baselines
    rows, versions = baselines.collect(baselines_config)
    with open(os.path.join(html_dir, BASELINES_PAGE), "w", encoding="utf-8") as fh:
        fh.write(render_baselines(rows, versions))
    with open(os.path.join(html_dir, BASELINES_CSV), "w", encoding="utf-8") as fh:
        fh.write(baselines.render_csv(rows))
    log("baselines page: %s and %s (%d points)" % (BASELINES_PAGE, BASELINES_CSV, len(rows)))
    return len(rows)


# --- cliffs.html ---------------------------------------------------------------------------------
def write_cliffs_page(config, html_dir, log=print, search_dir=None, cliffs_file=None):
    """<html_dir>/cliffs.html: the cliff report (searched entries, confirmed cliffs, the
    releases where each holds) from the search logs, cliffs.json and the recorded points."""
    from benchmarks.catalogue.cliffs import CLIFFS_FILE, read_cliffs
    from mxbench.reports import cliffs
    project = project_model.load(config)
    logs = cliffs.read_logs(search_dir or os.path.join(project_model.ROOT, cliffs.SEARCH_DIR))
    found = read_cliffs(cliffs_file or CLIFFS_FILE)
    text = cliffs.report(logs, found, *cliffs.recorded_points(project))
    body = render_markdown("\n".join(text.splitlines()[1:]))  # the page's h1 is its title
    path = os.path.join(html_dir, CLIFFS_PAGE)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page("Performance cliffs", body))
    log("cliffs page: %s (%d entries searched, %d cliffs)" % (path, len(logs), len(found)))
    return path


# --- the front page's links --------------------------------------------------------------------
def nav_links(pages):
    """asv's navigation bar entries of the pages [(file, title)]."""
    return "".join('<li id="nav-li-mxbench-%s"><a href="%s">%s</a></li>'
                   % (os.path.splitext(name)[0], name, html.escape(title))
                   for name, title in pages)


def add_nav_links(html_dir, pages):
    """The pages [(file, title)] in index.html's navigation bar, after asv's Regressions
    (an earlier copy of the links, and the old fixed box, removed first)."""
    path = os.path.join(html_dir, "index.html")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    text = re.sub(r"%s.*?%s" % (re.escape(NAV_BEGIN), re.escape(NAV_END)), "", text, flags=re.S)
    text = re.sub(r'<div id="mxbench-baselines-link".*?</div></div>\n?', "", text, flags=re.S)
    at = text.find(NAV_ANCHOR)
    if pages and at >= 0:
        end = text.index("</li>", at) + len("</li>")
        text = text[:end] + NAV_BEGIN + nav_links(pages) + NAV_END + text[end:]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return at >= 0
