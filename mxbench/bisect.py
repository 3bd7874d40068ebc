"""Bisect a performance change along the release ladder for one flavor.

asv find walks every commit of a range in its first environment; on this ladder many
releases have no build for a given flavor (mxnet-native exists for 1.7.0 and 1.8.0.post0
only), and asv find then either compares against skipped (NaN) results or, when it cannot
find a measured commit between two others, stops with "Too many commits failed". Here the
range is first narrowed to the releases that have a build for the flavor, then bisected
with asv find's own rule (follow the half with the larger step), each probe being a real
`asv run <release>^!` of that one benchmark in that flavor's environment. Probes already in
results/ are reused, so a bisection can be interrupted and resumed.
"""
import math
import os
import subprocess

from env_matrix.ladder import tags
from env_matrix.matrix import OK, MatrixError, load

from . import asvtools


def releases_in_range(range_spec, ladder_dir):
    """Ladder releases selected by a git range such as '1.6.0..1.9.1', oldest first."""
    out = subprocess.run(["git", "-C", ladder_dir, "rev-list", "--first-parent", "--reverse",
                          range_spec], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    if out.returncode != 0:
        raise MatrixError("bad range %r: %s" % (range_spec, out.stderr.strip()))
    by_hash = {sha: tag for tag, sha in tags(ladder_dir).items()}
    return [by_hash[sha] for sha in out.stdout.split() if sha in by_hash]


def summary_value(values):
    """One number per release: the geometric mean of the measured parameter points."""
    good = [v for v in values if v is not None and not math.isnan(v) and v > 0]
    if not good:
        return None
    return math.exp(sum(math.log(v) for v in good) / len(good))


class Bisection(object):
    def __init__(self, benchmark, flavor, config=asvtools.DEFAULT_CONFIG, machine=None,
                 invert=False):
        self.benchmark = benchmark
        self.flavor = flavor
        self.config = config
        self.conf = asvtools.read_config(config)
        self.ladder_dir, self.results_dir = asvtools.project_dirs(config)
        self.machine = machine or asvtools.ensure_machine()
        self.env_name = asvtools.environment_for_flavor(flavor, config)
        self.invert = invert
        self.tags = tags(self.ladder_dir)
        self.values = {}

    def built_releases(self, releases):
        matrix = load()
        python, numpy = asvtools.python_and_numpy(self.conf)
        return [r for r in releases
                if matrix.resolve(r, self.flavor, python, numpy).status == OK]

    def stored_value(self, release):
        """The benchmark's summary value at `release` from results/, or None."""
        from asv.results import iter_results_for_machine_and_hash
        for result in iter_results_for_machine_and_hash(self.results_dir, self.machine,
                                                        self.tags[release]):
            if (result.env_name == self.env_name
                    and self.benchmark in result.get_all_result_keys()):
                params = result.get_result_params(self.benchmark)
                raw = result.get_result_value(self.benchmark, params)
                return summary_value(raw if isinstance(raw, list) else [raw])
        return None

    def measure(self, release):
        if release in self.values:
            return self.values[release]
        value = self.stored_value(release)
        if value is None:
            bench_regex = "^%s(\\(|$)" % self.benchmark.replace(".", "\\.")
            asvtools.run_asv(["run", "%s^!" % self.tags[release], "-E", self.env_name,
                              "-b", bench_regex, "--machine", self.machine,
                              "--record-samples"], config=self.config)
            value = self.stored_value(release)
        print("  %-12s %s" % (release, "%.4g" % value if value is not None else "no result"),
              flush=True)
        self.values[release] = value
        return value

    def step(self, a, b):
        """Relative rise from a to b (a fall when inverted)."""
        if a is None or b is None:
            return float("-inf")
        change = (b - a) / ((a + b) / 2.0)
        return -change if self.invert else change

    def run(self, range_spec):
        releases = releases_in_range(range_spec, self.ladder_dir)
        built = self.built_releases(releases)
        skipped = [r for r in releases if r not in built]
        print("%s in %s: %d releases, %d with a %s build%s" % (
            range_spec, os.path.basename(self.ladder_dir), len(releases), len(built),
            self.flavor, (" (no build: %s)" % ", ".join(skipped)) if skipped else ""))
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
        self.measure(built[lo])
        self.measure(built[hi])
        found = built[hi]
        print("Greatest %s found: %s (%s -> %s)" % (
            "improvement" if self.invert else "regression", found, built[lo], found))
        return found
