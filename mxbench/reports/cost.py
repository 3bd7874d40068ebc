"""Where the time of a recorded run goes: asv's duration per benchmark, summed.

Per (release, flavor): the benchmarking and install time, the points measured, and the share
of the time that the recorded samples' operator calls take. Figures: docs/measurement.md.
"""
from collections import defaultdict

from tabulate import tabulate

from env_matrix.matrix import MatrixError
from mxbench.core.results import measured

SETUP_CACHE = "<setup_cache "


def durations(store, machine, commit, env_name):
    """({benchmark: seconds}, {setup_cache: seconds}, build/install seconds) of one result file.

    Only the suite's current benchmarks (benchmarks.json) count: `asv run` on a recorded
    result keeps the entries of benchmarks that were removed since, with their old durations.
    asv keeps a `setup_cache`'s seconds apart ('<setup_cache MODULE:LINE>'): benchmarking
    (bench_instructions counts in them), named here 'MODULE.setup_cache:LINE'; '<build>' is
    the install.
    """
    recordings = store.recordings(machine, commit, env_name)
    if not recordings:
        raise MatrixError("no result for %s in %s on machine %s" % (commit[:8], env_name, machine))
    current = store.benchmark_info()
    per = dict((p.benchmark, p.duration or 0.0) for p in store.points(machine, commit, env_name)
               if not current or p.benchmark in current)
    caches, build = {}, 0.0
    for key, seconds in recordings[0].durations.items():
        if key.startswith(SETUP_CACHE):
            module, _, line = key[len(SETUP_CACHE):].rstrip(">").partition(":")
            caches["%s.setup_cache:%s" % (module, line)] = seconds
        elif key.startswith("<"):
            build += seconds
    return per, caches, build


def timed_share(store, machine, commit, env_name, per):
    """(measured points, seconds of operator calls in the recorded samples: sum of samples
    x number over the time_ benchmarks) of one result file."""
    points, timed = 0, 0.0
    for p in store.points(machine, commit, env_name):
        if p.benchmark not in per:
            continue
        points += measured(p.value)
        if p.benchmark.rsplit(".", 1)[-1].startswith("time_") and p.samples and p.stats \
                and p.stats.get("number"):
            timed += sum(p.samples) * p.stats["number"]
    return points, timed


def cost_text(store, machine, commit, env_name, label, top=15):
    """Where the time of one recording went: its total, by module, by method, and the
    slowest benchmarks. label: the recording's release and flavor, as said."""
    where = (store, machine, commit, env_name)
    per, caches, build = durations(*where)
    points, timed = timed_share(*where, per)
    spent = dict(per, **caches)  # what the benchmarking's seconds went to
    by_module = defaultdict(float)
    by_method = defaultdict(float)
    for name, seconds in spent.items():
        by_module[name.split(".")[0]] += seconds
        by_method[name.rsplit(".", 1)[-1].split(":")[0]] += seconds
    total = sum(spent.values())
    return "\n".join([
        "%s: %d benchmarks, %.0f s benchmarking + %.0f s install = %.1f min"
        % (label, len(per), total, build, (total + build) / 60),
        "%d points measured, %.3f s a point; operator calls in the recorded samples: %.0f s "
        "(%.0f %% of the benchmarking)" % (points, total / max(points, 1), timed,
                                           100 * timed / max(total, 1e-9)),
        "",
        tabulate(sorted(by_module.items(), key=lambda kv: -kv[1]),
                 headers=["module", "seconds"], floatfmt=".0f"),
        "",
        tabulate(sorted(by_method.items(), key=lambda kv: -kv[1]),
                 headers=["method", "seconds"], floatfmt=".0f"),
        "",
        tabulate(sorted(spent.items(), key=lambda kv: -kv[1])[:top],
                 headers=["slowest benchmarks", "seconds"], floatfmt=".1f")])
