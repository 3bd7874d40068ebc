"""Every page mxbench adds to the published site, and the front page's links to them.

    models.html     the model report (mxbench.reports.models) of the newest recorded release
    changes.html    generated-reports/CHANGES.md (python -m mxbench changes releases) and its chart
    coverage.html   the operator coverage report (mxbench.reports.coverage) of the tool
                    environment's MXNet
    baselines.html  MXNet against PyTorch and NumPy (mxbench.reports.baselines), + its CSV
    cliffs.html     the performance cliffs the search found and where each holds
                    (mxbench.reports.cliffs)

The reports print Markdown; render_markdown turns that (headings, tables, lists, paragraphs,
`code`, **bold**, [links](url)) into HTML. The links go into asv's navigation bar
(add_nav_links), not over the graphs, and into each page's own bar.
"""
import contextlib
import html
import io
import math
import os
import re
import shutil

from env_matrix.matrix import MatrixError

from mxbench.core.project import ROOT, load as load_project
from mxbench.core.formatting import ratio_text, seconds_text
from mxbench.site import change_data, page_tidy
from mxbench.site.page_tidy import graph_link

MODELS_PAGE = "models.html"
CHANGES_PAGE = "changes.html"
COVERAGE_PAGE = "coverage.html"
BASELINES_PAGE = "baselines.html"
BASELINES_CSV = "baselines.csv"
CLIFFS_PAGE = "cliffs.html"
# The release changes report and its chart, in the project's generated-reports/ (README: python -m
# mxbench changes releases -o generated-reports/CHANGES.md --chart generated-reports/changes.png).
CHANGES_REPORT = os.path.join("generated-reports", "CHANGES.md")
CHANGES_CHART = os.path.join("generated-reports", "changes.png")
# The pages' links, in every page's bar and asv's (the grid's: index.html): (page, title).
PAGE_LINKS = (("index.html", "Benchmark grid"), (MODELS_PAGE, "Models"),
              (CHANGES_PAGE, "Release changes"), (COVERAGE_PAGE, "Coverage"),
              (CLIFFS_PAGE, "Cliffs"), (BASELINES_PAGE, "Baselines"))


def links_to(names):
    """[(page, title)] of these pages, in the bar's order."""
    return [(name, title) for name, title in PAGE_LINKS if name in names]
STYLE = ("body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;"
         "margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}"
         "td.num{text-align:right}nav a{margin-right:1.5em}.bar{display:inline-block;height:10px}"
         ".slow{background:#d62728}.fast{background:#2ca02c}img{max-width:100%}"
         "code{font-size:12px}.contents ul{columns:3;font-size:13px}.contents li.level-3"
         "{margin-left:1.2em}")
# The pages in asv's navigation bar: (page, title), after asv's own entries.
NAV_BEGIN = "<!-- mxbench publish pages -->"
NAV_END = "<!-- /mxbench publish pages -->"
NAV_ANCHOR = '<li id="nav-li-regressions">'


# --- Markdown (the reports' output) -> HTML ------------------------------------------------------
def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_number(text):
    return re.match(r"^[-+]?[0-9.]+%?$", text) is not None


INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|\[([^\]]+)\]\(([^)\s]+)\)")


def render_inline(text):
    """HTML of one line's text: `code`, **bold** and [text](url), the rest escaped."""
    out, at = [], 0
    for found in INLINE.finditer(text):
        out.append(html.escape(text[at:found.start()]))
        code, bold, label, url = found.groups()
        if code is not None:
            out.append("<code>%s</code>" % html.escape(code))
        elif bold is not None:
            out.append("<strong>%s</strong>" % render_inline(bold))
        elif safe_url(url):
            out.append('<a href="%s">%s</a>' % (html.escape(url, quote=True),
                                                render_inline(label)))
        else:  # javascript:, data: ...: the label as text, the address shown, not followed
            out.append("%s (%s)" % (render_inline(label), html.escape(url)))
        at = found.end()
    return "".join(out) + html.escape(text[at:])


SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


def safe_url(url):
    """May a generated page link to `url`? http(s), or relative (a path, `#...`, `?...`);
    a control character is refused (browsers drop them, `java\tscript:` runs)."""
    if any(ord(c) < 0x20 or ord(c) == 0x7f for c in url):
        return False
    scheme = SCHEME.match(url.strip())
    return scheme is None or scheme.group(1).lower() in ("http", "https")


LIST_ITEM = re.compile(r"^\s*[-*] ")
TABLE_RULE = re.compile(r"^\|[-|: ]+\|$")


