"""python -m mxbench cliffs: the front of the cliff report (mxbench/reports/cliffs.py)."""
import argparse
import os

from benchmarks.catalogue.cliffs import read_cliffs
from mxbench.core import errors
from mxbench.core.cliff_rule import SEARCH_DIR
from mxbench.core.project import ROOT
from mxbench.core.tables import write_output
from mxbench.reports import cliffs


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "cliffs", help="the performance cliffs the search found, and where each holds",
        description=cliffs.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--search-dir", default=os.path.join(ROOT, SEARCH_DIR),
                        metavar="DIR", help="the search logs (default %s)" % SEARCH_DIR)
    parser.add_argument("--cliffs-file", metavar="FILE",
                        help="cliff data (default benchmarks/catalogue/cliffs.json)")
    parser.add_argument("-o", "--output", help="file to write (default: stdout)")
    parser.set_defaults(func=cmd_cliffs)
    return parser


def cmd_cliffs(args):
    logs = cliffs.read_logs(args.search_dir)
    found = read_cliffs(args.cliffs_file) if args.cliffs_file else read_cliffs()
    write_output(cliffs.report(logs, found, *cliffs.recorded_points(args.project)), args.output)
    return errors.OK
