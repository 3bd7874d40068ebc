"""<html_dir>/changes.json: every change asv's regressions page lists, precomputed for the
overlay's regressions page and change page (site-sources/overlay/overlay.js, sections 8-9).

One entry per jump of asv's regressions.json: the point, its machine, flavor and Python, the
two releases by name (asv writes a range of one ladder commit as the later commit alone: the
base is then the release measured last before it), the values recorded at both releases (the
history's ratio is after / before: overlay.js `history_ratio`, the one place it is computed on
the site; generated-reports/CHANGES.md's "history ratio" is the same quotient of the same recordings),
the instruction counts of the point's entry at both releases, the point's noise
(generated-reports/noise/<machine>.json) and the confirmation run's verdict where one measured it
(confirmations.json, verdict_data.py). asv's own step levels are not carried: a second figure
per change that disagreed with the first.

In a file-data script of its own (file_data.bundle_of), the only copy the site keeps.
"""
import html
import itertools
import json
import os
import re

from mxbench.core.project import load as load_project
from mxbench.core.results import write_json_atomic

CHANGES_FILE = "changes.json"
NOISE_DIR = os.path.join("generated-reports", "noise")
# The entry's fields, in the order of each row of "changes" (rows as lists: 3,000 rows stay
# small enough to load at once).
# The benchmark, graph file and commits are not carried: overlay.js derives them (the name
# before "(", asv's graph path of the params, index.json's tags).
FIELDS = ("point", "machine", "flavor", "python", "base", "head", "before", "after", "unit",
          "params", "param_idx", "state", "conf_ratio", "conf_low", "conf_high",
          "count_before", "count_after", "noise", "flagged")


def _value(entry, param_idx):
    value = entry[1] if len(entry) > 1 else None
    if param_idx is not None:
        value = value[param_idx] if isinstance(value, list) and param_idx < len(value) else None
    return value if isinstance(value, (int, float)) and value == value else None


def recorded(graph_data, param_idx):
    """{revision: value} of one point's measured values in an asv graph file."""
    found = {}
    for entry in graph_data or ():
        value = _value(entry, param_idx)
        if value is not None:
            found[entry[0]] = value
    return found


def base_revision(values, rev_a, rev_b):
    """The base of a jump: asv's first revision where it names one and it is measured, else
    (a range of one ladder commit) the revision measured last before the head."""
    if rev_a is not None and rev_a in values:
        return rev_a
    earlier = [r for r in values if r < rev_b]
    return max(earlier) if earlier else None


def noise_tables(root):
    """{machine: {flavor, python, points: {point: noise}}} of generated-reports/noise/*.json (noise: max /
    min between recordings of one build of that flavor and Python on that machine)."""
    tables = {}
    folder = os.path.join(root, NOISE_DIR)
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                data = json.load(fh)
            python = re.search(r"-py([0-9.]+)-", data.get("env_name", ""))
            tables[data.get("machine", name[:-5])] = {
                "flavor": data.get("flavor"), "python": python and python.group(1),
                "points": {point: entry.get("noise")
                           for point, entry in sorted(data.get("points", {}).items())
                           if entry.get("noise")}}
    return tables


def load_noise(root):
    """{machine: {point: noise}} of generated-reports/noise/*.json."""
    return {machine: table["points"] for machine, table in noise_tables(root).items()}


class Counts(object):
    """The instruction counts of a point's entry at a release (changes.recorded_counts),
    read once per commit and environment."""

    def __init__(self, project):
        self.project, self.cache = project, {}

    def of(self, point, release, flavor):
        from mxbench.reports.changes import recorded_counts, timing_count_key
        key = timing_count_key(point)
        if key is None or release is None:
            return None
        try:
            commit, env_name = self.project.commit(release), self.project.environment(flavor)
        except Exception:  # a release or flavor this config does not have
            return None
        if (commit, env_name) not in self.cache:
            self.cache[commit, env_name] = recorded_counts(self.project.store, commit, env_name)
        found = self.cache[commit, env_name].get(key)
        return found.value if found is not None else None


