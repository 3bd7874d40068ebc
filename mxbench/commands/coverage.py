"""python -m mxbench coverage: the front of the coverage report (mxbench/reports/coverage.py).
The registry is read here, from the installed MXNet, and handed to the report."""
import argparse
import sys

from mxbench.core import errors
from mxbench.core.arguments import at_least
from mxbench.inside.registry import Registry
from mxbench.reports import coverage


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "coverage", help="which registered MXNet operators the catalogue benchmarks",
        description=coverage.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    parser.add_argument("--list", choices=("covered", "excluded", "missing", "all"),
                        default=None, help="which names to list (text/markdown; default: "
                        "missing, or all with --format markdown)")
    parser.add_argument("--fail-under", type=at_least(0), default=None, metavar="N",
                        help="exit 1 when fewer than N counted names are covered, or any "
                        "is missing")
    parser.add_argument("--numpy", action="store_true",
                        help="also the numpy interface's operators (runs each mx.np/mx.npx "
                        "entry's small case once under the profiler)")
    parser.add_argument("--registry", action="store_true",
                        help="every distinct forward operator the registry holds, by family "
                        "(public, numpy, contrib, quantized, subgraph, image, sparse, "
                        "scalar/internal), instead of the public names")
    parser.set_defaults(func=cmd_coverage, needs_project=False)
    return parser


def cmd_coverage(args):
    try:
        registry = Registry()
        numpy_report = coverage.numpy_coverage(registry) if args.numpy else None
        report = (coverage.registry_coverage(registry, numpy_report=numpy_report)
                  if args.registry else coverage.coverage(registry))
    except ImportError as exc:
        raise errors.UserError("mxnet does not import: %s" % exc)
    if args.numpy:
        report["numpy"] = numpy_report
    sys.stdout.write(coverage.rendered(report, args.format, args.list, args.registry))
    if args.fail_under is not None and coverage.falls_short(report, args.fail_under,
                                                            args.registry):
        return errors.FAILED
    return errors.OK
