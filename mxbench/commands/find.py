"""`mxbench find GOOD..BAD BENCHMARK`: bisect a performance change along the release ladder.

The range is narrowed to the releases with a build for the flavor and bisected with asv
find's rule (follow the half with the larger step, a step being the largest move of one
parameter point); each probe is an `asv run` of that one benchmark recorded in results/,
and the verdict is asv compare's rule on the final pair. Exit codes: 0 a significant step
found, 1 none in the range, 2 no verdict. How to read it: docs/history.md.

--on-counts bisects on the entry's instruction count instead (bench_instructions,
docs/instructions.md): a step is a count that moved beyond COUNT_SPREAD, since counts repeat
exactly. A release without a recorded count is counted by an asv run of that one point:
MXBENCH_INSTRUCTION_POINTS tells the Valgrind process to count it alone, not the table.

What follows `--` goes to each probe's asv run (e.g. `-- -a rounds=1` for a quick look at a
large step); a probe is recorded in results/ like any run's points.
"""
from mxbench.asvrun.bisection import Bisection
from mxbench.core import errors
from mxbench.core.arguments import allow_busy_argument, factor_argument, flavor_argument
from mxbench.core.errors import UserError
from mxbench.reports import bisection as bisection_report
from mxbench.reports.changes import count_benchmark

FOUND, NOT_FOUND, NO_VERDICT = errors.OK, errors.FAILED, errors.USAGE


def setup_arguments(subparsers):
    find = subparsers.add_parser("find", help="bisect a change across the ladder for one flavor")
    find.add_argument("range", help="GOOD..BAD, both included, e.g. 1.6.0..1.9.1")
    find.add_argument("benchmark", help="exact benchmark name")
    flavor_argument(find)
    find.add_argument("--invert", action="store_true", help="look for an improvement")
    factor_argument(find, help="a point moved when asv compare would flag it at this factor")
    find.add_argument("--on-counts", action="store_true",
                      help="bisect on the entry's instruction count (bench_instructions; a "
                           "bench_operators timing or a bench_instructions name): a step is a "
                           "count that moved beyond 1 %%")
    allow_busy_argument(find)
    find.set_defaults(func=cmd_find, takes_asv_args="run")
    return find


def cmd_find(args):
    benchmark = count_benchmark(args.benchmark) if args.on_counts else args.benchmark
    if benchmark is None:
        raise UserError("--on-counts: %s has no instruction count (give a bench_operators "
                        "time_forward or time_forward_backward benchmark, a model layer's "
                        "bench_models time_forward, or a bench_instructions one)"
                        % args.benchmark)
    bisection = Bisection(args.project, benchmark, args.flavor, args.machine, args.invert,
                          args.allow_busy, args.on_counts, args.asv_args)
    pair = bisection.narrow(args.range)
    points = [bisection.recorded_points(r) for r in pair]
    if args.on_counts:
        found, text = bisection_report.count_verdict(args.flavor, pair, points, args.invert)
    else:
        found, text = bisection_report.step_verdict(
            args.project, bisection.machine, args.flavor, benchmark, pair, points, args.factor,
            args.invert)
    print(text)
    return FOUND if found else NOT_FOUND
