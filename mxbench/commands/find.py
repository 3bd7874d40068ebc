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
"""
import difflib
import math
import re

from env_matrix.matrix import MatrixError

from mxbench.asvrun import runner
from mxbench.commands.run import instruction_points_env
from mxbench.core import errors
from mxbench.core.arguments import allow_busy_argument, factor_argument, flavor_argument
from mxbench.core.errors import UserError
from mxbench.core.change_rule import compare
from mxbench.core.formatting import change_text
from mxbench.core.results import by_name, measured

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
    find.set_defaults(func=cmd_find)
    return find


def cmd_find(args):
    return Bisection(args.project, args.benchmark, args.flavor, args.machine, args.invert,
                     args.factor, args.allow_busy, args.on_counts).run(args.range)


def releases_in_range(project, range_spec):
    """Ladder releases GOOD..BAD, both included, oldest first."""
    good, sep, bad = range_spec.partition("..")
    if not sep or not good or not bad:
        raise MatrixError("range %r: give it as GOOD..BAD, e.g. 1.6.0..1.9.1" % range_spec)
    order = project.matrix.releases()
    for release in (good, bad):
        project.matrix.check_release(release)
    lo, hi = order.index(good), order.index(bad)
    if lo >= hi:
        raise MatrixError("range %s: %s is not older than %s" % (range_spec, good, bad))
    return order[lo:hi + 1]


class Bisection(object):
    def __init__(self, project, benchmark, flavor, machine=None, invert=False, factor=1.2,
                 allow_busy=False, on_counts=False):
        from mxbench.reports.changes import count_benchmark
        self.project = project
        self.store = project.store
        self.on_counts = on_counts
        self.benchmark = count_benchmark(benchmark) if on_counts else benchmark
        if self.benchmark is None:
            raise UserError("--on-counts: %s has no instruction count (give a bench_operators "
                            "time_forward or time_forward_backward benchmark, a model layer's "
                            "bench_models time_forward, or a bench_instructions one)"
                            % benchmark)
        self.flavor = flavor
        self.env_name = project.environment(flavor)
        self.machine = machine or runner.machine_name()
        self.invert = invert
        self.factor = factor
        self.values = {}
        self.allow_busy = allow_busy

    def require_known_benchmark(self):
        """An exact name the suite has (results/benchmarks.json, written by every run)."""
        known = self.store.benchmark_info()
        if known and self.benchmark not in known:
            close = difflib.get_close_matches(self.benchmark, list(known), n=3)
            raise MatrixError("unknown benchmark %s%s" % (
                self.benchmark, "; did you mean: %s" % ", ".join(close) if close else
                " (python -m mxbench export results --benchmark REGEX lists recorded ones)"))

    def recorded_points(self, release):
        """{point name: Point} of the benchmark recorded at `release` ({} where none)."""
        return by_name(self.store.points(self.machine, self.project.commit(release),
                                         self.env_name, "^%s$" % re.escape(self.benchmark)))

    def recorded_values(self, release):
        """[value per parameter point] of the benchmark at `release`, or None where none
        is recorded."""
        return [p.value for p in self.recorded_points(release).values()] or None

    def measure(self, release):
        """The benchmark's values per parameter point at `release` (recorded or measured)."""
        if release in self.values:
            return self.values[release]
        values = self.recorded_values(release)
        if values is None or not any(measured(v) for v in values):
            commit = self.project.commit(release)
            runner.ensure_machine(self.machine)
            runner.record(self.project, self.machine, [commit],
                            ["%s^!" % commit, "-E", self.env_name, "--record-samples",
                             "-b", "^%s(\\(|$)" % self.benchmark.replace(".", "\\.")],
                            env=self.record_env(), allow_busy=self.allow_busy)
            values = self.recorded_values(release)
        if values is None or not any(measured(v) for v in values):
            raise MatrixError("no verdict: %s has no measured point at %s (%s, machine %s): "
                              "it is not in that release's suite, or it failed or skipped there"
                              % (self.benchmark, release, self.flavor, self.machine))
        if not any(measured(v) and v > 0 for v in values):
            raise UserError("no verdict: every measured point of %s at %s is 0 (%s, machine "
                            "%s): a change from or to 0 has no ratio to bisect on"
                            % (self.benchmark, release, self.flavor, self.machine))
        print("  %-12s %s" % (release, "%d instructions" % values[0] if self.on_counts
                              else geometric_mean_text(values)), flush=True)
        self.values[release] = values
        return values

    def record_env(self):
        """The environment of a probe's asv run: an instruction count's probe counts its
        own points only (bench_instructions reads INSTRUCTION_POINTS)."""
        return instruction_points_env([self.benchmark])

    def step(self, a, b):
        """The largest move of one parameter point from a to b, as a log ratio (upwards =
        slower; downwards when looking for an improvement)."""
        moves = [math.log(y / x) for x, y in zip(a, b) if measured(x) and measured(y) and x > 0
                 and y > 0]
        if not moves:
            return float("-inf")
        return max(-m for m in moves) if self.invert else max(moves)

    def run(self, range_spec):
        self.require_known_benchmark()
        releases = releases_in_range(self.project, range_spec)
        built = self.project.built_releases(self.flavor, releases)
        skipped = {}  # status (no build, not runnable, ...) -> releases, in ladder order
        for release in releases:
            if release not in built:
                skipped.setdefault(self.project.wheel(release, self.flavor).status,
                                   []).append(release)
        print("%s: %d releases (both ends included), %d with a %s build%s; results of "
              "machine %s" % (range_spec, len(releases), len(built), self.flavor,
                              (" (%s)" % "; ".join("%s: %s" % (status, ", ".join(names))
                                                   for status, names in skipped.items())
                               if skipped else ""), self.machine), flush=True)
        if len(built) < 2:
            raise MatrixError("need at least two releases with a %s build in %s"
                              % (self.flavor, range_spec))
        lo, hi = 0, len(built) - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            v_lo, v_mid, v_hi = (self.measure(built[i]) for i in (lo, mid, hi))
            if self.step(v_lo, v_mid) >= self.step(v_mid, v_hi):
                hi = mid
            else:
                lo = mid
        return self.verdict(built[lo], built[hi])

    def verdict(self, before, after):
        """asv compare's rule on the final pair, point by point; on counts, a move beyond
        COUNT_SPREAD."""
        if self.on_counts:
            return self.count_verdict(before, after)
        wanted = "faster" if self.invert else "slower"
        self.measure(before)
        self.measure(after)
        mine = [self.recorded_points(r) for r in (before, after)]
        moved = [c for c in compare(mine[0], mine[1], self.factor) if c.verdict == wanted]
        kind = "improvement" if self.invert else "regression"
        if not moved:
            print("No significant %s (asv's rule at %.2fx) in %s..%s; the largest step is "
                  "%s -> %s, and it is within the noise" % (kind, self.factor, before, after,
                                                          before, after))
            return NOT_FOUND
        print("Greatest %s found: %s (%s -> %s); points %s significantly beyond %.2fx:"
              % (kind, after, before, after, wanted, self.factor))
        from mxbench.reports.confirmations import (UNCONFIRMED, interval_text, kind_label,
                                                   other_kinds, verdicts)
        judged = verdicts(self.project, self.machine, before, after, self.flavor, moved,
                          self.factor)
        others = other_kinds(self.project, self.machine, before, after, self.flavor, moved,
                             self.factor)
        if any(v.state != UNCONFIRMED for v in judged):  # a verdict is a CPU kind's
            print("  (verdicts on %s%s)" % (kind_label(self.project.store, self.machine),
                                            ", and each other kind's after it" if others else ""))
        for v in sorted(judged, key=lambda v: v.change.ratio, reverse=not self.invert):
            print("  %s  %s  %s%s" % (
                v.change.name, change_text(v.change.before, v.change.after, v.change.unit),
                ("%s %s" % (v.state, interval_text(v))).rstrip(), "".join(
                    "; on %s: %s %s" % (kind, o.state, interval_text(o))
                    for kind, o in others.get(v.change.name, []))))
        if any(v.state == UNCONFIRMED for v in judged):
            print("Confirm the step (both releases again, interleaved): python -m mxbench "
                  "confirm %s %s --flavor %s -b '%s'"
                  % (before, after, self.flavor, re.escape(self.benchmark)))
        return FOUND

    def count_verdict(self, before, after):
        from mxbench.reports.changes import COUNT_SPREAD, count_figures, count_pairs
        self.measure(before)
        self.measure(after)
        moves, refused = count_pairs(*(self.recorded_points(r) for r in (before, after)))
        if refused:  # a step between two versions of the counting code is no release's
            raise UserError("%s -> %s: %s: %s; count both with this checkout: python -m "
                            "mxbench run %s %s --flavor %s --bench '^bench_instructions\\.' "
                            "--rerun" % (before, after, refused[0][0], refused[0][1], before,
                                         after, self.flavor))
        wanted = "faster" if self.invert else "slower"
        found = [c for c in moves if c.verdict == wanted]
        what = "fewer" if self.invert else "more"
        for c in moves:
            print("  %s  %s" % (c.name, count_figures(c)))
        if not found:
            print("No instruction-count step (%s instructions, beyond %g %%) in %s..%s; the "
                  "largest step is %s -> %s" % (what, 100 * COUNT_SPREAD, before, after, before,
                                                after))
            return NOT_FOUND
        print("Instruction-count step found: %s (%s -> %s): %s instructions beyond %g %%, "
              "another code path" % (after, before, after, what, 100 * COUNT_SPREAD))
        return FOUND


def geometric_mean_text(values):
    good = [v for v in values if measured(v) and v > 0]
    mean = math.exp(sum(math.log(v) for v in good) / len(good))
    return "%.4g (geometric mean of %d point%s)" % (mean, len(good), "s" * (len(good) != 1))
