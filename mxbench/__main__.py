"""python -m mxbench: set up and run the suite over the release ladder.

    python -m mxbench setup                      ladder + asv machine entry
    python -m mxbench run [RELEASE ...] [-- ASV ARGS]   asv run for those releases (default:
                                                 the newest final release and the one
                                                 before it; pre-releases run when named)
    python -m mxbench find RANGE BENCH --flavor F   asv find for one flavor, across gaps
    python -m mxbench run RELEASE --variant V    an A/B variant (asv.variants.conf.json)
    python -m mxbench check BASE HEAD            asv continuous for a change, and a second
                                                 pass over what it flags: exit 1 on a
                                                 significant slow-down beyond --factor
    python -m mxbench compare BASE HEAD          asv compare of two recorded releases, per
                                                 flavor, on a machine that has both
    python -m mxbench merge DIR ...              fold other machines' results directories
                                                 (CI artifacts) into results/
    python -m mxbench ci-matrix --device cpu     the (release, flavor) jobs of the CI matrix,
                                                 as JSON for GitHub Actions

Ctrl-C: asv stops, what finished is kept, exit 130. A results file that cannot be used is
named and the command exits 2 without running or answering.

Other tools: python -m env_matrix (release x flavor table), python -m mxbench.coverage,
python -m mxbench.export, python -m mxbench.adhoc.
"""
import signal
import sys


def _interrupted_while_starting(signum, frame):
    # Ctrl-C or SIGTERM during the imports below: nothing has run, so nothing to keep.
    sys.stderr.write("interrupted: while starting, before anything ran\n")
    sys.exit(130 if signum == signal.SIGINT else 143)


if __name__ == "__main__":  # run as a command, not imported (by a test)
    signal.signal(signal.SIGINT, _interrupted_while_starting)
    signal.signal(signal.SIGTERM, _interrupted_while_starting)

import argparse  # noqa: E402  (after the handlers: an interrupt here is one line too)
import os  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402

from tabulate import tabulate
from env_matrix.matrix import MatrixError

from . import asvtools
from . import check as change_check
from . import project as project_model
from .changes import positive_factor
from . import results
from . import selection as point_selection
from .results import ResultsProblem


def cmd_setup(args):
    head, changed = args.project.ensure_ladder()
    print("ladder: %s (head %s)" % ("written" if changed else "up to date", head[:8]))
    name = asvtools.ensure_machine(args.machine)
    print("asv machine: %s" % name)
    return 0


# The default selection leaves out the model-derived benchmarks (bench_models: about 25
# minutes per release and flavor here); they run when named: --bench '^bench_models\.'.
DEFAULT_BENCH = r"^(?!bench_models\.)"


def print_plan(project, releases, flavors):
    """What each (release, flavor) will install, so a missing build is said up front."""
    rows = [[project.matrix.label(r)] + [project.wheel(r, f).describe() for f in flavors]
            for r in releases]
    print(tabulate(rows, headers=["release"] + flavors), flush=True)


def cmd_run(args, asv_extra):
    project = args.project
    flavors = args.flavor or project.flavors
    for flavor in flavors:
        project.matrix.flavor(flavor)
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
    machine = asvtools.ensure_machine(args.machine)
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
    code = 0
    for built, envs in runs.items():
        code = max(code, run_releases(project, machine, built, envs, args, asv_extra,
                                      sorted(devices[built])))
    print_summary(project, machine, releases, flavors, variants)
    return code


def selection_of(args):
    """--selection, else long within an explicit --bench (the regex is the choice), else
    short."""
    return args.selection or ("long" if args.bench else point_selection.DEFAULT_SELECTION)


