"""confirmations.json, the site's copy of the confirmation runs' verdicts
(mxbench/site/verdict_data.py), from this repository's results/ and results-confirmations/,
and one made from a confirmation folder in a temporary project."""
import json
import shutil

from tests.conftest import HISTORY_MACHINE, ROOT, AsvProject

from mxbench.core.project import Project, load as load_project
from mxbench.reports import confirmations
from mxbench.site import file_data, verdict_data

# the history's files the second test keeps: 2.0.0a0 and 2.0.0b1, machine.json, benchmarks.json
KEPT = ("4ade808c-", "e35afd14-", "machine.json", "benchmarks.json")
LAYER_NORM = "bench_operators.LayerNorm.time_forward('medium', 'float32', 'cpu')"


def entries(data, base, head):
    return [e for e in data["confirmations"] if (e["base"], e["head"]) == (base, head)]


def test_the_recorded_confirmations_and_their_verdicts():
    """Every recorded confirmation run of the history's machine is in the file, with the
    verdicts docs/history.md gives: 1.9.0 -> 1.9.1 15 confirmed, 2 refuted and 6
    inconclusive, LayerNorm in 1.9.0 0.15x [0.14, 0.19]."""
    project = load_project()
    data = verdict_data.verdicts_data(project)
    pairs = {(e["base"], e["head"]) for e in data["confirmations"]}
    # a confirmation run of a machine whose history results/ does not hold (the archived
    # history's, results-archive/) has nothing of results/ to judge: it is left out
    history = set(project.store.machines())
    assert pairs == {(base, head) for base, head in confirmations.held_pairs(project)
                     if history & set(confirmations.confirmation_project(
                         project, base, head).store.machines())}, pairs
    assert pairs < set(confirmations.held_pairs(project))  # the archive's 1.9.1..2.0.0b1
    assert {e["machine"] for e in data["confirmations"]} == {HISTORY_MACHINE}
    states = [e["state"] for e in entries(data, "1.9.0", "1.9.1")]
    assert (states.count("confirmed"), states.count("refuted"),
            states.count("inconclusive")) == (15, 2, 6), states
    layer_norm = [e for e in entries(data, "1.8.0.post0", "1.9.0") if e["point"] == LAYER_NORM]
    assert len(layer_norm) == 1, layer_norm
    entry = layer_norm[0]
    assert entry["state"] == "confirmed" and entry["interval"] == "0.15x [0.14, 0.19]", entry
    assert entry["low"] < entry["ratio"] < entry["high"] < 1, entry
    assert entry["base_commit"] == project.commit("1.8.0.post0")
    assert entry["head_commit"] == project.commit("1.9.0")
    assert (entry["machine"], entry["flavor"], entry["python"]) == (
        HISTORY_MACHINE, "cpu-mkldnn", "3.11"), entry
    assert entry["command"] == "python -m mxbench confirm 1.8.0.post0 1.9.0 --flavor cpu-mkldnn"


def test_written_beside_regressions_json_and_in_its_file_data_script(tmp_path):
    """A project with no confirmation runs gets an empty list; one confirmation folder gives
    one entry per point it measured at both releases; the file is in the regressions
    page's file-data script."""
    (tmp_path / "project").mkdir()
    project = AsvProject(tmp_path / "project")
    shutil.copytree(str(ROOT / "results"), str(project.results_dir),
                    ignore=lambda folder, names: [n for n in names if n.endswith(".json") and
                                                  not n.startswith(KEPT)])
    config = str(project.conf_path)
    html = tmp_path / "html"
    html.mkdir()
    path = verdict_data.write_verdicts(config, str(html), log=lambda *a: None)
    assert json.loads(open(path).read())["confirmations"] == []
    pair = "2.0.0a0..2.0.0b1"
    shutil.copytree(str(ROOT / "results-confirmations" / pair),
                    str(project.base / "results-confirmations" / pair))
    Project.load.cache_clear()
    data = json.loads(open(verdict_data.write_verdicts(config, str(html),
                                                       log=lambda *a: None)).read())
    points = [e["point"] for e in data["confirmations"]]
    assert points and len(points) == len(set(points)), points
    assert {(e["base"], e["head"]) for e in data["confirmations"]} == {("2.0.0a0", "2.0.0b1")}
    assert {e["state"] for e in data["confirmations"]} <= set(data["states"])
    assert file_data.bundle_of(verdict_data.VERDICTS_FILE, {}) == "confirmations"  # its own


def test_the_historys_table_of_confirmation_verdicts_is_the_reports():
    """docs/history.md's table of the quiet history's confirmation runs, and its total, say
    what generated-reports/CHANGES.md (generated from the same runs) says for each pair."""
    import re
    report = (ROOT / "generated-reports" / "CHANGES.md").read_text()
    flavor, reported = None, {}
    for line in report.split("## Package lineage")[0].splitlines():
        if line.startswith("## "):
            flavor = line[3:].strip()
        elif line.startswith("### "):
            pair = line[4:].strip()
        found = re.search(r"^(\d+) points compared; asv's rule flags (\d+) \(.*; (\d+) beyond "
                          r"their point's noise\): \*\*(\d+) confirmed\*\*, (\d+) refuted, (\d+) "
                          r"inconclusive", line)
        if found:
            compared, flagged, beyond, *verdicts = (int(n) for n in found.groups())
            reported[(pair, flavor)] = (flagged, compared, beyond) + tuple(verdicts)
    history = (ROOT / "docs" / "history.md").read_text()
    documented = dict(((pair, flavor), tuple(int(n) for n in figures)) for pair, flavor, *figures
                      in re.findall(r"^\| (\S+ → \S+) \| (cpu-\w+) \| (\d+) of (\d+) \| (\d+) \| "
                                    r"(\d+) \| (\d+) \| (\d+) \|$", history, re.M))
    assert len(documented) == 25
    assert documented == dict((k, v) for k, v in reported.items() if k in documented)
    total = [sum(v[i] for v in documented.values()) for i in range(3, 6)]
    assert ("Of %d candidates measured, **%d confirmed, %d refuted, %d inconclusive**"
            % ((sum(total),) + tuple(total))) in history
    trust = " ".join((ROOT / "docs" / "trust.md").read_text().split())
    assert "(%d confirmed, %d refuted, %d inconclusive," % tuple(total) in trust