def changes_data(project, html_dir, verdicts, noise):
    """The content of changes.json from the published site in html_dir (index.json,
    regressions.json, graphs/), the confirmations' verdicts (verdict_data.verdicts_data) and
    the noise tables."""
    with open(os.path.join(html_dir, "index.json"), encoding="utf-8") as fh:
        index = json.load(fh)
    path = os.path.join(html_dir, "regressions.json")
    regressions = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            regressions = json.load(fh).get("regressions", [])
    release_of = {}
    for tag, revision in index.get("tags", {}).items():
        release_of[revision] = tag
    by_key = {}
    for entry in verdicts.get("confirmations", []):
        by_key[entry["point"], entry["machine"], entry["flavor"], entry["python"],
               entry["base"], entry["head"]] = entry
    counts = Counts(project)
    rows, graphs, done = [], {}, set()
    for point, graph, params, param_idx, _, _, jumps in regressions:
        if not jumps:
            continue
        if graph not in graphs:
            graphs.clear()  # one graph file at a time: the rows of one file come together
            full = os.path.join(html_dir, graph)
            with open(full, encoding="utf-8") as fh:
                graphs[graph] = json.load(fh)
        values = recorded(graphs[graph], param_idx)
        benchmark = point.split("(", 1)[0]
        # asv's regressions name only the parameters with more than one value in the site
        def param(key):
            return params.get(key) or (index["params"].get(key) or [None])[0]
        machine, flavor, python = param("machine"), param("env-MXNET_FLAVOR"), param("python")
        for rev_a, rev_b, _, _ in jumps:
            base_rev = base_revision(values, rev_a, rev_b)
            base, head = release_of.get(base_rev), release_of.get(rev_b)
            verdict = by_key.get((point, machine, flavor, python, base, head))
            row = {"point": point, "benchmark": benchmark, "machine": machine,
                   "flavor": flavor, "python": python, "base": base, "head": head,
                   "before": values.get(base_rev), "after": values.get(rev_b),
                   "unit": index["benchmarks"].get(benchmark, {}).get("unit"),
                   "params": params, "param_idx": param_idx,
                   "state": verdict["state"] if verdict else None,
                   "conf_ratio": verdict["ratio"] if verdict else None,
                   "conf_low": verdict["low"] if verdict else None,
                   "conf_high": verdict["high"] if verdict else None,
                   "count_before": counts.of(point, base, flavor),
                   "count_after": counts.of(point, head, flavor),
                   "noise": noise.get(machine, {}).get(point)}
            row["flagged"] = 1
            rows.append(row)
            done.add((point, machine, flavor, python, base, head))
    # The confirmation runs' points asv's step detection did not flag (refuted ones, speed-ups,
    # changes asv saw as one noisy level): a change page too, from the same graph files.
    for entry in verdicts.get("confirmations", []):
        key = (entry["point"], entry["machine"], entry["flavor"], entry["python"],
               entry["base"], entry["head"])
        if key in done:
            continue
        found = graph_point(index, html_dir, entry)
        if found is None:
            continue
        graph_params, param_idx, values = found
        tags = index.get("tags", {})
        row = {"point": entry["point"], "machine": entry["machine"], "flavor": entry["flavor"],
               "python": entry["python"], "base": entry["base"], "head": entry["head"],
               "before": values.get(tags.get(entry["base"])),
               "after": values.get(tags.get(entry["head"])),
               "unit": index["benchmarks"][entry["point"].split("(", 1)[0]].get("unit"),
               "params": graph_params, "param_idx": param_idx, "state": entry["state"],
               "conf_ratio": entry["ratio"], "conf_low": entry["low"],
               "conf_high": entry["high"],
               "count_before": counts.of(entry["point"], entry["base"], entry["flavor"]),
               "count_after": counts.of(entry["point"], entry["head"], entry["flavor"]),
               "noise": noise.get(entry["machine"], {}).get(entry["point"]), "flagged": 0}
        rows.append(row)
        done.add(key)
    # asv writes regressions.json in no fixed order (one publish to the next): sorted, a
    # republish of the same results writes the same file
    rows.sort(key=lambda row: tuple(str(row[f] or "") for f in FIELDS[:6]))
    return {"fields": list(FIELDS), "changes": [[row[f] for f in FIELDS] for row in rows]}


