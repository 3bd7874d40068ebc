"""`mxbench run`'s asv runs: which releases, which points are still to measure (the selection
within --bench), and the asv runs that record them, grouped so that no recorded point is
measured again."""
import re
from collections import namedtuple

from mxbench.asvrun import runner
from mxbench.asvrun.recording import ASV_FAILURES, record_points, sort_out_failures
from mxbench.core import errors
from mxbench.core import selection as point_selection
from mxbench.core.errors import UserError

# The default selection leaves out the model-derived benchmarks (bench_models: about 25
# minutes per release and flavor here) and the instruction counts (bench_instructions: one
# Valgrind process over its whole table, docs/instructions.md); they run when named:
# --bench '^bench_models\.', --bench '^bench_instructions\.'.
DEFAULT_BENCH = r"^(?!bench_models\.|bench_instructions\.)"

# What a run measures: the selection's points that `regex` selects (asv -b's rule), asv run's
# further arguments (`extra`), and whether recorded points are measured again (`rerun`).
Choice = namedtuple("Choice", "selection regex extra rerun allow_busy")


def bench_regex(bench):
    """--bench compiled (a bad regex: UserError), or the default selection's."""
    try:
        return re.compile(bench or DEFAULT_BENCH)
    except re.error as exc:
        raise UserError("--bench %r is not a regular expression (%s)" % (bench, exc))


def bench_selects(regex, name):
    """asv -b's rule: the regex is tried on the benchmark's name, then on the point's
    'name(param, ...)', so an anchor on the bare name selects all its points."""
    return bool(regex.search(name.partition("(")[0]) or regex.search(name))


def require_bench_selects(project, bench, selection, flavors):
    """An explicit --bench that selects no point of the suite (on these flavors' devices):
    UserError, before anything is recorded."""
    if not bench:
        return
    regex = bench_regex(bench)
    devices = sorted(set(project.matrix.flavor(f).device for f in flavors))
    for benchmark in point_selection.discover():
        for point in point_selection.selected_points(benchmark, selection, devices):
            if bench_selects(regex, point_selection.point_name(benchmark, point)):
                return
    raise UserError("--bench %r selects no benchmark point (%s selection, device %s): nothing "
                    "to run; asv's -b matches 'module.Class.method' and "
                    "'module.Class.method(param, ...)'" % (bench, selection, "/".join(devices)))


def releases_to_run(project, flavors, releases, minor_lines):
    """The releases named, the newest of every minor line (minor_lines), else the newest two
    final releases; each checked against the matrix."""
    if minor_lines:
        releases = project.newest_per_minor_line(flavors)
    else:
        # Defaults choose final releases: `make bench` stays 1.9.0 and 1.9.1 with the 2.0
        # pre-releases on the ladder. A pre-release runs when named (mxbench run 2.0.0b1).
        releases = releases or project.matrix.final_releases()[-2:]
    for release in releases:
        project.matrix.check_release(release)
    return releases


def runs_by_build(project, releases, flavors, variants):
    """([(releases, environments, devices)]: one asv run per set of releases that have a
    build, [the flavors with no build of any]): an environment is never run on a release it
    has no wheel for (its benchmarks could only skip, minutes for nothing)."""
    runs, devices, unbuilt = {}, {}, []
    for flavor in flavors:
        built = tuple(project.built_releases(flavor, releases))
        envs = [project.environment(flavor, variant) for variant in variants]
        if built:
            runs.setdefault(built, []).extend(envs)
            devices.setdefault(built, set()).add(project.matrix.flavor(flavor).device)
        else:
            unbuilt.append(flavor)
    return [(built, envs, sorted(devices[built])) for built, envs in runs.items()], unbuilt


def run_releases(project, machine, releases, envs, devices, choice):
    """`asv run` (recorded through the results store) of these releases in these
    environments: the selection's points that are not measured yet (all with rerun).
    Releases that need the same points share one run."""
    project.store.require_valid(machine, [project.commit(r) for r in releases])
    # before reading what is measured: a killed run's staged files count, and its staging
    # is cleared even when nothing is left to measure
    runner.recover_interrupted_runs(project, machine)
    benchmarks = point_selection.discover()

    def names_to_measure(release, env):
        names = point_selection.to_measure(
            benchmarks, choice.selection, devices, project.store, machine,
            project.commit(release), [env], rerun=choice.rerun, release=release)
        return [n for n in names if bench_selects(choice.regex, n)]
    code = errors.OK
    for names, group, group_envs in run_groups(releases, envs, names_to_measure):
        where = "" if len(group_envs) == len(envs) else " (%s)" % ", ".join(group_envs)
        print("%s selection, %s%s: %d point(s) to measure"
              % (choice.selection, ", ".join(group), where, len(names)), flush=True)
        if names:
            recorded = record_points(project, machine, group, group_envs, names, choice.extra,
                                     allow_busy=choice.allow_busy)
            if recorded == ASV_FAILURES:
                recorded = sort_out_failures(project, machine, group, group_envs, names,
                                             choice.extra)
            code = max(code, recorded)
    return code


def run_groups(releases, envs, names_to_measure):
    """[(point names, releases, environments)]: the asv runs that measure, for every release
    and environment, exactly names_to_measure(release, env). asv runs every point it is
    given in every commit and environment of the run, so a point recorded in one environment
    and missing in another must not share a run with the first (it would be measured again
    there, its recorded result replaced): a run is the releases that need the same points in
    the same environments."""
    wanted = dict(((release, env), tuple(names_to_measure(release, env)))
                  for release in releases for env in envs)
    by_envs = {}
    for release in releases:
        # the release's environments, grouped by what each needs
        needs = {}
        for env in envs:
            needs.setdefault(wanted[(release, env)], []).append(env)
        for names, env_group in needs.items():
            by_envs.setdefault((names, tuple(env_group)), []).append(release)
    return [(list(names), group, list(env_group))
            for (names, env_group), group in by_envs.items()]
