"""`mxbench check BASE HEAD`: asv continuous, then a second pass over what regressed.

Every point the first pass flags is measured again on both releases, and only a slow-down
flagged twice fails the check. Results go to .asv/check-results, not results/. Exit codes
are asv continuous's (0 no slow-down beyond the factor, 1 a regression, 2 a failure), and 2
when no point was measured on both releases. The defaults and their figures: docs/check.md.
"""
import os
import re

from env_matrix.matrix import MatrixError
from mxbench.asvrun import runner
from mxbench.core import errors
from mxbench.core import selection as point_selection
from mxbench.core.arguments import bench_argument, factor_argument, flavor_argument
from mxbench.core.change_rule import compare
from mxbench.core.project import DEFAULT_CONFIG, ROOT, load as load_project
from mxbench.core.results import Store, by_name

# The gating check's defaults (docs/check.md): the variant whose A/A pairs are quietest;
# the factor at which no slow-down of either low-noise A/A pair was flagged in both passes;
# every benchmark but the roofline rates (GB/s, GFLOP/s: higher is better, which asv
# continuous would call a regression), the model benchmarks and the instruction counts (a
# Valgrind process over their whole table: named with -b when wanted).
CHECK_VARIANT = "low-noise"
CHECK_FACTOR = 1.3
CHECK_BENCH = r"^(?!bench_roofline\.|bench_models\.|bench_instructions\.)"
NO_VERDICT = errors.USAGE


def setup_arguments(subparsers):
    check = subparsers.add_parser("check", help="asv continuous BASE HEAD: exit 1 on a regression")
    check.add_argument("base", help="release to compare against, e.g. 1.9.0")
    check.add_argument("head", help="release to check, e.g. 1.9.1")
    flavor_argument(check)
    check.add_argument("--variant", default=CHECK_VARIANT,
                       help="how MXNet runs (env_matrix/variants.json; default: %(default)s)")
    factor_argument(check, CHECK_FACTOR, help="slow-down that fails the check")
    check.add_argument("--selection", choices=point_selection.SELECTIONS,
                       help="short (the default) or long; with --bench: long")
    bench_argument(check, "asv benchmark regex (default: all but the roofline rates)")
    check.add_argument("--no-second-pass", action="store_true",
                       help="fail on the first pass's flags (no re-measurement)")
    check.set_defaults(func=cmd_check, takes_asv_args=True)
    return check


def cmd_check(args):
    # the default points: the short selection, but for the roofline rates; an explicit -b
    # picks from the whole grid unless --selection says otherwise
    return run_check(args.project, args.base, args.head, args.flavor, args.variant,
                     args.factor, args.bench or CHECK_BENCH, args.machine, args.asv_args,
                     confirm=not args.no_second_pass, selection=point_selection.chosen(args))


def check_store(project):
    """Where a check records: not results/, so that its subset runs never replace the
    recorded history of the two releases nor reach the published site (.asv is git-ignored)."""
    return Store(os.path.join(project.work_dir, "check-results"))


def forget_results(store, machine, commits, env_name):
    """A check starts clean: no points left over from an earlier check of these commits."""
    for commit in commits:
        path = store.filename(machine, commit, env_name)
        if os.path.exists(path):
            os.unlink(path)


def compared_points(store, machine, base, head, env_name, factor):
    """asv compare's verdict for every point measured on both sides."""
    before, after = (by_name(store.points(machine, c, env_name)) for c in (base, head))
    return compare(before, after, factor)


def print_count_notes(project, releases, flavor, regressed):
    """For each regressed point, whether its entry's instruction count moved between the
    releases (docs/instructions.md), read from the recorded history: results/ (or --results
    DIR), any machine, the flavor's default environment (counts ignore the variant)."""
    from mxbench.reports.changes import count_note, recorded_counts
    if not regressed:
        return
    history = load_project(DEFAULT_CONFIG, project.results_override)
    try:
        env_name = history.environment(flavor)
    except MatrixError:
        print("instruction counts: none for %s (counted on the CPU flavors only)" % flavor)
        return
    counts = [recorded_counts(history.store, history.commit(r), env_name) for r in releases]
    print("instruction counts of the regressed points (the recorded history, %s):"
          % os.path.relpath(history.results_dir, ROOT))
    for name in regressed:
        print("  " + count_note(name, counts, releases, flavor))


