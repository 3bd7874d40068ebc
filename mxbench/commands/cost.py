"""python -m mxbench cost: the front of the cost report (mxbench/reports/cost.py)."""
import argparse

from mxbench.asvrun import runner
from mxbench.core import errors
from mxbench.core.arguments import flavor_argument, positive_int
from mxbench.reports import cost


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "cost", help="where the time of a recorded run goes (asv's durations, summed)",
        description=cost.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--release", required=True)
    flavor_argument(parser)
    parser.add_argument("--variant", default="default",
                        help="an A/B variant's run (env_matrix/variants.json; its results are "
                             "in experiments/)")
    parser.add_argument("--top", type=positive_int, default=15)
    parser.set_defaults(func=cmd_cost)
    return parser


def cmd_cost(args):
    project = args.project
    machine = runner.reading_machine(project.store, args.machine)
    label = args.flavor if args.variant == "default" else "%s/%s" % (args.flavor, args.variant)
    print(cost.cost_text(project.store, machine, project.commit(args.release),
                         project.environment(args.flavor, args.variant),
                         "%s %s" % (args.release, label), args.top))
    return errors.OK