def render_markdown(text, shift=1):
    """HTML of the Markdown the reports print: # headings (one level lower by `shift`: the
    page's h1 is its title), GitHub tables (a column aligned right where its rule says ---:
    or its cell is a number), - lists, paragraphs."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")) + shift, 6)
            out.append("<h%d>%s</h%d>" % (level, render_inline(line.lstrip("#").strip()), level))
            i += 1
        elif line.startswith("|") and i + 1 < len(lines) and TABLE_RULE.match(lines[i + 1].strip()):
            right = [c.endswith(":") for c in _cells(lines[i + 1])]
            rows = ["<tr>%s</tr>" % "".join("<th>%s</th>" % render_inline(c)
                                            for c in _cells(line))]
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                cells = _cells(lines[i])
                rows.append("<tr>%s</tr>" % "".join(
                    "<td%s>%s</td>" % (' class="num"' if (n < len(right) and right[n])
                                       or _is_number(c) else "", render_inline(c))
                    for n, c in enumerate(cells)))
                i += 1
            out.append("<table>\n%s\n</table>" % "\n".join(rows))
        elif LIST_ITEM.match(line):
            items = []
            while i < len(lines) and LIST_ITEM.match(lines[i]):
                items.append("<li>%s</li>" % render_inline(LIST_ITEM.sub("", lines[i]).strip()))
                i += 1
            out.append("<ul>\n%s\n</ul>" % "\n".join(items))
        else:
            paragraph = []
            while (i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|"))
                   and not LIST_ITEM.match(lines[i])):
                paragraph.append(lines[i].strip())
                i += 1
            out.append("<p>%s</p>" % render_inline(" ".join(paragraph)))
    return "\n".join(out)


# asv's own pages, in each report page's bar after the grid (asv's bar has them already).
ASV_PAGE_LINKS = (("index.html#summarylist", "Benchmark list"),
                  ("index.html#regressions", "Regressions"))


# The about block (site-sources/overlay/overlay.js, section 11): the machines, flavors, the build.
ABOUT_LINK = ("index.html#about", "About")


def bar_links():
    """[(address, title)] of every page of the site, in each report page's bar."""
    return list(PAGE_LINKS[:1]) + list(ASV_PAGE_LINKS) + list(PAGE_LINKS[1:]) + [ABOUT_LINK]


MICROSECONDS = re.compile(r"(?<=[0-9])us\b")


def micro_sign(text):
    """The reports' '51.8us' as asv's pages and the overlay write it: '51.8µs'."""
    return MICROSECONDS.sub("\u00b5s", text)


def bar(links):
    return "<nav>%s</nav>" % "".join('<a href="%s">%s</a>' % (name, html.escape(text))
                                     for name, text in links)


def page(title, body):
    nav = bar(bar_links())[len("<nav>"):-len("</nav>")]
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title><style>%s"
            "</style></head><body>\n<nav>%s</nav>\n<h1>%s</h1>\n%s\n</body></html>\n"
            % (html.escape(title), STYLE, nav, html.escape(title), tidy_body(body)))


def tidy_body(body):
    """A report page's body as the site shows it: µs, no link a visitor cannot follow, anchors
    and a contents list on a long page (page_tidy)."""
    return page_tidy.add_contents(page_tidy.repository_links(micro_sign(body),
                                                             page_tidy.repository_url()))


# A benchmark point as the reports name it, rendered: <code>bench_x.Class.method(...)</code>
BENCHMARK_CODE = re.compile(r"<code>(bench_\w+\.\w+\.\w+)(\([^<]*\))?</code>")


# --- models.html -------------------------------------------------------------------------------
def write_models_page(config, html_dir, log=print):
    """<html_dir>/models.html: the report for the newest release recorded with the model
    benchmarks, per CPU flavor, against the one recorded before it. Returns its path."""
    from mxbench.core.lazy import models as model_code  # benchmarks/_models.py
    from mxbench.reports import models
    project = load_project(config)
    data = model_code.load_data()
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
    path = write_page(html_dir, MODELS_PAGE,
                      "Model-derived benchmarks: layers against end to end", body)
    log("models page: %s (%d report(s))" % (path, len(sections)))
    return path


def write_page(html_dir, name, title, body):
    path = os.path.join(html_dir, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page(title, body))
    return path