def run_releases(project, machine, releases, envs, args, asv_extra, devices):
    """`asv run` (recorded through the results store) of these releases in these
    environments: the selection's points that are not measured yet (all with --rerun).
    Releases that need the same points share one run."""
    project.store.require_valid(machine, [project.commit(r) for r in releases])
    # before reading what is measured: a killed run's staged files count, and its staging
    # is cleared even when nothing is left to measure
    asvtools.recover_interrupted_runs(project, machine)
    selection = selection_of(args)
    benchmarks = point_selection.discover()
    groups = {}
    for release in releases:
        names = point_selection.to_measure(
            benchmarks, selection, devices, project.store, machine, project.commit(release),
            envs, rerun=args.rerun)
        names = [n for n in names if re.search(args.bench or DEFAULT_BENCH, n)]
        groups.setdefault(tuple(names), []).append(release)
    code = 0
    for names, group in groups.items():
        print("%s selection, %s: %d point(s) to measure" % (selection, ", ".join(group),
                                                            len(names)), flush=True)
        if names:
            code = max(code, record_points(project, machine, group, envs, names, args,
                                           asv_extra))
    return code


def record_points(project, machine, releases, envs, names, args, asv_extra):
    commits = [project.commit(r) for r in releases]
    # HASHFILE: exactly these commits, whatever their order on the ladder.
    with tempfile.NamedTemporaryFile("w", suffix=".hashes", delete=False) as fh:
        fh.write("\n".join(commits) + "\n")
        hashfile = fh.name
    # The points are chosen above (resuming: what is measured is not redone, what failed
    # is tried again), so asv runs exactly them.
    asv_args = ["HASHFILE:%s" % hashfile, "--record-samples"]
    for env in envs:
        asv_args += ["-E", env]
    for regex in point_selection.names_regexes(list(names)):
        asv_args += ["-b", regex]
    if args.quick:
        asv_args += ["--quick"]
    try:
        return asvtools.record(project, machine, commits, asv_args + list(asv_extra))
    finally:
        os.unlink(hashfile)


def print_summary(project, machine, releases, flavors, variants):
    """What the run left in results/, what had no build, and what to run next."""
    store = project.store
    rows = []
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
                    cells.append(label + "%(measured)d measured, %(failed)d failed, %(skipped)d "
                                 "n/a (skipped or not run)" % results.point_counts(path))
                else:
                    cells.append(label + "not recorded")
            row.append("; ".join(cells))
        rows.append(row)
    where = os.path.relpath(store.machine_dir(machine))
    where = store.machine_dir(machine) if where.startswith("..") else where
    print("\nsummary: result files of machine %s in %s/ (points in each file)" % (machine, where))
    print(tabulate(rows, headers=["release"] + flavors))
    order = project.matrix.releases()
    ordered = sorted(releases, key=order.index)
    if len(ordered) >= 2:
        print("next: python -m mxbench compare %s %s      # the two side by side, per flavor"
              % (ordered[0], ordered[-1]))
    print("      python -m mxbench.publish && asv preview   # the site (html/)")
    print("      git status results/   # new results are files in this checkout: commit them "
          "to keep them with the history")


def cmd_check(args, asv_extra):
    # the default points: the short selection, but for the roofline rates; an explicit -b
    # picks from the whole grid unless --selection says otherwise
    selection = selection_of(args)
    return change_check.run_check(args.project, args.base, args.head, args.flavor,
                                  args.variant, args.factor, args.bench or change_check.CHECK_BENCH,
                                  args.machine, asv_extra, confirm=not args.no_second_pass,
                                  selection=selection)


def compare_machine(project, requested, commits, env_name):
    """The machine whose results `compare` uses: the one asked for, else this machine when
    it has both releases, else the only machine that has them."""
    return asvtools.reading_machine(
        project.store, requested,
        lambda m: all(project.store.has(m, c, env_name) for c in commits),
        "both releases in %s" % env_name)


