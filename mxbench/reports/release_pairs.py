"""The consecutive measured releases of a machine's history, per flavor, and their changes
(asv's rule): the pairs `changes releases`, `confirm --history` and the documented changes'
check compare."""
from mxbench.core.change_rule import compare
from mxbench.core.results import by_name, measured


def release_changes(project, machine, env_names, factor, timings_only=True):
    """{flavor: [(release_a, release_b, [Change])]} for consecutive measured releases
    (releases with a build for the flavor and a result file, in ladder order).

    By default only timings, the report's subject; timings_only=False adds the memory and
    roofline tracks."""
    store = project.store
    report = {}
    for flavor, env_name in env_names.items():
        chain = [r for r in project.built_releases(flavor)
                 if r in project.tags and store.has(machine, project.tags[r], env_name)]
        loaded = [(r, by_name(store.points(machine, project.tags[r], env_name))) for r in chain]
        loaded = [(r, p) for r, p in loaded if any(measured(x.value) for x in p.values())]
        pairs = []
        for (ra, pa), (rb, pb) in zip(loaded, loaded[1:]):
            changes = compare(pa, pb, factor)
            if timings_only:
                changes = [c for c in changes if c.unit == "seconds"]
            pairs.append((ra, rb, changes))
        report[flavor] = pairs
    return report


