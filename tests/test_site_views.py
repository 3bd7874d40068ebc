"""The site answers which release, how much, and is it real, on one page (issue 47): real
Chromium (tests/test_site.py's driver) on a site published into a temporary folder from a
slice of this repository's records, opened from disk.

The slice: every release of the history machine (results/, Python 3.11 and, for 1.2.x, 3.7;
both CPU flavors) for BatchNorm's forward timing and its instruction count; the archived
machine (results-archive/, first by name, as asv's list would open on it) for the same; the
confirmation run 1.5.1.post0..1.6.0, which confirmed BatchNorm forward's 3.92x; the project's
own generated-reports/ (CHANGES.md, its chart, the noise tables) beside the config.
"""
import datetime
import json
import re
import shutil
import subprocess
import sys
import types

import pytest

from tests.conftest import HISTORY_MACHINE, ROOT, AsvProject
from tests.test_site import (ARTIFACTS, PAGE_STATE, assert_all_from_disk, chromium,  # noqa: F401
                             file_url, log_position, missing, wait_for_plot)

from mxbench.site import SITE_DIR, file_data, page_tidy, pages, vendor

ARCHIVED = "amd-epyc-2cpu-24gb"
BENCH = "bench_operators.BatchNorm.time_forward"
COUNT_BENCH = "bench_instructions.BatchNorm.track_forward"
POINT = BENCH + "('medium', 'float32', 'cpu')"
PAIR = ("1.5.1.post0", "1.6.0")
VIEW_BENCHES = (BENCH, COUNT_BENCH)


def copy_machine(source, target, benchmarks):
    """Every result file of a machine folder, with only `benchmarks`, and its machine.json
    (a copy of a results folder cut down to a few benchmarks)."""
    target.mkdir(parents=True)
    shutil.copy(str(source / "machine.json"), str(target))
    for path in sorted(source.glob("*.json")):
        if path.name == "machine.json":
            continue
        data = json.loads(path.read_text())
        data["results"] = {b: r for b, r in data["results"].items() if b in benchmarks}
        (target / path.name).write_text(json.dumps(data))


def publish(project):
    """`python -m mxbench publish` of the project (npm, for the site's JavaScript, needed)."""
    if not shutil.which("npm") and not vendor.installed_matches_lock(SITE_DIR):
        missing("npm is not installed: `mxbench publish` needs it (apt-get install -y npm)")
    proc = subprocess.run([sys.executable, "-m", "mxbench", "--config", str(project.conf_path),
                           "publish"], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-5000:]
    return types.SimpleNamespace(html=project.html_dir, output=proc.stdout, tags=project.tags)


@pytest.fixture(scope="module")
def views_site(tmp_path_factory):
    project = AsvProject(tmp_path_factory.mktemp("views"))
    project.results_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(str(ROOT / "results" / "benchmarks.json"), str(project.results_dir))
    copy_machine(ROOT / "results" / HISTORY_MACHINE, project.results_dir / HISTORY_MACHINE,
                 VIEW_BENCHES)
    copy_machine(ROOT / "results-archive" / ARCHIVED, project.results_dir / ARCHIVED,
                 VIEW_BENCHES)
    pair = "%s..%s" % PAIR
    copy_machine(ROOT / "results-confirmations" / pair / HISTORY_MACHINE,
                 project.base / "results-confirmations" / pair / HISTORY_MACHINE, (BENCH,))
    shutil.copytree(str(ROOT / "generated-reports"), str(project.base / "generated-reports"))
    return publish(project)


ABOUT_ROWS = """$('#mxbench-about:visible tr[data-machine]').map(function(){
  var cells = $(this).children('td');
  return {machine: $(this).attr('data-machine'), role: $(this).attr('data-role'),
          what: cells.eq(1).text(), cpu: cells.eq(2).text(), cores: cells.eq(3).text(),
          memory: cells.eq(4).text()}}).get()"""


def recorded_cpu(folder, machine):
    """(the first CPU the machine's conditions log names, how many recordings name none),
    read here independently."""
    entries = [json.loads(line) for line in
               (ROOT / folder / machine / "conditions.jsonl").read_text().splitlines() if line]
    named = [e["cpu"] for e in entries if e.get("cpu")]
    return named[0], len(entries) - len(named)


