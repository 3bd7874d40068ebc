"""A check for a change: asv continuous BASE HEAD, then a second pass over what regressed.

    python -m mxbench check BASE HEAD [--flavor F] [--variant V] [--factor X] [-b REGEX]

Exit codes are asv continuous's: 0 no significant slow-down beyond the factor, 1 a
regression, 2 a benchmark failed. The first pass runs the selected benchmarks on both
releases (asv interleaves their rounds); every parameter point it flags as slower is
measured again on both, and only a slow-down flagged in that second pass too fails the
check. A real change shows up twice; a noisy moment of a shared machine (see the README's
A/A figures) rarely hits the same point twice. Results go to .asv/check-results, not
results/. The defaults (variant, factor, benchmarks) are the ones the A/A and sensitivity
figures in the README justify.
"""
import os
import re

from env_matrix.matrix import OK, MatrixError, load
from mxbench import asvtools

# The gating check's defaults (README, "A check for a change"): the variant whose A/A pairs
# are quietest; the factor at which no slow-down of either low-noise A/A pair was flagged
# in both passes (at 1.2 two were, at 1.26x and 1.29x); every benchmark but the roofline
# rates (GB/s, GFLOP/s: higher is better, which asv continuous would call a regression).
CHECK_VARIANT = "low-noise"
CHECK_FACTOR = 1.3
CHECK_BENCH = r"^(?!bench_roofline\.)"


def check_results_dir(config):
    """Where a check records: not results/, so that its subset runs never replace the
    recorded history of the two releases nor reach the published site (.asv is git-ignored)."""
    return os.path.join(os.path.dirname(os.path.abspath(config)), ".asv", "check-results")


def require_builds(releases, flavor, config):
    python, numpy = asvtools.python_and_numpy(asvtools.read_config(config))
    matrix = load()
    for release in releases:
        matrix.check_release(release)
        wheel = matrix.resolve(release, flavor, python, numpy)
        if wheel.status != OK:  # asv would record skips only, and call that a pass
            raise MatrixError("%s %s: %s" % (release, flavor, wheel.describe()))


def forget_results(results_dir, machine, commits, env_name):
    """A check starts clean: no points left over from an earlier check of these commits."""
    from asv.results import get_filename
    for commit in commits:
        path = os.path.join(results_dir, get_filename(machine, commit, env_name))
        if os.path.exists(path):
            os.unlink(path)


def regressed_points(results_dir, machine, base, head, env_name, factor):
    """'name(params)' of the points significantly slower in head, as asv's -b sees them."""
    from mxbench.changes import compare, points
    before, after = (points(results_dir, machine, c, env_name) for c in (base, head))
    return [c.name for c in compare(before, after, factor) if c.verdict == "slower"]


def points_regex(names):
    """asv -b for exactly these points (asv matches 'name(param, ...)', or 'name')."""
    return "^(%s)$" % "|".join(re.escape(n) for n in names)


def run_check(base_release, head_release, flavor, variant, factor, bench, config,
              machine=None, asv_extra=(), confirm=True):
    if base_release == head_release:  # asv would measure once and compare it with itself
        raise MatrixError("BASE and HEAD are both %s; for an A/A comparison run the release "
                          "twice and use python -m mxbench.changes aa" % base_release)
    env_name = asvtools.environment_for_flavor(flavor, config, variant)
    require_builds((base_release, head_release), flavor, config)
    base, head = (asvtools.release_commit(r, config) for r in (base_release, head_release))
    machine = asvtools.ensure_machine(machine)
    results_dir = check_results_dir(config)
    os.makedirs(results_dir, exist_ok=True)
    forget_results(results_dir, machine, (base, head), env_name)
    check_config = asvtools.config_copy(
        config, os.path.join(os.path.dirname(results_dir), "check.conf.json"),
        results_dir=results_dir)

    def continuous(regex):
        return asvtools.run_asv(["continuous", "--factor", str(factor), "--machine", machine,
                                 "-E", env_name, "--split", "-b", regex] + list(asv_extra)
                                + [base, head], config=check_config)

    code = continuous(bench)
    regressed = (regressed_points(results_dir, machine, base, head, env_name, factor)
                 if code == 1 and confirm else [])
    if regressed:
        print("second pass: measuring again the %d flagged point(s): %s"
              % (len(regressed), ", ".join(regressed)), flush=True)
        code = continuous(points_regex(regressed))
        if code == 0:
            print("not confirmed: the second pass flags none of them", flush=True)
    verdict = {0: "no significant slow-down beyond %.2fx" % factor,
               1: "REGRESSION: significantly slower beyond %.2fx%s"
                  % (factor, " in both passes" if confirm else ""),
               2: "a benchmark FAILED (see above)"}.get(code, "asv exited with %d" % code)
    print("check %s -> %s, %s, %s: %s (exit %d)"
          % (base_release, head_release, flavor, variant, verdict, code))
    return code
