"""Recording chosen points: one asv run of exactly these points of these releases in these
environments into a results store (runner.record), the instruction counts' narrowing, and a
run's failures sorted out (MXNet's crash or the suite's failure). `mxbench run`, a
confirmation's interleaved rounds and a bisection's probes record through here."""
import re

from mxbench.asvrun import crashes
from mxbench.asvrun import runner
from mxbench.core import errors, results
from mxbench.core import selection as point_selection

ASV_FAILURES = 2  # asv run's exit status when a benchmark failed (passed on as it is)

# benchmarks/bench_instructions.py's SELECTION_VARIABLE (the host does not import the
# benchmarks; tests/test_counts.py keeps the two equal)
INSTRUCTION_POINTS = "MXBENCH_INSTRUCTION_POINTS"


def record_points(project, machine, releases, envs, names, asv_extra=(), allow_busy=False,
                  whole_run=False):
    """asv run of exactly these points of these releases in these environments, recorded
    into project's store (runner.record); asv_extra: more asv arguments; whole_run: merged
    only if asv finishes (a confirmation's rounds)."""
    commits = [project.commit(r) for r in releases]
    # COMMITS: a HASHFILE of exactly these commits, whatever their order on the ladder (in
    # the run's staging folder). The points are chosen by the caller (resuming: what is
    # measured is not redone, what failed is tried again), so asv runs exactly them.
    asv_args = [runner.COMMITS, "--record-samples"]
    for env in envs:
        asv_args += ["-E", env]
    for regex in point_selection.names_regexes(list(names)):
        asv_args += ["-b", regex]
    return runner.record(project, machine, commits, asv_args + list(asv_extra),
                         env=instruction_points_env(names), allow_busy=allow_busy,
                         whole_run=whole_run)


def instruction_points_env(names):
    """The environment that has bench_instructions' Valgrind tables count exactly the
    instruction points among `names` (asv point names): a table counts every point of it in
    its setup_cache whenever any of its points runs, so without this a resume of the 134
    layer points also counted the 1,023 operator points again, to record 84 skips. None when
    no instruction point is among them."""
    benchmarks = sorted(set(n.split("(", 1)[0] for n in names
                            if n.startswith(results.INSTRUCTION_BENCHMARKS)))
    if not benchmarks:
        return None
    # each benchmark (class and method) of bench_instructions has one point: its name selects it
    return {INSTRUCTION_POINTS: "^(?:%s)\\(" % "|".join(re.escape(b) for b in benchmarks)}


def sort_out_failures(project, machine, releases, envs, names, asv_extra):
    """After an asv run with failures: each failed point run again alone (crashes.py). 0
    when every one was MXNet's crash (recorded as such: data about the release on this CPU,
    not a failure of the command), else asv's status."""
    flavor_of = dict((env, flavor) for flavor, env in project.environment_names().items())
    crashed, failed = [], []
    for release in releases:
        for env in envs:
            c, f = crashes.sort_out_failures(project, machine, release,
                                             flavor_of.get(env, env), env, names, asv_extra)
            crashed += c
            failed += f
    return errors.OK if crashed and not failed else ASV_FAILURES
