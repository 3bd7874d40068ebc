"""python -m mxbench export: the front of the results export (mxbench/reports/export.py)."""
import argparse
import sys

from mxbench.core import errors
from mxbench.core.arguments import regex
from mxbench.core.tables import FORMATS, write_output
from mxbench.reports import export


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "export", help="asv results (any results directory) as JSON, CSV or Markdown",
        description=export.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results_dir", help="asv results directory (or one machine's folder)")
    parser.add_argument("--format", choices=FORMATS, default="markdown")
    parser.add_argument("-o", "--output", help="file to write (default: stdout)")
    parser.add_argument("--benchmark", metavar="REGEX", type=regex,
                        help="keep benchmarks whose name or name(params) matches")
    parser.add_argument("--env", metavar="REGEX", type=regex,
                        help="keep environments whose name matches")
    parser.add_argument("--repo", metavar="GIT_REPO",
                        help="the ladder repository, to name each commit's release tag")
    parser.add_argument("--ok-only", action="store_true",
                        help="leave out skipped and failed parameter combinations")
    parser.set_defaults(func=cmd_export, needs_project=False)
    return parser


def cmd_export(args):
    try:
        rows = export.collect_rows(args.results_dir, benchmark=args.benchmark, env=args.env,
                                   repo=args.repo, ok_only=args.ok_only)
    except ValueError as exc:
        raise errors.UserError(exc)
    write_output(export.render(rows, args.format), args.output)
    print("mxbench.export: " + export.summary_line(rows), file=sys.stderr)
    return errors.OK
