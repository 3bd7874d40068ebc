"""mxbench/about.js: what the site's "about" block says (site-sources/overlay/overlay.js, section 11),
from the project's own data, never typed by hand.

- each machine of the site (index.json's machines: asv's copy of each machine.json): its CPU as
  the recordings' conditions log names it (vendor, family, model, vector extensions), cores,
  memory, and which record it is: the history (results/), another CPU kind's own record
  (results-cpu-kinds/), the archived history (results-archive/; on the site through the
  neutral baselines recorded on it, results-baselines/);
- the history's machine: the one the benchmark list and the graphs open on;
- when the site was built;
- each default flavor (env_matrix): what it is, its packages, the releases it has a wheel for
  and why it stops where it stops.
"""
import datetime
import json
import os

from mxbench.core.project import CPU_KINDS, ROOT

ABOUT_SCRIPT = "about.js"
# The repository's record folders, and what a machine found in each is on the site; the first
# that holds the machine decides.
RECORDS = (("results", "history"),
           (CPU_KINDS, "another CPU kind's own record"),
           ("results-archive", "archived"),
           ("results-baselines", "neutral baselines"))
CONDITIONS_LOG = "conditions.jsonl"


def records_of(machine, root):
    """[(folder, role)] of the repository's records that hold `machine`, in RECORDS' order."""
    return [(folder, role) for folder, role in RECORDS
            if os.path.isdir(os.path.join(root, folder, machine))]


def recorded_cpus(machine, root):
    """(the CPUs the machine's recordings name, each {vendor, family, model, vector,
    recordings}, most recordings first; how many recordings its conditions logs hold in all:
    the early ones name no CPU)."""
    kinds, total = {}, 0
    for folder, _ in RECORDS:
        path = os.path.join(root, folder, machine, CONDITIONS_LOG)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                total += 1
                cpu = json.loads(line).get("cpu")
                if cpu:
                    key = tuple(cpu.get(k) for k in ("vendor", "family", "model", "vector"))
                    kinds[key] = kinds.get(key, 0) + 1
    cpus = [dict(zip(("vendor", "family", "model", "vector", "recordings"), key + (n,)))
            for key, n in sorted(kinds.items(), key=lambda kn: -kn[1])]
    return cpus, total


def _number(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def machine_entry(name, info, root):
    records = records_of(name, root) or [(None, None)]
    cpus, recordings = recorded_cpus(name, root)
    return {"name": name, "role": records[0][1], "folders": [f for f, _ in records if f],
            "cpu_name": info.get("cpu"),
            "cpus": cpus, "recordings": recordings, "cores": _number(info.get("num_cpu")),
            "memory_bytes": _number(info.get("ram")), "arch": info.get("arch"),
            "os": info.get("os")}


def history_machine(machines, graph_counts):
    """The machine the site opens on: the history's (results/) where the site has it, else
    the one with the most graph files."""
    for entry in machines:
        if entry["role"] == "history":
            return entry["name"]
    if not machines:
        return None
    return max(machines, key=lambda e: graph_counts.get(e["name"], 0))["name"]


def graph_counts(html_dir):
    """{machine: number of graph files} of a published site (graphs/**/machine-<name>/)."""
    counts = {}
    for dirpath, _, names in os.walk(os.path.join(html_dir, "graphs")):
        parts = [p[len("machine-"):] for p in dirpath.split(os.sep) if p.startswith("machine-")]
        if parts:
            counts[parts[-1]] = counts.get(parts[-1], 0) + len(names)
    return counts


def flavor_entry(matrix, name):
    """A default flavor: what it is, its packages, the first and last release with a wheel, and
    why the ones after the last have none (the matrix's own reason)."""
    flavor = matrix.flavor(name)
    releases = matrix.releases()
    built = [r for r in releases if matrix.resolve(r, name).requirement]
    after = releases[releases.index(built[-1]) + 1:] if built else releases
    stops = None
    if after:
        stops = {"after": built[-1] if built else None, "releases": len(after),
                 "reason": matrix.resolve(after[0], name).reason}
    return {"name": name, "summary": flavor.summary,
            "packages": ["%s %s" % (package, spec or "(every release)")
                         for package, spec in flavor.packages],
            "first": built[0] if built else None, "last": built[-1] if built else None,
            "built": len(built), "stops": stops}


def about_data(html_dir, root=ROOT, built=None):
    """The content of about.js for the published site in html_dir."""
    from env_matrix import matrix as matrix_model
    with open(os.path.join(html_dir, "index.json"), encoding="utf-8") as fh:
        index = json.load(fh)
    machines = [machine_entry(name, index.get("machines", {}).get(name, {}), root)
                for name in index.get("params", {}).get("machine", [])]
    matrix = matrix_model.load()
    built = built or datetime.datetime.now(datetime.timezone.utc)
    return {"built": built.strftime("%Y-%m-%d %H:%M UTC"),
            "history": history_machine(machines, graph_counts(html_dir)),
            "machines": machines,
            "flavors": [flavor_entry(matrix, name) for name in matrix.default_flavors()]}
