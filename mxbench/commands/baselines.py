"""python -m mxbench baselines: the front of the baselines report
(mxbench/reports/baselines.py)."""
import os

from mxbench.core import errors
from mxbench.core.arguments import positive_int
from mxbench.core.tables import write_output
from mxbench.reports import baselines


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "baselines", help="MXNet against PyTorch and NumPy on the same inputs",
        description=baselines.__doc__.split("\n")[0] + " --config: default "
                    "asv.baselines.conf.json; --results: default its results_dir; --machine: "
                    "only this machine's results.")
    parser.add_argument("--format", choices=("text", "markdown", "csv", "json"),
                        default="text")
    parser.add_argument("--top", type=positive_int, default=10,
                        help="largest gaps shown per group")
    parser.add_argument("-o", "--output", help="write here instead of stdout")
    parser.set_defaults(func=cmd_baselines, needs_project=False)
    return parser


def cmd_baselines(args):
    config = args.config or baselines.BASELINES_CONFIG
    rows, versions = baselines.collect(os.path.abspath(config), args.machine, args.results)
    if not rows:
        raise errors.UserError("no baseline results in %s: record them with `python -m "
                               "mxbench --config asv.baselines.conf.json run 1.9.1`" % config)
    # a folder that is not there: one line
    write_output(baselines.rendered(rows, versions, args.format, args.top), args.output)
    return errors.OK
