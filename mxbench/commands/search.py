"""python -m mxbench search: the front of the cliff search (mxbench/inside/search.py)."""
import argparse
import os
import sys

from mxbench.asvrun import conditions, guard
from mxbench.core import errors
from mxbench.core.arguments import allow_busy_argument
from mxbench.core.project import ROOT
from mxbench.inside import search


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "search", help="a property-based search for each operator's performance cliffs",
        description=search.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("operators", nargs="*", metavar="OPERATOR",
                        help="entries to search (default: the %d of DEFAULT_OPERATORS)"
                        % len(search.DEFAULT_OPERATORS))
    parser.add_argument("--budget", type=int, default=search.DEFAULT_BUDGET, metavar="SECONDS",
                        help="per operator (default %d)" % search.DEFAULT_BUDGET)
    parser.add_argument("--seed", type=int, default=0, help="Hypothesis' seed (default 0)")
    parser.add_argument("--threshold", type=float, default=search.rule.THRESHOLD,
                        help="cost-per-element ratio of a cliff (default %s)"
                        % search.rule.THRESHOLD)
    parser.add_argument("--out", default=os.path.join(ROOT, search.rule.SEARCH_DIR),
                        metavar="DIR", help="logs and Hypothesis' example database (default %s)"
                        % search.rule.SEARCH_DIR)
    parser.add_argument("--cliffs-file", metavar="FILE",
                        help="cliff data to add to (default benchmarks/catalogue/cliffs.json)")
    parser.add_argument("--again", action="store_true",
                        help="search entries whose log has this seed and budget too")
    parser.add_argument("--list", action="store_true", help="which entries can be searched")
    parser.add_argument("--command", help=argparse.SUPPRESS)  # the parent's, for the logs
    allow_busy_argument(parser)
    parser.set_defaults(func=cmd_search, needs_project=False)
    return parser


def cmd_search(args):
    if args.list:
        sys.stdout.write(search.list_entries())
        return errors.OK
    entries, cliffs_file, parent = search.plan(args)
    if parent:  # a search measures: not beside other work (docs/trust.md)
        conditions.require_quiet(args.allow_busy)
    # each entry's child through a guard: it ends with this process, a kill -9 included
    return search.search_entries(entries, args, cliffs_file, parent, run_child=guard.run)
