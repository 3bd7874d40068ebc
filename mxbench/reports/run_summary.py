"""`mxbench run`'s texts: the plan (what each release and flavor installs) and the summary (what
the run left in the result files, MXNet's known crashes among them, what to run next)."""
import os

from tabulate import tabulate

from benchmarks.catalogue import crashes as known_crashes
from mxbench.core import results
from mxbench.core import selection as point_selection

CELL = ("%(measured)d measured, %(failed)d failed, %(bugs)d MXNet crash(es), %(skipped)d n/a "
        "(skipped or not run)")


def plan_text(project, releases, flavors):
    """What each (release, flavor) will install, so a missing build is said up front."""
    rows = [[project.matrix.label(r)] + [project.wheel(r, f).describe() for f in flavors]
            for r in releases]
    return tabulate(rows, headers=["release"] + flavors)


def file_cell(project, machine, release, flavor, variant, bugs):
    """One result file's point counts (MXNet's known crashes counted apart, and added to
    `bugs`: (point, flavor, what, cpu) -> [release]), or "not recorded"."""
    store = project.store
    path = store.filename(machine, project.commit(release), project.environment(flavor, variant))
    if not os.path.exists(path):
        return "not recorded"
    counts = results.point_counts(path)
    known = point_selection.known_bug_points(
        store, machine, project.commit(release), project.environment(flavor, variant), release,
        [project.matrix.flavor(flavor).device])
    for point, row in known:
        key = (point.name, flavor, row["what"], known_crashes.cpu_text(row.get("cpu")))
        bugs.setdefault(key, []).append(release)
    crashed = sum(1 for point, _ in known if point.value is None)
    counts.update(bugs=len(known), failed=counts["failed"] - crashed,
                  skipped=counts["skipped"] - (len(known) - crashed))
    return CELL % counts


def summary_rows(project, machine, releases, flavors, variants):
    """([a row per release: its label, a cell per flavor], bugs: see file_cell)."""
    rows, bugs = [], {}
    for release in releases:
        row = [project.matrix.label(release)]
        for flavor in flavors:
            wheel = project.wheel(release, flavor)
            if wheel.status != "ok":
                row.append(wheel.status)
                continue
            row.append("; ".join(
                ("" if len(variants) == 1 else variant + ": ")
                + file_cell(project, machine, release, flavor, variant, bugs)
                for variant in variants))
        rows.append(row)
    return rows, bugs


def summary_text(project, machine, releases, flavors, variants):
    """What the run left in results/, what had no build, and what to run next."""
    store = project.store
    rows, bugs = summary_rows(project, machine, releases, flavors, variants)
    where = os.path.relpath(store.machine_dir(machine))
    where = store.machine_dir(machine) if where.startswith("..") else where
    lines = ["\nsummary: result files of machine %s in %s/ (points in each file)"
             % (machine, where), tabulate(rows, headers=["release"] + flavors)]
    if bugs:  # MXNet's, not the suite's: they do not fail the run and are not run again
        lines.append("MXNet crashes: the process dies on these points of these releases on "
                     "this CPU kind (%s; not run again):" % known_crashes.crashes_file_label())
        for (name, flavor, what, cpu), found in sorted(bugs.items()):
            lines.append("  %s on %s (%s, %s): %s" % (
                name, ", ".join(sorted(set(found), key=releases.index)), flavor, cpu, what))
    order = project.matrix.releases()
    ordered = sorted(releases, key=order.index)
    if len(ordered) >= 2:
        lines.append("next: python -m mxbench compare %s %s      # the two side by side, per "
                     "flavor" % (ordered[0], ordered[-1]))
    lines.append("      python -m mxbench publish && asv preview   # the site (html/)")
    lines.append("      git status results/   # new results are files in this checkout: commit "
                 "them to keep them with the history")
    return "\n".join(lines)
