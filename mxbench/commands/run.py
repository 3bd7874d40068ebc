"""`mxbench run`: record the selection's unmeasured points of some releases into results/."""
from mxbench.asvrun import release_runs, runner
from mxbench.core import errors
from mxbench.core import selection as point_selection
from mxbench.core.arguments import allow_busy_argument, bench_argument, flavor_argument
from mxbench.reports import run_summary


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
    run.set_defaults(func=cmd_run, takes_asv_args="run")
    return run


def cmd_run(args):
    project = args.project
    flavors = args.flavor or project.flavors
    for flavor in flavors:
        project.matrix.flavor(flavor)
    selection = point_selection.chosen(args)
    release_runs.require_bench_selects(project, args.bench, selection, flavors)
    choice = release_runs.Choice(selection, release_runs.bench_regex(args.bench),
                                 (["--quick"] if args.quick else []) + list(args.asv_args),
                                 args.rerun, args.allow_busy)
    with runner.recording(project):
        return run_flavors(project, args, flavors, choice)


def run_flavors(project, args, flavors, choice):
    releases = release_runs.releases_to_run(project, flavors, args.releases, args.minor_lines)
    print(run_summary.plan_text(project, releases, flavors), flush=True)
    project.ensure_ladder()
    machine = runner.ensure_machine(args.machine, project.store)
    variants = args.variant or project.variants
    runs, unbuilt = release_runs.runs_by_build(project, releases, flavors, variants)
    for flavor in unbuilt:
        print("%s: no build of %s here: not run" % (flavor, ", ".join(releases)), flush=True)
    code = errors.OK
    for built, envs, devices in runs:
        code = max(code, release_runs.run_releases(project, machine, built, envs, devices,
                                                   choice))
    print(run_summary.summary_text(project, machine, releases, flavors, variants))
    return code
