"""`mxbench run`: record the selection's unmeasured points of some releases into results/."""
import os
import re

from tabulate import tabulate

from benchmarks.catalogue import crashes as known_crashes

from mxbench.asvrun import crashes
from mxbench.asvrun import runner
from mxbench.core import errors, results
from mxbench.core import selection as point_selection
from mxbench.core.arguments import allow_busy_argument, bench_argument, flavor_argument
from mxbench.core.errors import UserError


def setup_arguments(subparsers):
    run = subparsers.add_parser(
        "run", help="benchmark releases (default: the newest two final releases)")
    run.add_argument("releases", nargs="*", help="release versions, e.g. 1.8.0.post0 1.9.1")
    run.add_argument("--minor-lines", action="store_true",
                     help="the newest final release of every minor line each flavor can run")
    flavor_argument(run, many=True)
    run.add_argument("--variant", action="append",
                     help="only this A/B variant (repeatable; with --config asv.variants.conf.json)")
    run.add_argument("--selection", choices=point_selection.SELECTIONS,
                     help="short: every benchmark, a few points each (the default); long: "
                          "every point (the default within an explicit --bench); field: the "
                          "short selection's field cases alone (documented changes' shapes)")
    bench_argument(run, "asv benchmark regex (default: all but bench_models and "
                        "bench_instructions)")
    run.add_argument("--quick", action="store_true", help="one sample each (smoke run)")
    run.add_argument("--rerun", action="store_true", help="measure again what is recorded")
    allow_busy_argument(run)
    run.set_defaults(func=cmd_run, takes_asv_args=True)
    return run


# The default selection leaves out the model-derived benchmarks (bench_models: about 25
# minutes per release and flavor here) and the instruction counts (bench_instructions: one
# Valgrind process over its whole table, docs/instructions.md); they run when named:
# --bench '^bench_models\.', --bench '^bench_instructions\.'.
DEFAULT_BENCH = r"^(?!bench_models\.|bench_instructions\.)"


def print_plan(project, releases, flavors):
    """What each (release, flavor) will install, so a missing build is said up front."""
    rows = [[project.matrix.label(r)] + [project.wheel(r, f).describe() for f in flavors]
            for r in releases]
    print(tabulate(rows, headers=["release"] + flavors), flush=True)


def bench_regex(args):
    """--bench compiled (a bad regex: UserError), or the default selection's."""
    try:
        return re.compile(args.bench or DEFAULT_BENCH)
    except re.error as exc:
        raise UserError("--bench %r is not a regular expression (%s)" % (args.bench, exc))


def bench_selects(regex, name):
    """asv -b's rule: the regex is tried on the benchmark's name, then on the point's
    'name(param, ...)', so an anchor on the bare name selects all its points."""
    return bool(regex.search(name.partition("(")[0]) or regex.search(name))


def require_bench_selects(project, args, flavors):
    """An explicit --bench that selects no point of the suite (on these flavors' devices):
    UserError, before anything is recorded."""
    if not args.bench:
        return
    regex = bench_regex(args)
    devices = sorted(set(project.matrix.flavor(f).device for f in flavors))
    selection = point_selection.chosen(args)
    for benchmark in point_selection.discover():
        for point in point_selection.selected_points(benchmark, selection, devices):
            if bench_selects(regex, point_selection.point_name(benchmark, point)):
                return
    raise UserError("--bench %r selects no benchmark point (%s selection, device %s): nothing "
                    "to run; asv's -b matches 'module.Class.method' and "
                    "'module.Class.method(param, ...)'" % (args.bench, selection,
                                                            "/".join(devices)))


def cmd_run(args):
    project = args.project
    flavors = args.flavor or project.flavors
    for flavor in flavors:
        project.matrix.flavor(flavor)
    require_bench_selects(project, args, flavors)
    with runner.recording(project):
        return run_flavors(project, args, flavors)


def run_flavors(project, args, flavors):
    if args.minor_lines:
        releases = project.newest_per_minor_line(flavors)
    else:
        # Defaults choose final releases: `make bench` stays 1.9.0 and 1.9.1 with the 2.0
        # pre-releases on the ladder. A pre-release runs when named (mxbench run 2.0.0b1).
        releases = args.releases or project.matrix.final_releases()[-2:]
    for release in releases:
        project.matrix.check_release(release)
    print_plan(project, releases, flavors)
    project.ensure_ladder()
    machine = runner.ensure_machine(args.machine, project.store)
    variants = args.variant or project.variants
    # One asv run per set of releases that have a build: an environment is never run on a
    # release it has no wheel for (its benchmarks could only skip, minutes for nothing).
    runs, devices = {}, {}
    for flavor in flavors:
        built = tuple(project.built_releases(flavor, releases))
        envs = [project.environment(flavor, variant) for variant in variants]
        if built:
            runs.setdefault(built, []).extend(envs)
            devices.setdefault(built, set()).add(project.matrix.flavor(flavor).device)
        else:
            print("%s: no build of %s here: not run" % (flavor, ", ".join(releases)), flush=True)
    code = errors.OK
    for built, envs in runs.items():
        code = max(code, run_releases(project, machine, built, envs, args, args.asv_args,
                                      sorted(devices[built])))
    print_summary(project, machine, releases, flavors, variants)
    return code