def test_changes_json_has_the_reports_figures_for_each_confirmed_change():
    """html/changes.json (change_data.py) against generated-reports/CHANGES.md, both from the same
    recordings: for every row of a release pair's table of confirmed changes, the change with
    that point, flavor and pair exists, its values recorded at both releases give the report's
    history ratio, and its confirmation the report's interval."""
    import re
    from mxbench.core.formatting import ratio_text
    from mxbench.reports.confirmations import interval_text, Verdict
    data = file_data.read_site_json(str(ROOT / "html"), "changes.json")
    rows = {}
    for row in data["changes"]:
        change = dict(zip(data["fields"], row))
        rows[change["point"], change["flavor"], change["base"], change["head"]] = change
    flavor = pair = None
    checked = 0
    for line in (ROOT / "generated-reports" / "CHANGES.md").read_text().splitlines():
        if line.startswith("## "):
            flavor, pair = line[3:].strip(), None
        elif line.startswith("### "):
            found = re.match(r"^### (\S+) \u2192 (\S+)$", line)
            pair = found.groups() if found else None
        found = re.match(r"^\| `([^`]+)` \| [^|]+ \| [^|]+ \| ([0-9.]+) \| ([^|]+) \|", line)
        if found and pair and flavor.startswith("cpu-"):
            point, history, confirmed = found.groups()
            change = rows.get((point, flavor) + pair)
            assert change, (point, flavor, pair)
            assert ratio_text(change["after"] / change["before"]) == history, (change, line)
            verdict = Verdict(None, change["state"], change["conf_ratio"], change["conf_low"],
                              change["conf_high"])
            assert interval_text(verdict) == confirmed.strip(), (change, line)
            checked += 1
    assert checked > 50, checked


def test_change_links_of_the_changes_page_name_flavor_and_pair():
    from mxbench.site import change_data
    text = ("<h2>cpu-mkldnn</h2>\n<h3>1.5.1.post0 \u2192 1.6.0</h3>\n<table>\n"
            "<tr><td><a href=\"index.html#bench_a.B.time_f\"><code>bench_a.B.time_f('x', 1)"
            "</code></a></td><td>1</td></tr>\n</table>\n<h2>Package lineage</h2>\n"
            "<tr><td><a href=\"index.html#bench_a.B.time_f\"><code>bench_a.B.time_f"
            "</code></a></td></tr>")
    out = change_data.link_change_rows(text, "m1").splitlines()
    assert ('<a class="change-link" href="index.html#change?point=bench_a.B.time_f%28%27x%27'
            '%2C%201%29&amp;base=1.5.1.post0&amp;flavor=cpu-mkldnn&amp;head=1.6.0&amp;'
            'machine=m1">change page</a></td>') in out[3]
    assert "change-link" not in out[-1]  # outside a flavor's release pair: no change page


def committed_regressions(site, count):
    """index.json, `count` of asv's regressions (one per flagged change of html/changes.json,
    as asv's regressions.json writes them) and the graph files they name, in the folder
    `site`, from the committed html/ (its data scripts keep no regressions.json)."""
    from asv.graph import Graph
    html = str(ROOT / "html")
    index = file_data.read_site_json(html, "index.json")
    (site / "index.json").write_text(json.dumps(index))
    changes = file_data.read_site_json(html, "changes.json")
    regressions = []
    for row in changes["changes"]:
        change = dict(zip(changes["fields"], row))
        graph = next((g for g in index["graph_param_list"] if change["flagged"] and (
            g.get("machine"), g.get("env-MXNET_FLAVOR"), g.get("python")) == (
                change["machine"], change["flavor"], change["python"])), None)
        if graph is None or len(regressions) == count:
            continue
        path = Graph.get_file_path(graph, change["point"].split("(")[0]) + ".json"
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(json.dumps(file_data.read_site_json(html, path)))
        tags = index["tags"]
        regressions.append([change["point"], path, change["params"], change["param_idx"],
                            None, None, [[tags[change["base"]], tags[change["head"]],
                                          change["before"], change["after"]]]])
    return regressions


def test_changes_json_does_not_follow_asvs_order(tmp_path):
    """asv writes regressions.json in an order that moves between publishes; changes.json's
    rows are sorted, so the same regressions in another order give the same file."""
    from mxbench.site import change_data
    project = load_project(str(ROOT / "asv.conf.json"))
    verdicts = file_data.read_site_json(str(ROOT / "html"), "confirmations.json")
    site = tmp_path / "site"
    site.mkdir()
    regressions = committed_regressions(site, 40)
    outputs = []
    for order in (regressions[:40], list(reversed(regressions[:40]))):
        (site / "regressions.json").write_text(json.dumps({"regressions": order}))
        outputs.append(change_data.changes_data(project, str(site), verdicts, {}))
    assert outputs[0] == outputs[1] and len(outputs[0]["changes"]) >= 40
