"""A bisection's probes along the release ladder (`mxbench find`): asv find's rule, follow the
half with the larger step (a step being the largest move of one parameter point), each probe
the benchmark recorded at a release (read from the results store, else an asv run of that one
benchmark recorded into it). The verdict on the final pair is reports/bisection.py's."""
import difflib
import math
import re

from env_matrix.matrix import MatrixError

from mxbench.asvrun import runner
from mxbench.asvrun.recording import instruction_points_env
from mxbench.core.errors import UserError
from mxbench.core.results import by_name, measured


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
    """The probes of one benchmark (on counts: its instruction count's benchmark) of one
    flavor, recorded under `machine`."""

    def __init__(self, project, benchmark, flavor, machine=None, invert=False,
                 allow_busy=False, on_counts=False, asv_extra=()):
        self.project = project
        self.store = project.store
        self.on_counts = on_counts
        self.benchmark = benchmark
        self.flavor = flavor
        self.env_name = project.environment(flavor)
        self.machine = machine or runner.machine_name()
        self.invert = invert
        self.values = {}
        self.allow_busy = allow_busy
        self.asv_extra = list(asv_extra)  # each probe's asv run's own arguments

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
            self.probe(release)
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

    def probe(self, release):
        """An asv run of the benchmark at `release`, recorded into the store; an instruction
        count's probe counts its own points only (bench_instructions reads
        INSTRUCTION_POINTS)."""
        commit = self.project.commit(release)
        runner.ensure_machine(self.machine)
        runner.record(self.project, self.machine, [commit],
                      ["%s^!" % commit, "-E", self.env_name, "--record-samples",
                       "-b", "^%s(\\(|$)" % self.benchmark.replace(".", "\\.")]
                      + self.asv_extra,
                      env=instruction_points_env([self.benchmark]), allow_busy=self.allow_busy)

    def step(self, a, b):
        """The largest move of one parameter point from a to b, as a log ratio (upwards =
        slower; downwards when looking for an improvement)."""
        moves = [math.log(y / x) for x, y in zip(a, b) if measured(x) and measured(y) and x > 0
                 and y > 0]
        if not moves:
            return float("-inf")
        return max(-m for m in moves) if self.invert else max(moves)

    def narrow(self, range_spec):
        """(before, after): the pair of releases with a build, next to each other among
        them, that holds the largest step of GOOD..BAD; both measured."""
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
        for release in (built[lo], built[hi]):
            self.measure(release)
        return built[lo], built[hi]


def geometric_mean_text(values):
    good = [v for v in values if measured(v) and v > 0]
    mean = math.exp(sum(math.log(v) for v in good) / len(good))
    return "%.4g (geometric mean of %d point%s)" % (mean, len(good), "s" * (len(good) != 1))
