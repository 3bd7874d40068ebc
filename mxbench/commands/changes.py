"""python -m mxbench changes: the front of the change reports (mxbench/reports/changes.py):
releases, between, lineage, aa and ab."""
import sys

from mxbench.asvrun import runner
from mxbench.core import errors
from mxbench.core.arguments import (command_group, factor_argument, flavor_argument,
                                    machine_or_path, positive_int)
from mxbench.core.tables import write_output
from mxbench.reports import changes


def setup_arguments(subparsers):
    parser, sub = command_group(
        subparsers, "changes",
        "significant differences between recorded results (releases, A/A, A/B)", changes.__doc__)
    factor_argument(parser)
    rel = sub.add_parser("releases", help="every pair of consecutive measured releases")
    rel.add_argument("--top", type=positive_int, default=10)
    rel.add_argument("-o", "--output", help="Markdown file (default: stdout)")
    rel.add_argument("--chart", help="PNG of the largest changes")
    rel.add_argument("--all-kinds", action="store_true",
                     help="also the track_ benchmarks (peak RSS, GB/s), not only timings")
    rel.add_argument("--lineage", metavar="PACKAGE", action="append",
                     help="add the package-lineage view of this PyPI package (default: mxnet)")
    rel.set_defaults(func=cmd_releases)
    between = sub.add_parser(
        "between", help="any two recordings, across flavors and Python environments")
    between.add_argument("before", metavar="RELEASE[:FLAVOR]", help="flavor default: cpu-mkldnn")
    between.add_argument("after", metavar="RELEASE[:FLAVOR]")
    between.set_defaults(func=cmd_between)
    lineage = sub.add_parser("lineage", help="what `pip install -U PACKAGE` changed, release "
                                             "by release, across flavors and environments")
    lineage.add_argument("package", help="a PyPI package of a CPU flavor: mxnet, mxnet-mkl, "
                                         "mxnet-native")
    lineage.set_defaults(func=cmd_lineage)
    for side in (between, lineage):
        side.add_argument("--top", type=positive_int, default=10)
    for name, what in (("aa", "the same release measured twice, under two machine names"),
                       ("ab", "the same release run two ways (A/B variants)")):
        side = sub.add_parser(name, help=what)
        for which in ("a", "b"):
            side.add_argument("--machine-" + which, type=machine_or_path,
                              help="the name it is recorded under (default: this machine's), "
                                   "looked up in experiments/ then results/; or a path "
                                   "RESULTS_DIR/NAME")
        side.add_argument("--variant-a", default="default", help="env_matrix/variants.json")
        side.add_argument("--variant-b", default="default")
        side.add_argument("--release", required=True)
        flavor_argument(side)
        side.add_argument("-v", "--verbose", action="store_true",
                          help="list every flagged point, and every instruction count that "
                               "differs")
        side.add_argument("--noise", metavar="FILE",
                          help="also count the timings beyond each point's noise in this "
                               "table (python -m mxbench noise)")
        side.set_defaults(func=cmd_side)
    return parser


def cmd_releases(args):
    machine = changes.checked_machine(args.project, args.machine)
    text, report, judge = changes.releases_markdown(
        args.project, machine, args.factor, args.top, timings_only=not args.all_kinds,
        lineage=args.lineage)
    if args.output:
        write_output(text, args.output)  # a folder that is not there: one line
        print("wrote %s" % args.output)
    else:
        sys.stdout.write(text)
    if args.chart:
        changes.chart(report, args.chart, 2 * args.top, judge)
        print("wrote %s" % args.chart)
    return errors.OK


def cmd_between(args):
    machine = changes.checked_machine(args.project, args.machine)
    print(changes.between_text(args.project, machine, args.before, args.after, args.factor,
                               args.top))
    return errors.OK


def cmd_lineage(args):
    machine = changes.checked_machine(args.project, args.machine)
    print(changes.package_lineage_text(args.project, machine, args.package, args.factor,
                                       args.top))
    return errors.OK


def cmd_side(args):
    """aa / ab: one release, two recordings (two experiment names, or two variants)."""
    this_machine = runner.machine_name()
    for line in changes.side_lines(
            args.project, {"aa": "A/A", "ab": "A/B"}[args.changes_command], args.release,
            args.flavor, (args.machine_a or this_machine, args.variant_a),
            (args.machine_b or this_machine, args.variant_b), args.factor,
            results_only=bool(args.results), noise_file=args.noise, verbose=args.verbose):
        print(line)
    return errors.OK