def test_the_about_block_and_the_list_open_on_the_history(chromium, views_site):
    """The index page has the about block: each machine with its recorded CPU kind, cores,
    memory and role (the history's, the archived one), the build time, each flavor and why
    cpu-openblas stops after 1.8.0.post0; every page's bar reaches it; the benchmark list
    opens on the history's machine, not asv's first by name (the archived one)."""
    html, page = views_site.html, chromium
    since = log_position(page)
    page.goto(file_url(html))
    rows = page.wait_for("$('#mxbench-about:visible tr[data-machine]').length === 2 && "
                         + ABOUT_ROWS, "the about block on the index page")
    page.screenshot(ARTIFACTS / "site-views-index.png")
    by_machine = {r["machine"]: r for r in rows}
    assert sorted(by_machine) == sorted([ARCHIVED, HISTORY_MACHINE]), rows
    history, archived = by_machine[HISTORY_MACHINE], by_machine[ARCHIVED]
    assert history["role"] == "history" and "The graphs and the list open on it" in \
        history["what"], history
    assert archived["role"] == "archived" and "results-archive/" in archived["what"], archived
    for row, folder in ((history, "results"), (archived, "results-archive")):
        cpu, unnamed = recorded_cpu(folder, row["machine"])
        assert ("the other %d name no CPU" % unnamed in row["cpu"]) == bool(unnamed), row
        machine = json.loads((ROOT / folder / row["machine"] / "machine.json").read_text())
        assert "%s family %s model %s, %s" % (cpu["vendor"], cpu["family"], cpu["model"],
                                             cpu["vector"]) in row["cpu"], row
        assert row["cores"] == machine["num_cpu"], row
        assert re.match(r"^[0-9.]+ GiB$", row["memory"]), row
    text = page.evaluate("$('#mxbench-about').text()")
    assert "Built %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d") \
        in text, text[:300]
    openblas = page.evaluate("$('#mxbench-about li[data-flavor=\"cpu-openblas\"]').text()")
    assert "Nothing after 1.8.0.post0" in openblas and "no wheel" in openblas, openblas
    assert page.evaluate("$('#mxbench-about li[data-flavor=\"cpu-mkldnn\"]').length") == 1

    # The list: the history's machine, its rows.
    page.goto(file_url(html, "summarylist"))
    page.wait_for("location.hash.indexOf('machine=%s') > 0 && "
                  "$('#summarylist-body tbody tr').length > 0" % HISTORY_MACHINE,
                  "the benchmark list on the history's machine")
    page.screenshot(ARTIFACTS / "site-views-list.png")
    active = page.evaluate("$('#summarylist-navigation .panel').first().find('a.btn.active')"
                           ".text()")
    assert active == HISTORY_MACHINE, active

    # The about page from a report page's bar.
    page.goto((html / "changes.html").as_uri())
    hrefs = page.evaluate(PAGE_STATE)["nav"]
    assert hrefs == [address for address, _ in pages.bar_links()
                     if address != pages.BASELINES_PAGE], hrefs  # no baselines recorded
    assert "index.html#about" in hrefs and "index.html#summarylist" in hrefs
    page.evaluate("document.querySelector('nav a[href=\"index.html#about\"]').click()")
    page.wait_for("$('#regressions-display #mxbench-about tr[data-machine]').length === 2",
                  "the about page")
    assert_all_from_disk(page, html, since)


GRAPH_LAYERS = "JSON.parse($('#main-graph').attr('data-mxbench-layers') || 'null')"