# --- changes.html ------------------------------------------------------------------------------
def write_changes_page(config, html_dir, log=print):
    """<html_dir>/changes.html: the project's generated-reports/CHANGES.md as HTML, its chart
    (generated-reports/changes.png) above it. Returns its path."""
    root = os.path.dirname(os.path.abspath(config))
    report, chart = os.path.join(root, CHANGES_REPORT), os.path.join(root, CHANGES_CHART)
    body = []
    if os.path.isfile(chart):
        shutil.copyfile(chart, os.path.join(html_dir, os.path.basename(chart)))
        body.append('<p><img src="%s" alt="The largest changes between releases"></p>'
                    % os.path.basename(chart))
    if os.path.isfile(report):
        with open(report, encoding="utf-8") as fh:
            text = fh.read()
        # the report's own title is the page's; each benchmark named links to its graph
        text = render_markdown(re.sub(r"\A# [^\n]*\n", "", text), shift=0)
        text = BENCHMARK_CODE.sub(
            lambda found: graph_link(html.unescape(found.group(1)), html.unescape(
                found.group(0)[len("<code>"):-len("</code>")]), code=True), text)
        machine = re.search(r"machine `([^`]+)`", open(report, encoding="utf-8").read())
        body.append(change_data.link_change_rows(text, machine and machine.group(1)))
    else:
        body.append("<p>No report yet: <code>python -m mxbench changes releases -o %s --chart "
                    "%s</code> writes it from the results.</p>"
                    % (CHANGES_REPORT, CHANGES_CHART))
    path = write_page(html_dir, CHANGES_PAGE, "What changed between MXNet releases",
                      "\n".join(body))
    log("changes page: %s (%s)" % (path, report if os.path.isfile(report) else "no report"))
    return path


# --- coverage.html -----------------------------------------------------------------------------
def write_coverage_page(html_dir, log=print):
    """<html_dir>/coverage.html: which registered MXNet operators the catalogue benchmarks,
    by the MXNet of this (the tool) environment. Returns its path."""
    from mxbench.inside.registry import Registry
    from mxbench.reports import coverage
    try:
        text = render_markdown(coverage.format_markdown(coverage.coverage(Registry()), "all"))
    except ImportError as exc:  # a tool environment without MXNet: the page says so
        text = "<p>Not available: mxnet does not import here (%s).</p>" % html.escape(str(exc))
    # each catalogue entry named in the detail column links to its graph
    text = page_tidy.link_entries_in_cells(text, page_tidy.site_benchmarks(html_dir), 2)
    body = ("<p>The operators MXNet registers against the catalogue's entries "
            "(<code>python -m mxbench coverage --format markdown</code>; docs/catalogue.md): "
            "covered by an entry, through an alias, excluded with the reason, or missing. "
            "Each entry's graphs are in the <a href=\"index.html\">benchmark grid</a>.</p>\n"
            + text)
    path = write_page(html_dir, COVERAGE_PAGE, "Operator coverage", body)
    log("coverage page: %s" % path)
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
             "<th>geometric mean ratio</th><th>checked against</th></tr>"]
    for s in summary:
        version = versions.get((s["flavor"], s["release"]), {}).get(s["versus"], "")
        cells = [s["flavor"], s["release"], "%s %s" % (s["versus"], version), s["timing"],
                 s["points"], s["mxnet_faster"], s["counterpart_faster"],
                 ratio_text(s["geomean_ratio"]),
                 baselines.checked_text(versions, s["flavor"], s["release"])]
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
    from mxbench.core.cliff_rule import SEARCH_DIR
    from mxbench.reports import cliffs
    project = load_project(config)
    logs = cliffs.read_logs(search_dir or os.path.join(ROOT, SEARCH_DIR))
    found = read_cliffs(cliffs_file or CLIFFS_FILE)
    text = cliffs.report(logs, found, *cliffs.recorded_points(project))
    body = render_markdown("\n".join(text.splitlines()[1:]))  # the page's h1 is its title
    body = page_tidy.link_entries_in_cells(body, page_tidy.site_benchmarks(html_dir), 0,
                                           ("bench_cliffs", "bench_operators"))
    path = write_page(html_dir, CLIFFS_PAGE, "Performance cliffs", body)
    log("cliffs page: %s (%d entries searched, %d cliffs)" % (path, len(logs), len(found)))
    return path


# --- the front page's links --------------------------------------------------------------------
def nav_links(pages):
    """asv's navigation bar entries of the pages [(file, title)]."""
    return "".join('<li id="nav-li-mxbench-%s"><a href="%s">%s</a></li>'
                   % (os.path.splitext(name.split("#")[-1])[0], name, html.escape(title))
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
        links = nav_links(list(pages) + [ABOUT_LINK])
        text = text[:end] + NAV_BEGIN + links + NAV_END + text[end:]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    written = [name for name, _ in pages]
    for name in written:
        trim_bar(os.path.join(html_dir, name), written)
    return at >= 0


def trim_bar(path, written):
    """A report page's bar with only the pages this site has (`written`; a site without
    recorded baselines has no baselines.html to link to)."""
    if not os.path.isfile(path):
        return
    mine = {name for name, _ in PAGE_LINKS[1:]}
    links = [(n, t) for n, t in bar_links() if n not in mine or n in written]
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    new = re.sub(r"<nav>.*?</nav>", lambda found: bar(links), text, count=1, flags=re.S)
    if new != text:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(new)
