"""`mxbench check BASE HEAD`: asv continuous, then a second pass over what regressed.

Every point the first pass flags is measured again on both releases, and only a slow-down
flagged twice fails the check. Results go to .asv/check-results, not results/. Exit codes
are asv continuous's (0 no slow-down beyond the factor, 1 a regression, 2 a failure), and 2
when no point was measured on both releases. The defaults and their figures: docs/check.md.
"""
from mxbench.asvrun.check_run import run_check
from mxbench.core import errors
from mxbench.core import selection as point_selection
from mxbench.core.arguments import bench_argument, factor_argument, flavor_argument
from mxbench.reports import check as check_report

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
    check.set_defaults(func=cmd_check, takes_asv_args="continuous")
    return check


def cmd_check(args):
    # the default points: the short selection, but for the roofline rates; an explicit -b
    # picks from the whole grid unless --selection says otherwise
    bench, selection = args.bench or CHECK_BENCH, point_selection.chosen(args)
    pair, confirm = (args.base, args.head), not args.no_second_pass
    checked = run_check(args.project, args.base, args.head, args.flavor, args.variant,
                        args.factor, bench, args.machine, args.asv_args, confirm=confirm,
                        selection=selection)
    if not checked.compared:
        print(check_report.no_verdict_text(pair, args.flavor, args.variant, bench, selection,
                                           NO_VERDICT))
        return NO_VERDICT
    if checked.code == 1:
        print_count_notes(args.project, pair, args.flavor, checked.regressed)
    print(check_report.verdict_text(pair, args.flavor, args.variant, args.factor,
                                    checked.compared, confirm, checked.code))
    return checked.code


def print_count_notes(project, releases, flavor, regressed):
    """For each regressed point, whether its entry's instruction count moved (reports/check.py)."""
    for line in check_report.count_notes(project, releases, flavor, regressed):
        print(line)