def test_a_graph_shows_noise_a_verdict_and_one_line_across_pythons(chromium, views_site):
    """BatchNorm forward on the history: a noise band around the cpu-mkldnn Python 3.11 line
    (generated-reports/noise's figure for the point), the confirmed 3.92x marked at 1.6.0, and the
    1.2.x points of Python 3.7 on their flavor's line, marked apart; the nav bar stays one
    line above the release labels at 1280 px; an instruction-count graph's lowest marker
    lies inside the plot."""
    html, page = views_site.html, chromium
    noise = json.loads((ROOT / "generated-reports" / "noise" / (HISTORY_MACHINE + ".json")).read_text())
    changes = file_data.read_site_json(str(html), "changes.json")
    confirmed = [dict(zip(changes["fields"], row)) for row in changes["changes"]]
    confirmed = [c for c in confirmed if c["point"] == POINT and c["state"] == "confirmed"
                 and (c["base"], c["head"]) == PAIR]
    assert confirmed, "the fixture's confirmation run gives no confirmed change"
    since = log_position(page)
    page.goto(file_url(html, BENCH))
    state = wait_for_plot(page, "the graph of " + BENCH, min_points=5)
    layers = page.wait_for(GRAPH_LAYERS + ".verdicts.length > 0 && " + GRAPH_LAYERS,
                           "the confirmed change's mark")
    page.screenshot(ARTIFACTS / "site-views-graph.png")
    assert "machine=" + HISTORY_MACHINE in state["hash"], state["hash"]
    bands = layers["bands"]
    assert [b["noise"] for b in bands] == [noise["points"][POINT]["noise"]], layers
    assert "cpu-mkldnn" in bands[0]["label"], bands
    marks = layers["verdicts"]
    assert [(m["base"], m["head"]) for m in marks] == [PAIR], marks
    assert marks[0]["text"] == "confirmed %.2fx" % confirmed[0]["conf_ratio"], marks

    # one line per flavor: the 1.2.x points of Python 3.7 on it, and a legend entry apart
    tags = views_site.tags
    revisions = file_data.read_site_json(str(html), "index.json")["tags"]
    series = page.evaluate("$('#main-graph').data('plot').getData().map(function(s){"
                           " return {label: s.label, lines: s.lines.show, points: s.data.filter("
                           "function(p){return p && p[1] !== null}).map(function(p){"
                           "return p[0]})}})")
    lines = [s for s in series if s["lines"]]
    markers = [s for s in series if not s["lines"]]
    assert len(lines) == 2 and len(markers) == 2, series
    for line in lines:
        assert revisions["1.2.0"] in line["points"] and revisions["1.3.0"] in line["points"], (
            line, tags)
    assert all("Python 3.7" in m["label"] and "1.2.0" in m["label"] for m in markers), markers
    assert not [s for s in lines if "Python" in s["label"]], lines

    # the nav bar: one line, the title cut with its name in the tooltip, above the labels
    bar = page.evaluate("(function(){var n = $('#nav')[0].getBoundingClientRect();"
                        " var t = $('#title')[0]; return {bottom: n.bottom, title: t.title,"
                        " cut: t.scrollWidth > t.clientWidth}})()")
    assert bar["bottom"] <= 60 and bar["title"] == BENCH, bar
    labels = [r for r in state["releases"] if r["shown"]]
    assert labels and min(r["top"] for r in labels) >= bar["bottom"], (bar, labels[:3])

    page.goto(file_url(html, COUNT_BENCH))
    wait_for_plot(page, "the graph of " + COUNT_BENCH, min_points=5)
    inside = page.evaluate(
        "(function(){var plot = $('#main-graph').data('plot'), y = plot.getAxes().yaxis;"
        " var lows = plot.getData().map(function(s){return Math.min.apply(null, s.data.filter("
        "function(p){return p && p[1] !== null}).map(function(p){return p[1]}))});"
        " var low = Math.min.apply(null, lows), r = plot.getOptions().series.points.radius;"
        " return {bottom: y.p2c(low) + r, height: plot.height()}})()")
    assert inside["bottom"] < inside["height"], inside
    page.screenshot(ARTIFACTS / "site-views-counts.png")
    assert_all_from_disk(page, html, since)


def test_report_pages_link_every_page_their_graphs_and_no_repository_path(chromium, views_site):
    """Every report page: the bar links every page (asv's and ours, About too); a long page
    has anchors and a contents list; the cliffs page's entries link to their graphs, which
    draw; no link to a file the site does not hold (docs/*.md); a cut table says how many it
    shows of how many; µs, never us."""
    html, page = views_site.html, chromium
    since = log_position(page)
    bar = [address for address, _ in pages.bar_links() if address != pages.BASELINES_PAGE]
    for name in ("models.html", "changes.html", "coverage.html", "cliffs.html"):
        page.goto((html / name).as_uri())
        state = page.evaluate(PAGE_STATE)
        assert state["nav"] == bar, (name, state["nav"])
        local = page.evaluate("Array.from(document.querySelectorAll('a[href]')).map(function(a)"
                              "{return a.getAttribute('href')}).filter(function(h){"
                              "return !/^(https?:|#|index\\.html)/.test(h)})")
        assert all(h.split("#")[0] in page_tidy.SITE_FILES and (html / h.split("#")[0]).exists()
                   for h in local), (name, local)
        assert not re.search(r"[0-9] ?us\b", state["text"]), name
    page.goto((html / "changes.html").as_uri())
    page.screenshot(ARTIFACTS / "site-views-changes.png")
    contents = page.evaluate("Array.from(document.querySelectorAll('.contents a')).map("
                             "function(a){var id = a.getAttribute('href').slice(1);"
                             " var h = document.getElementById(id);"
                             " return {id: id, heading: h ? h.tagName : null}})")
    assert len(contents) > 10 and all(c["heading"] in ("H2", "H3") for c in contents), contents
    text = page.evaluate("document.body.innerText")
    cut = re.findall(r"^(?:Slower|Faster) \(largest first.*$", text, re.M)
    assert cut and all(re.search(r"largest first: \d+ of \d+\)$", c) for c in cut), cut

    page.goto((html / "cliffs.html").as_uri())
    text = page.evaluate("document.body.innerText")
    assert re.search(r"\b1 of \d+\b", text), text[-2000:]
    links = page.evaluate("Array.from(document.querySelectorAll('table a[href^=\"index.html#"
                          "bench_\"]')).map(function(a){return a.getAttribute('href')})")
    assert links and any("bench_cliffs." in h for h in links), links[:5]
    page.goto(file_url(html, links[0].split("#", 1)[1]))
    page.wait_for("$('#main-graph').data('plot') || $('#main-graph').text()",
                  "the graph linked from the cliffs page")
    assert_all_from_disk(page, html, since)