def run_releases(project, machine, releases, envs, args, asv_extra, devices):
    """`asv run` (recorded through the results store) of these releases in these
    environments: the selection's points that are not measured yet (all with --rerun).
    Releases that need the same points share one run."""
    project.store.require_valid(machine, [project.commit(r) for r in releases])
    # before reading what is measured: a killed run's staged files count, and its staging
    # is cleared even when nothing is left to measure
    runner.recover_interrupted_runs(project, machine)
    selection = point_selection.chosen(args)
    benchmarks = point_selection.discover()
    regex = bench_regex(args)

    def names_to_measure(release, env):
        names = point_selection.to_measure(
            benchmarks, selection, devices, project.store, machine, project.commit(release),
            [env], rerun=args.rerun, release=release)
        return [n for n in names if bench_selects(regex, n)]
    code = errors.OK
    for names, group, group_envs in run_groups(releases, envs, names_to_measure):
        where = "" if len(group_envs) == len(envs) else " (%s)" % ", ".join(group_envs)
        print("%s selection, %s%s: %d point(s) to measure"
              % (selection, ", ".join(group), where, len(names)), flush=True)
        if names:
            extra = (["--quick"] if args.quick else []) + list(asv_extra)
            recorded = record_points(project, machine, group, group_envs, names, extra,
                                     allow_busy=args.allow_busy)
            if recorded == ASV_FAILURES:
                recorded = sort_out_failures(project, machine, group, group_envs, names, extra)
            code = max(code, recorded)
    return code


ASV_FAILURES = 2  # asv run's exit status when a benchmark failed (passed on as it is)


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


# benchmarks/bench_instructions.py's SELECTION_VARIABLE (the host does not import the
# benchmarks; tests/test_counts.py keeps the two equal)
INSTRUCTION_POINTS = "MXBENCH_INSTRUCTION_POINTS"


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


def print_summary(project, machine, releases, flavors, variants):
    """What the run left in results/, what had no build, and what to run next."""
    store = project.store
    rows, bugs = [], {}
    for release in releases:
        row = [project.matrix.label(release)]
        for flavor in flavors:
            wheel = project.wheel(release, flavor)
            if wheel.status != "ok":
                row.append(wheel.status)
                continue
            cells = []
            for variant in variants:
                path = store.filename(machine, project.commit(release),
                                      project.environment(flavor, variant))
                label = "" if len(variants) == 1 else variant + ": "
                if os.path.exists(path):
                    counts = results.point_counts(path)
                    known = point_selection.known_bug_points(
                        store, machine, project.commit(release),
                        project.environment(flavor, variant), release,
                        [project.matrix.flavor(flavor).device])
                    for point, row_ in known:
                        key = (point.name, flavor, row_["what"],
                               known_crashes.cpu_text(row_.get("cpu")))
                        bugs.setdefault(key, []).append(release)
                    crashed = sum(1 for point, _ in known if point.value is None)
                    counts.update(bugs=len(known), failed=counts["failed"] - crashed,
                                  skipped=counts["skipped"] - (len(known) - crashed))
                    cells.append(label + "%(measured)d measured, %(failed)d failed, %(bugs)d "
                                 "MXNet crash(es), %(skipped)d n/a (skipped or not run)"
                                 % counts)
                else:
                    cells.append(label + "not recorded")
            row.append("; ".join(cells))
        rows.append(row)
    where = os.path.relpath(store.machine_dir(machine))
    where = store.machine_dir(machine) if where.startswith("..") else where
    print("\nsummary: result files of machine %s in %s/ (points in each file)" % (machine, where))
    print(tabulate(rows, headers=["release"] + flavors))
    if bugs:  # MXNet's, not the suite's: they do not fail the run and are not run again
        print("MXNet crashes: the process dies on these points of these releases on this CPU "
              "kind (%s; not run again):" % known_crashes.crashes_file_label())
        for (name, flavor, what, cpu), where in sorted(bugs.items()):
            print("  %s on %s (%s, %s): %s" % (
                name, ", ".join(sorted(set(where), key=releases.index)), flavor, cpu, what))
    order = project.matrix.releases()
    ordered = sorted(releases, key=order.index)
    if len(ordered) >= 2:
        print("next: python -m mxbench compare %s %s      # the two side by side, per flavor"
              % (ordered[0], ordered[-1]))
    print("      python -m mxbench publish && asv preview   # the site (html/)")
    print("      git status results/   # new results are files in this checkout: commit them "
          "to keep them with the history")
