"""python -m mxbench dispatch: the front of the dispatch floor (mxbench/inside/dispatch.py)."""
import argparse

from mxbench.core import errors
from mxbench.core.arguments import positive_int
from mxbench.inside import dispatch


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "dispatch", help="the installed MXNet's dispatch floor under each A/B variant",
        description=dispatch.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", help="env_matrix/variants.json name")
    parser.add_argument("--processes", type=positive_int, default=8,
                        help="fresh processes per variant")
    parser.add_argument("--samples", type=positive_int, default=40, help="samples per process")
    parser.add_argument("--calls", type=positive_int, default=200, help="calls per sample")
    parser.set_defaults(func=cmd_dispatch, needs_project=False)
    return parser


def cmd_dispatch(args):
    found = dispatch.floors(args.variant or dispatch.DEFAULT_VARIANTS, args.processes,
                            args.samples, args.calls)
    print(dispatch.floors_table(found))
    return errors.OK