def test_repository_paths_link_only_to_a_configured_repository():
    body = ('<p>see <a href="../docs/cpu-kinds.md">CPU kinds</a>, docs/models.md and '
            '<a href="index.html#x">x</a></p>')
    plain = page_tidy.repository_links(body)
    assert "docs/cpu-kinds.md" not in plain and "CPU kinds" in plain
    assert '<a href="index.html#x">' in plain and plain.count("<a ") == 1
    url = "https://github.com/example/mxbench/blob/main"
    linked = page_tidy.repository_links(body, url)
    assert '<a href="%s/docs/cpu-kinds.md">CPU kinds</a>' % url in linked
    assert '<a href="%s/docs/models.md">docs/models.md</a>' % url in linked


def test_coverage_entries_link_to_their_graphs():
    benchmarks = {"bench_operators.BatchNorm.time_forward", "bench_operators.slice.time_forward"}
    row = ("<tr><td><code>BatchNorm_v1</code></td><td>excluded</td><td>deprecated: superseded "
           "by BatchNorm</td></tr><tr><td><code>Crop</code></td><td>excluded</td><td>superseded"
           " by slice</td></tr>")
    linked = page_tidy.link_entries_in_cells(row, benchmarks, 2)
    assert linked.count("<a ") == 2 and "<code>BatchNorm_v1</code>" in linked
    assert '<a href="index.html#bench_operators.slice.time_forward">slice</a>' in linked


def test_the_changes_chart_title_lies_inside_the_image():
    import matplotlib
    matplotlib.use("Agg")
    from mxbench.reports.changes import chart_figure
    rows = [("1.6.0\u21921.7.0.post2 cpu-mkldnn  gluon.Conv3D.time_forward_backward(medium, "
             "float32, imperative, cpu) %d" % i, 0.1 * i - 1) for i in range(20)]
    figure = chart_figure(rows)
    figure.canvas.draw()
    box = figure._suptitle.get_window_extent(figure.canvas.get_renderer())
    assert 0 <= box.x0 and box.x1 <= figure.bbox.width and box.y1 <= figure.bbox.height, box


def test_the_grid_draws_the_history_machine(views_site):
    """The grid's little graph of a benchmark is asv's summary of the history's machine alone
    (asv's summary joined every machine's graphs into one line)."""
    from asv.graph import Graph, make_summary_graph
    html = views_site.html
    index = file_data.read_site_json(str(html), "index.json")

    def summary_of(machines):
        graphs = []
        for params in index["graph_param_list"]:
            path = Graph.get_file_path(params, BENCH).replace("\\", "/") + ".json"
            points = file_data.read_site_json(str(html), path)
            if params["machine"] in machines and points is not None:
                graph = Graph(BENCH, params)
                for revision, value in points:
                    graph.add_data_point(revision, value)
                graphs.append(graph)
        return [list(p) for p in make_summary_graph(graphs).get_data()]

    shown = file_data.read_site_json(str(html), "graphs/summary/" + BENCH + ".json")
    history = [[r, v] for r, v, _ in summary_of([HISTORY_MACHINE])]
    every = [[r, v] for r, v, _ in summary_of([HISTORY_MACHINE, ARCHIVED])]
    assert shown == json.loads(json.dumps(history)) and history != every, (shown[:3], every[:3])