def cmd_compare(args, asv_extra):
    """Real `asv compare`, after the files it reads are validated, per flavor."""
    project = args.project
    commits = [project.commit(r) for r in (args.base, args.head)]
    code = 0
    for flavor in args.flavor or project.flavors:
        env_name = project.environment(flavor)
        missing = [r for r in (args.base, args.head) if project.wheel(r, flavor).status != "ok"]
        if missing:
            print("%s: no build of %s here (%s)" % (flavor, " or ".join(missing),
                                                     project.wheel(missing[0], flavor).describe()))
            continue
        machine = compare_machine(project, args.machine, commits, env_name)
        project.store.require_valid(machine, commits)
        print("%s: results of machine %s" % (flavor, machine), flush=True)
        asv_args = ["compare", "--machine", machine, "-E", env_name, "--factor", str(args.factor)]
        if args.only_changed:
            asv_args.append("--only-changed")
        rows = GpuRowFilter(project.matrix.flavor(flavor).device)
        code = max(code, asvtools.run_asv(asv_args + asv_extra + commits, config=project.config,
                                          cwd=project.base, keep_line=rows.keep))
        if rows.left_out:
            print("(%d rows of device='gpu' points left out: %s has no GPU, they only skip)"
                  % (rows.left_out, flavor))
    return code


class GpuRowFilter(object):
    """Leaves out asv compare's rows of GPU parameter points in a CPU flavor's comparison:
    every benchmark class carries a device parameter, and on a CPU build its GPU points can
    only skip (n/a)."""

    def __init__(self, device):
        self.device = device
        self.left_out = 0

    def keep(self, line):
        if self.device != "gpu" and "'gpu')" in line:
            self.left_out += 1
            return False
        return True


def cmd_merge(args):
    store = args.project.store
    for source in args.dirs:
        merged, notes = results.merge_results_dir(store, source)
        for machine, count in sorted(merged.items()):
            print("%s: %s: %d result file(s) merged into %s"
                  % (source, machine, count, store.results_dir))
        for note in notes:
            print("note: %s" % note)
    return 0


def cmd_ci_matrix(args):
    """The (release, flavor) jobs for the CI workflow (.github/workflows/matrix.yml): every pair
    with a wheel that runs in the default environment (Python 3.11; the 1.2.x line, which needs
    3.7, stays with `make history-py37`), the newest release of each minor line or those named."""
    import json
    project = args.project
    matrix = project.matrix
    # CPU: the default flavors; GPU: those that need only the driver (CUDA from PyPI).
    flavors = args.flavor or [name for name, fl in matrix.flavors.items()
                              if fl.device == args.device and (fl.default or fl.runtime)]
    env = matrix.default_environment()
    jobs = []
    for flavor in flavors:
        releases = args.releases or project.newest_per_minor_line([flavor])
        for release in releases:
            if matrix.resolve(release, flavor, env.python, env.numpy).status == "ok":
                jobs.append({"release": release, "flavor": flavor})
    print(json.dumps({"include": jobs}))
    return 0


def cmd_find(args):
    from .bisect import Bisection
    return Bisection(args.project, args.benchmark, args.flavor, args.machine, args.invert,
                     args.factor).run(args.range)


