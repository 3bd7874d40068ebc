"""Where the time of a run goes: asv's recorded duration per benchmark, summed.

    python -m mxbench.cost --release 1.9.1 --flavor cpu-mkldnn [--variant V] [--machine M]

asv stores, for every benchmark of a result file, the wall time it took to run (all its
parameter points, all rounds); the per-environment total plus the environment's install
time is the cost of one (release, flavor) run. Beside it: the points measured, and how much
of that time the recorded samples of the timings are (the operator calls themselves; the
rest is processes, setup, warm-up and asv).
"""
import argparse
import sys
from collections import defaultdict

from tabulate import tabulate

from env_matrix.matrix import MatrixError
from mxbench.asvrun import runner as asvtools
from mxbench.core import project as project_model
from mxbench.core.errors import UserError
from mxbench.core.results import ResultFileError, measured


def durations(store, machine, commit, env_name):
    """{benchmark: seconds} and the build/install seconds for one result file.

    Only the suite's current benchmarks (benchmarks.json) count: `asv run` on a recorded
    result keeps the entries of benchmarks that were removed since, with their old durations.
    """
    result = store.result(machine, commit, env_name)
    if result is None:
        raise MatrixError("no result for %s in %s on machine %s" % (commit[:8], env_name, machine))
    current = store.benchmark_info()
    per = {k: result.duration.get(k) or 0.0 for k in result.get_all_result_keys()
           if not current or k in current}
    build = sum(v for k, v in result.duration.items() if k.startswith("<"))
    return per, build


def timed_share(store, machine, commit, env_name, per):
    """(measured points, seconds of operator calls in the recorded samples: sum of samples
    x number over the time_ benchmarks) of one result file."""
    result = store.result(machine, commit, env_name)
    points, timed = 0, 0.0
    for key in per:
        params = result.get_result_params(key)
        values = result.get_result_value(key, params)
        points += sum(1 for v in values if measured(v))
        if key.rsplit(".", 1)[-1].startswith("time_"):
            samples = result.get_result_samples(key, params)
            stats = result.get_result_stats(key, params)
            timed += sum(sum(s) * st["number"] for s, st in zip(samples, stats)
                         if s and st and st.get("number"))
    return points, timed


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mxbench.cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=project_model.DEFAULT_CONFIG)
    parser.add_argument("--machine", default=None)
    parser.add_argument("--results", metavar="DIR",
                        help="results directory (default: the config's; the variants' is "
                             "experiments/)")
    parser.add_argument("--release", required=True)
    parser.add_argument("--flavor", default="cpu-mkldnn")
    parser.add_argument("--variant", default="default",
                        help="an A/B variant's run (env_matrix/variants.json)")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    try:
        project = project_model.load(args.config, args.results).for_variants([args.variant])
        where = (project.store, args.machine or asvtools.machine_name(),
                 project.commit(args.release), project.environment(args.flavor, args.variant))
        per, build = durations(*where)
        points, timed = timed_share(*where, per)
    except (MatrixError, ResultFileError, UserError) as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    by_module = defaultdict(float)
    by_method = defaultdict(float)
    for name, seconds in per.items():
        by_module[name.split(".")[0]] += seconds
        by_method[name.rsplit(".", 1)[-1]] += seconds
    total = sum(per.values())
    label = args.flavor if args.variant == "default" else "%s/%s" % (args.flavor, args.variant)
    print("%s %s: %d benchmarks, %.0f s benchmarking + %.0f s install = %.1f min"
          % (args.release, label, len(per), total, build, (total + build) / 60))
    print("%d points measured, %.3f s a point; operator calls in the recorded samples: %.0f s "
          "(%.0f %% of the benchmarking)" % (points, total / max(points, 1), timed,
                                             100 * timed / max(total, 1e-9)))
    print()
    print(tabulate(sorted(by_module.items(), key=lambda kv: -kv[1]),
                   headers=["module", "seconds"], floatfmt=".0f"))
    print()
    print(tabulate(sorted(by_method.items(), key=lambda kv: -kv[1]),
                   headers=["method", "seconds"], floatfmt=".0f"))
    print()
    print(tabulate(sorted(per.items(), key=lambda kv: -kv[1])[:args.top],
                   headers=["slowest benchmarks", "seconds"], floatfmt=".1f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
