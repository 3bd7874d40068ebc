"""python -m mxbench adhoc: the front of adhoc's timings (mxbench/inside/adhoc.py)."""
import argparse
import os
import sys

from mxbench.core import errors
from mxbench.core.arguments import at_least, parse_kwargs, parse_shape, positive_int
from mxbench.core.tables import FORMATS, write_output
from mxbench.inside import adhoc


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "adhoc", help="time operators on the installed MXNet, without asv",
        description=adhoc.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--op", action="append", metavar="NAME",
                      help="operator (softmax, linalg_gemm2) or one form of it (LeakyReLU_elu); "
                           "repeatable")
    what.add_argument("--category", action="append", metavar="NAME",
                      help="every catalogue entry of a category; repeatable")
    what.add_argument("--all", action="store_true", help="the whole catalogue")
    what.add_argument("--list", action="store_true", help="list the catalogue and exit")
    parser.add_argument("--shape", action="append", type=parse_shape, metavar="D0,D1,...",
                        help="an input shape (repeat for each input; --op only)")
    parser.add_argument("--case", action="append", metavar="CLASS",
                        help="catalogue shape class (small, medium, ...) or field case "
                             "(field-17980, ...); repeatable")
    parser.add_argument("--dtype", action="append", metavar="DTYPE",
                        help="dtype (default: the catalogue's dtypes); repeatable")
    parser.add_argument("--ctx", default="cpu", help="cpu or gpu (default cpu)")
    parser.add_argument("--kwargs", type=parse_kwargs, metavar="JSON",
                        help="operator keyword arguments, e.g. '{\"axis\": -1}'")
    parser.add_argument("--runs", type=positive_int, default=adhoc.DEFAULT_RUNS)
    parser.add_argument("--warmup", type=at_least(0), default=adhoc.DEFAULT_WARMUP)
    parser.add_argument("--no-backward", action="store_true", help="time the forward only")
    parser.add_argument("--profile", action="store_true",
                        help="add kernel times from MXNet's aggregate profiler")
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("-o", "--output", help="file to write (default: stdout)")
    parser.set_defaults(func=cmd_adhoc, needs_project=False)
    return parser


def cmd_adhoc(args):
    if args.list:
        sys.stdout.write(adhoc.list_catalogue())
        return errors.OK
    jobs = adhoc.planned_jobs(args.output, args.op, args.category, args.shape, args.case,
                              args.dtype, args.kwargs, False if args.no_backward else None)
    rows = adhoc.run_jobs(jobs, args.ctx, args.runs, args.warmup, args.profile,
                          announce=not os.environ.get(adhoc.CHILD_ENV))
    if args.profile and adhoc.profiler_problem():
        print("mxbench.adhoc: " + adhoc.profiler_problem(), file=sys.stderr)
    write_output(adhoc.render(rows, args.format), args.output)
    print("mxbench.adhoc: " + adhoc.summary_line(rows), file=sys.stderr)
    return adhoc.exit_code(rows)