def terminate(signum, frame):
    raise asvtools.Interrupted(signum)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mxbench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=project_model.DEFAULT_CONFIG,
                        help="asv config (asv.gpu.conf.json for the GPU flavors)")
    parser.add_argument("--machine", help="asv machine name (default: from the hardware)")
    parser.add_argument("--results", metavar="DIR",
                        help="record in / read from this results directory instead of the "
                             "config's (e.g. experiments for an A/A run of the defaults)")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("setup", help="create the ladder and the asv machine entry")

    run = sub.add_parser("run", help="benchmark releases (default: the newest two final releases)")
    run.add_argument("releases", nargs="*", help="release versions, e.g. 1.8.0.post0 1.9.1")
    run.add_argument("--minor-lines", action="store_true",
                     help="the newest final release of every minor line each flavor can run")
    run.add_argument("--flavor", action="append", help="only this flavor (repeatable)")
    run.add_argument("--variant", action="append",
                     help="only this A/B variant (repeatable; with --config asv.variants.conf.json)")
    run.add_argument("--selection", choices=point_selection.SELECTIONS,
                     help="short: every benchmark, a few points each (the default); long: "
                          "every point (the default within an explicit --bench)")
    run.add_argument("--bench", "-b", help="asv benchmark regex (default: all but bench_models)")
    run.add_argument("--quick", action="store_true", help="one sample each (smoke run)")
    run.add_argument("--rerun", action="store_true", help="measure again what is recorded")

    check = sub.add_parser("check", help="asv continuous BASE HEAD: exit 1 on a regression")
    check.add_argument("base", help="release to compare against, e.g. 1.9.0")
    check.add_argument("head", help="release to check, e.g. 1.9.1")
    check.add_argument("--flavor", default="cpu-mkldnn")
    check.add_argument("--variant", default=change_check.CHECK_VARIANT,
                       help="how MXNet runs (env_matrix/variants.json; default: %(default)s)")
    check.add_argument("--factor", type=positive_factor, default=change_check.CHECK_FACTOR,
                       help="slow-down that fails the check (default: %(default)s)")
    check.add_argument("--selection", choices=point_selection.SELECTIONS,
                       help="short (the default) or long; with --bench: long")
    check.add_argument("--bench", "-b",
                       help="asv benchmark regex (default: all but the roofline rates)")
    check.add_argument("--no-second-pass", action="store_true",
                       help="fail on the first pass's flags (no re-measurement)")

    compare = sub.add_parser("compare", help="asv compare of two recorded releases, per flavor")
    compare.add_argument("base", help="e.g. 1.8.0.post0")
    compare.add_argument("head", help="e.g. 1.9.1")
    compare.add_argument("--flavor", action="append", help="only this flavor (repeatable)")
    compare.add_argument("--factor", type=positive_factor, default=1.1,
                         help="ratio asv compare marks as a change (default: %(default)s)")
    compare.add_argument("--only-changed", action="store_true",
                         help="only the points asv marks as changed")

    find = sub.add_parser("find", help="bisect a change across the ladder for one flavor")
    find.add_argument("range", help="GOOD..BAD, both included, e.g. 1.6.0..1.9.1")
    find.add_argument("benchmark", help="exact benchmark name")
    find.add_argument("--flavor", default="cpu-mkldnn")
    find.add_argument("--invert", action="store_true", help="look for an improvement")
    find.add_argument("--factor", type=positive_factor, default=1.2,
                      help="a point moved when asv compare would flag it at this factor")

    merge = sub.add_parser("merge", help="merge results directories of other machines (CI)")
    merge.add_argument("dirs", nargs="+", metavar="DIR",
                       help="a results directory: DIR/<machine>/*.json (+ benchmarks.json)")

    ci_matrix = sub.add_parser("ci-matrix", help="the CI workflow's jobs, as JSON")
    ci_matrix.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
    ci_matrix.add_argument("--flavor", action="append", help="only this flavor (repeatable)")
    ci_matrix.add_argument("releases", nargs="*", help="default: newest of each minor line")

    # Anything after `--` goes to asv as it is (e.g. `-- -a rounds=1 --show-stderr`).
    argv = list(sys.argv[1:] if argv is None else argv)
    asv_extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if asv_extra and args.command not in ("run", "check", "compare"):
        parser.error("asv arguments after -- are for `run`, `check` and `compare` only")
    chosen = getattr(args, "variant", None) or []
    signal.signal(signal.SIGINT, signal.default_int_handler)  # KeyboardInterrupt from here on
    signal.signal(signal.SIGTERM, terminate)  # like Ctrl-C: one line, exit 143, nothing lost
    try:
        args.project = project_model.load(args.config, args.results).for_variants(
            [chosen] if isinstance(chosen, str) else chosen)
        if args.command == "run":
            return cmd_run(args, asv_extra)
        if args.command == "check":
            return cmd_check(args, asv_extra)
        if args.command == "compare":
            return cmd_compare(args, asv_extra)
        return {"setup": cmd_setup, "find": cmd_find, "merge": cmd_merge,
                "ci-matrix": cmd_ci_matrix}[args.command](args)
    except MatrixError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    except ResultsProblem as exc:
        print("error: results that cannot be used (restore them with `git checkout -- FILE`, "
              "or move them aside to measure again):\n%s" % exc, file=sys.stderr)
        return 2
    except (asvtools.Interrupted, KeyboardInterrupt) as exc:
        print("interrupted: what finished is kept in results/; run the same command again "
              "to resume", file=sys.stderr)
        return getattr(exc, "exit_code", 130)


if __name__ == "__main__":
    sys.exit(main())
