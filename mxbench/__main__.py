"""python -m mxbench: set up and run the suite over the release ladder.

    python -m mxbench setup                      ladder + asv machine entry
    python -m mxbench run [RELEASE ...] [-- ASV ARGS]   asv run for those releases (default:
                                                 the newest release and the one before it)
    python -m mxbench find RANGE BENCH --flavor F   asv find for one flavor, across gaps
    python -m mxbench run RELEASE --variant V    an A/B variant (asv.variants.conf.json)
    python -m mxbench check BASE HEAD            asv continuous for a change, and a second
                                                 pass over what it flags: exit 1 on a
                                                 significant slow-down beyond --factor

Other tools: python -m env_matrix (release x flavor table), python -m mxbench.coverage,
python -m mxbench.export, python -m mxbench.adhoc.
"""
import argparse
import os
import sys
import tempfile

from tabulate import tabulate
from env_matrix.ladder import tags
from env_matrix.matrix import OK, MatrixError, load

from . import asvtools
from . import check as change_check


def cmd_setup(args):
    head, changed = asvtools.ensure_ladder(args.config)
    print("ladder: %s (head %s)" % ("written" if changed else "up to date", head[:8]))
    name = asvtools.ensure_machine(args.machine)
    print("asv machine: %s" % name)
    return 0


def print_plan(matrix, releases, flavors, config):
    """What each (release, flavor) will install, so a missing build is said up front."""
    python, numpy = asvtools.python_and_numpy(asvtools.read_config(config))
    rows = [[r] + [matrix.resolve(r, f, python, numpy).describe() for f in flavors]
            for r in releases]
    print(tabulate(rows, headers=["release"] + flavors), flush=True)


def newest_per_minor_line(matrix, flavors, python, numpy):
    """For each flavor, the newest release of every minor line (1.0 ... 1.9) that it can run."""
    from packaging.version import Version
    chosen = set()
    for flavor in flavors:
        newest = {}
        for release in matrix.releases():
            if matrix.resolve(release, flavor, python, numpy).status == OK:
                newest[Version(release).release[:2]] = release
        chosen.update(newest.values())
    return sorted(chosen, key=Version)


def cmd_run(args, asv_extra):
    matrix = load()
    flavors = args.flavor or asvtools.config_flavors(args.config)
    if args.minor_lines:
        releases = newest_per_minor_line(
            matrix, flavors, *asvtools.python_and_numpy(asvtools.read_config(args.config)))
    else:
        releases = args.releases or matrix.releases()[-2:]
    for release in releases:
        matrix.check_release(release)
    print_plan(matrix, releases, flavors, args.config)
    asvtools.ensure_ladder(args.config)
    machine = asvtools.ensure_machine(args.machine)
    by_tag = tags(asvtools.project_dirs(args.config)[0])
    # HASHFILE: exactly these commits, whatever their order on the ladder.
    with tempfile.NamedTemporaryFile("w", suffix=".hashes", delete=False) as fh:
        fh.write("\n".join(by_tag[r] for r in releases) + "\n")
        hashfile = fh.name
    asv_args = ["run", "HASHFILE:%s" % hashfile, "--machine", machine, "--record-samples"]
    if not args.rerun:
        asv_args.append("--skip-existing")  # resumable: what is recorded is not redone
    if args.flavor or args.variant:
        variants = args.variant or sorted(set(v for _, _, v in asvtools.environments(args.config)))
        for flavor in flavors:
            for variant in variants:
                asv_args += ["-E", asvtools.environment_for_flavor(flavor, args.config, variant)]
    if args.bench:
        asv_args += ["-b", args.bench]
    if args.quick:
        asv_args += ["--quick"]
    asv_args += asv_extra
    try:
        return asvtools.run_asv(asv_args, config=args.config)
    finally:
        os.unlink(hashfile)


def cmd_check(args, asv_extra):
    return change_check.run_check(args.base, args.head, args.flavor, args.variant, args.factor,
                                  args.bench, args.config, args.machine, asv_extra,
                                  confirm=not args.no_second_pass)


def cmd_find(args):
    from .bisect import Bisection
    Bisection(args.benchmark, args.flavor, args.config, args.machine, args.invert).run(args.range)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mxbench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=asvtools.DEFAULT_CONFIG,
                        help="asv config (asv.gpu.conf.json for the GPU flavors)")
    parser.add_argument("--machine", help="asv machine name (default: from the hardware)")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("setup", help="create the ladder and the asv machine entry")

    run = sub.add_parser("run", help="benchmark releases (default: the newest two)")
    run.add_argument("releases", nargs="*", help="release versions, e.g. 1.8.0.post0 1.9.1")
    run.add_argument("--minor-lines", action="store_true",
                     help="the newest release of every minor line each flavor can run")
    run.add_argument("--flavor", action="append", help="only this flavor (repeatable)")
    run.add_argument("--variant", action="append",
                     help="only this A/B variant (repeatable; with --config asv.variants.conf.json)")
    run.add_argument("--bench", "-b", help="asv benchmark regex")
    run.add_argument("--quick", action="store_true", help="one sample each (smoke run)")
    run.add_argument("--rerun", action="store_true", help="measure again what is recorded")

    check = sub.add_parser("check", help="asv continuous BASE HEAD: exit 1 on a regression")
    check.add_argument("base", help="release to compare against, e.g. 1.9.0")
    check.add_argument("head", help="release to check, e.g. 1.9.1")
    check.add_argument("--flavor", default="cpu-mkldnn")
    check.add_argument("--variant", default=change_check.CHECK_VARIANT,
                       help="how MXNet runs (env_matrix/variants.json; default: %(default)s)")
    check.add_argument("--factor", type=float, default=change_check.CHECK_FACTOR,
                       help="slow-down that fails the check (default: %(default)s)")
    check.add_argument("--bench", "-b", default=change_check.CHECK_BENCH,
                       help="asv benchmark regex (default: all but the roofline rates)")
    check.add_argument("--no-second-pass", action="store_true",
                       help="fail on the first pass's flags (no re-measurement)")

    find = sub.add_parser("find", help="bisect a change across the ladder for one flavor")
    find.add_argument("range", help="e.g. 1.6.0..1.9.1")
    find.add_argument("benchmark", help="exact benchmark name")
    find.add_argument("--flavor", default="cpu-mkldnn")
    find.add_argument("--invert", action="store_true", help="look for an improvement")

    # Anything after `--` goes to asv as it is (e.g. `-- -a rounds=1 --show-stderr`).
    argv = list(sys.argv[1:] if argv is None else argv)
    asv_extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if asv_extra and args.command not in ("run", "check"):
        parser.error("asv arguments after -- are for `run` and `check` only")
    chosen = getattr(args, "variant", None) or []
    args.config = asvtools.config_for_variants(
        args.config, [chosen] if isinstance(chosen, str) else chosen)
    try:
        if args.command == "run":
            return cmd_run(args, asv_extra)
        if args.command == "check":
            return cmd_check(args, asv_extra)
        return {"setup": cmd_setup, "find": cmd_find}[args.command](args)
    except MatrixError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