def point_index(benchmark, point):
    """The index of a point (its name as asv writes it) among a benchmark's parameter
    combinations (the last parameter varying fastest), or None for an unparameterized one."""
    params = benchmark.get("params") or []
    if not params:
        return None
    for n, combo in enumerate(itertools.product(*params)):
        if "%s(%s)" % (benchmark["name"], ", ".join(combo)) == point:
            return n
    return -1


def graph_point(index, html_dir, entry):
    """(graph params as asv's regressions name them, point index, {revision: value}) of a
    confirmation entry's point in the published graph files, or None."""
    from asv.graph import Graph
    name = entry["point"].split("(", 1)[0]
    benchmark = index["benchmarks"].get(name)
    if benchmark is None:
        return None
    param_idx = point_index(benchmark, entry["point"])
    if param_idx == -1:
        return None
    for graph_params in index["graph_param_list"]:
        if (graph_params.get("machine") == entry["machine"] and
                graph_params.get("env-MXNET_FLAVOR") == entry["flavor"] and
                graph_params.get("python") == entry["python"] and
                graph_params.get("branch") in (None, (index["params"].get("branch") or [None])[0])):
            path = os.path.join(html_dir, Graph.get_file_path(graph_params, name) + ".json")
            if os.path.exists(path):
                with open(path, encoding="utf-8") as fh:
                    values = recorded(json.load(fh), param_idx)
                varying = {key: value for key, value in graph_params.items()
                           if len(index["params"].get(key, ())) > 1}
                return varying, param_idx, values
    return None


def write_changes(config, html_dir, log=print):
    """<html_dir>/changes.json, after verdict_data.write_verdicts (it reads confirmations.json).
    Returns its path."""
    from mxbench.site.verdict_data import VERDICTS_FILE
    project = load_project(config)
    with open(os.path.join(html_dir, VERDICTS_FILE), encoding="utf-8") as fh:
        verdicts = json.load(fh)
    noise = load_noise(os.path.dirname(os.path.abspath(config)))
    data = changes_data(project, html_dir, verdicts, noise)
    path = os.path.join(html_dir, CHANGES_FILE)
    write_json_atomic(path, data)
    rows = [dict(zip(FIELDS, row)) for row in data["changes"]]
    log("changes: %s (%d of asv's regressions, %d more that a confirmation run measured; "
        "%d with a verdict)" % (path, sum(r["flagged"] for r in rows),
                                sum(1 - r["flagged"] for r in rows),
                                sum(1 for r in rows if r["state"])))
    return path


# --- links to the change page ---------------------------------------------------------------
CHANGE_PAGE = "index.html#change"


def change_address(point=None, **where):
    """The change page's address (overlay.js: show_change) of a point (or a benchmark) and
    some of machine, flavor, python, base, head; asv's encoding (encodeURIComponent)."""
    from urllib.parse import quote
    items = [("point", point)] + sorted(where.items())
    return CHANGE_PAGE + "?" + "&".join("%s=%s" % (key, quote(str(value), safe=""))
                                        for key, value in items if value)


FLAVOR_HEADING = re.compile(r"^<h2>(cpu-[\w-]+|gpu-[\w-]+)</h2>$")
PAIR_HEADING = re.compile(r"^<h3>(\S+) \u2192 (\S+)</h3>$")
POINT_CELL = re.compile(r"(<td><a href=\"index\.html#[^\"]+\"><code>([^<]+)</code></a>)(</td>)")


def link_change_rows(text, machine=None):
    """The rendered changes report (changes.html's body) with a link to the change page after
    each point of a release pair's table (the flavor from the ## heading, the pair from ###)."""
    flavor = pair = None
    out = []
    for line in text.splitlines():
        if line.startswith("<h2>"):
            found = FLAVOR_HEADING.match(line)
            flavor, pair = (found.group(1) if found else None), None
        elif line.startswith("<h3>"):
            found = PAIR_HEADING.match(line)
            pair = found.groups() if found else None
        if flavor and pair and line.startswith("<tr><td>"):
            def link(cell):
                address = change_address(html.unescape(cell.group(2)), machine=machine,
                                         flavor=flavor, base=pair[0], head=pair[1])
                return '%s <a class="change-link" href="%s">change page</a>%s' % (
                    cell.group(1), html.escape(address, quote=True), cell.group(3))
            line = POINT_CELL.sub(link, line, count=1)
        out.append(line)
    return "\n".join(out)
