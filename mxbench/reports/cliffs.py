"""Performance cliffs: the rule that confirms one, and the report of what the search tried,
what it confirmed, and on which recorded releases each cliff holds (docs/search.md).

    python -m mxbench cliffs                       # the report, Markdown, to stdout
    python -m mxbench cliffs -o generated-reports/CLIFFS.md  # to a file
    python -m mxbench cliffs --search-dir DIR      # search logs elsewhere (default results-search)

A cliff is a shape whose cost per input element is at least THRESHOLD times a neighbour's
(one more or less in a size, the next multiple of 8 or 16, an input's axes in another
order), in at least all but one of ROUNDS re-measurements of the two, interleaved. A
neighbour with more than MAX_ELEMENT_GROWTH times the shape's elements does not count: the
fixed cost of a call alone, spread over twice the elements, would halve its cost per element.
"""
import json
import os
from collections import OrderedDict

from mxbench.core import errors
from mxbench.core.cliff_rule import THRESHOLD, ratios
from mxbench.core.formatting import ratio_text, seconds_text

CLIFFS_BENCHMARK = "bench_cliffs.%s.time_forward"
COSTLIEST = 10  # shapes per entry in the report


# --- the report ---------------------------------------------------------------------------------
def read_logs(search_dir):
    """The search logs (one JSON per entry), by entry name."""
    logs = OrderedDict()
    if not os.path.isdir(search_dir):
        return logs
    for name in sorted(os.listdir(search_dir)):
        if name.endswith(".json"):
            path = os.path.join(search_dir, name)
            try:
                with open(path) as fh:
                    log = json.load(fh, object_pairs_hook=OrderedDict)
            except ValueError as exc:
                raise errors.UserError("%s is not a search log: %s" % (path, exc))
            logs[log["entry"]] = log
    return logs


def cliff_elements(cliff):
    """{case name: elements} of a cliff and its neighbours."""
    return OrderedDict([(cliff["name"], cliff["elements"])]
                       + [(n["name"], n["elements"]) for n in cliff["neighbours"]])


def recorded_ratios(points, cliff, release_of, flavor_of, neighbour=None):
    """[(release, flavor, ratio)] from bench_cliffs points (the store's Points): per recording
    that has the cliff and a neighbour it was confirmed against (or the one named), the
    highest ratio."""
    elements = cliff_elements(cliff)
    by_recording = OrderedDict()
    for point in points:
        case = point.params[0].strip("'")
        if point.benchmark != CLIFFS_BENCHMARK % cliff["entry"] or case not in elements:
            continue
        if point.value is None or point.value != point.value:  # failed or skipped
            continue
        key = (release_of(point.recording.commit), flavor_of(point.recording.env_name))
        by_recording.setdefault(key, {})[case] = point.value
    out = []
    for (release, flavor), seconds in by_recording.items():
        found = [r for n in elements if n != cliff["name"] and neighbour in (None, n)
                 for r in ratios([seconds], elements, cliff["name"], n)]
        if found:
            out.append((release, flavor, max(found)))
    return out


def holds_text(recorded, threshold=THRESHOLD):
    """'1.9.1 cpu-mkldnn 2.4x; 1.5.1.post0 cpu-mkldnn 1.1x (not)' for a cliff's row."""
    if not recorded:
        return "not recorded yet"
    return "; ".join("%s %s %sx%s" % (release, flavor, ratio_text(ratio),
                                     "" if ratio >= threshold else " (gone)")
                     for release, flavor, ratio in recorded)


def report(logs, cliffs, points, release_of, flavor_of):
    """The Markdown report: per searched entry what was tried, then every cliff with its
    ratios to its neighbours and where it holds on the recorded releases."""
    lines = ["# Performance cliffs", "",
             "Shapes the search tried per operator (python -m mxbench search, docs/search.md) "
             "and the cliffs it confirmed: a cost per input element at least %sx a "
             "neighbour's, re-measured interleaved. Where a cliff holds comes from the "
             "recorded bench_cliffs points (a ratio under %sx: gone on that release)."
             % (THRESHOLD, THRESHOLD), "", "## Searched", "",
             "| entry | mxnet | seed | budget | shapes tried | refused | cost/element: lowest "
             "| highest | highest at | cliffs |", "|---|---|---|---:|---:|---:|---:|---:|---|---:|"]
    for name, log in logs.items():
        tried = [t for t in log["tried"] if t.get("cost_per_element")]
        if tried:
            low = min(tried, key=lambda t: t["cost_per_element"])
            high = max(tried, key=lambda t: t["cost_per_element"])
            figures = (seconds_text(low["cost_per_element"]),
                       seconds_text(high["cost_per_element"]),
                       "%s %s" % (high["case"], high["dtype"]))
        else:  # nothing measured: the process crashed, or every draw was refused
            figures = ("", "", log.get("crashed", ""))
        lines.append("| %s | %s | %s | %ds | %d | %d | %s | %s | %s | %d |" % (
            (name, log["mxnet"] or "", log["seed"], log["budget_s"], len(log["tried"]),
             len(log.get("refused", []))) + figures
            + (len(log["cliffs"]),)))
    lines += ["", "## Cliffs", ""]
    if not cliffs:
        lines.append("No cliff confirmed.")
    else:
        lines += ["| entry | case | shape | dtype | neighbour | its shape | ratio (search) "
                  "| against it, where recorded |", "|---|---|---|---|---|---|---:|---|"]
    for cliff in cliffs:
        for n in cliff["neighbours"]:
            recorded = holds_text(recorded_ratios(points, cliff, release_of, flavor_of,
                                                  n["name"]))
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                cliff["entry"], cliff["name"], cliff["shape"], cliff["dtype"], n["kind"],
                n["shape"], ratio_text(n["ratio"]) + "x", recorded))
    lines += ["", "## Costliest shapes tried", "",
              "Per entry, the %d shapes with the highest cost per element (every shape tried "
              "is in the entry's search log); rank: of how many shapes tried." % COSTLIEST, "",
              "| entry | rank | shape | dtype | time | elements | cost/element |",
              "|---|---:|---|---|---:|---:|---:|"]
    for name, log in logs.items():
        tried = sorted((t for t in log["tried"] if t.get("cost_per_element")),
                       key=lambda t: -t["cost_per_element"])
        lines += ["| %s | %d of %d | %s | %s | %s | %d | %s |" % (
            name, n + 1, len(tried), t["case"], t["dtype"], seconds_text(t["seconds"]),
            t["elements"], seconds_text(t["cost_per_element"]))
            for n, t in enumerate(tried[:COSTLIEST])]
    return "\n".join(lines) + "\n"


def recorded_points(project):
    """(points, release_of, flavor_of) of the recorded bench_cliffs points, for report()."""
    flavors = dict((e.name, e.flavor) for e in project.environments)
    return (project.store.points(benchmarks=r"^bench_cliffs\."),
            lambda commit: project.release_of(commit) or commit[:8],
            lambda env_name: flavors.get(env_name, env_name))