def check_regexes(project, flavor, selection, bench):
    """asv -b regexes for the points of the selection (on the flavor's device) that `bench`
    matches."""
    device = project.matrix.flavor(flavor).device
    names = [point_selection.point_name(b, p) for b in point_selection.discover()
             for p in point_selection.selected_points(b, selection, [device])]
    names = [n for n in names if re.search(bench, n)]
    return point_selection.names_regexes(names) or [point_selection.NOTHING]


def run_check(project, base_release, head_release, flavor, variant, factor, bench,
              machine=None, asv_extra=(), confirm=True, selection="long"):
    if base_release == head_release:  # asv would measure once and compare it with itself
        raise MatrixError("BASE and HEAD are both %s; for an A/A comparison run the release "
                          "twice and use python -m mxbench changes aa" % base_release)
    try:
        re.compile(bench)
    except re.error as exc:
        raise MatrixError("-b %r is not a regular expression (%s)" % (bench, exc))
    env_name = project.environment(flavor, variant)
    for release in (base_release, head_release):
        project.require_build(release, flavor)  # else asv records skips only: no verdict
    project.ensure_ladder()
    base, head = (project.commit(r) for r in (base_release, head_release))
    machine = runner.ensure_machine(machine)
    store = check_store(project)
    os.makedirs(store.results_dir, exist_ok=True)
    forget_results(store, machine, (base, head), env_name)
    check_config = runner.config_copy(
        project.config, os.path.join(project.work_dir, "check.conf.json"),
        results_dir=store.results_dir)

    def continuous(regexes):
        selected = [arg for regex in regexes for arg in ("-b", regex)]
        with runner.recording(project):  # it installs into the asv environments
            return runner.run_asv(["continuous", "--factor", str(factor), "--machine",
                                     machine, "-E", env_name, "--split"] + selected
                                    + list(asv_extra) + [base, head], config=check_config,
                                    cwd=project.base)

    code = continuous(check_regexes(project, flavor, selection, bench))
    compared = compared_points(store, machine, base, head, env_name, factor)
    if not compared:  # asv says "No benchmarks selected" and exits 1: that is no regression
        print("check %s -> %s, %s, %s: NO VERDICT: no benchmark point was measured on both "
              "releases (-b %s in the %s selection selects nothing, or every point failed or "
              "skipped) (exit %d)"
              % (base_release, head_release, flavor, variant, bench, selection, NO_VERDICT))
        return NO_VERDICT
    regressed = [c.name for c in compared if c.verdict == "slower"]
    if code == 1 and confirm and regressed:
        print("second pass: measuring again the %d flagged point(s): %s"
              % (len(regressed), ", ".join(regressed)), flush=True)
        code = continuous(point_selection.names_regexes(regressed))
        if code == 0:
            print("not confirmed: the second pass flags none of them", flush=True)
    if code == 1:
        print_count_notes(project, (base_release, head_release), flavor,
                          [c.name for c in compared_points(store, machine, base, head, env_name,
                                                           factor) if c.verdict == "slower"])
    verdict = {0: "no significant slow-down beyond %.2fx (%d points compared)"
                  % (factor, len(compared)),
               1: "REGRESSION: significantly slower beyond %.2fx%s"
                  % (factor, " in both passes" if confirm else ""),
               2: "a benchmark FAILED (see above)"}.get(code, "asv exited with %d" % code)
    print("check %s -> %s, %s, %s: %s (exit %d)"
          % (base_release, head_release, flavor, variant, verdict, code))
    return code
