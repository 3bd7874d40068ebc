"""python -m mxbench models: the front of the model-derived benchmarks: extract (on the
installed MXNet, mxbench/inside/model_layers.py), report and select
(mxbench/reports/models.py)."""
from mxbench.asvrun import runner
from mxbench.core import errors
from mxbench.core.arguments import command_group, flavor_argument, positive_int
from mxbench.core.lazy import models as M  # benchmarks/_models.py, at first use
from mxbench.core.results import write_json_atomic
from mxbench.inside import model_layers
from mxbench.reports import models


def setup_arguments(subparsers):
    parser, sub = command_group(
        subparsers, "models", "the model-derived benchmarks: extract the layers, report, select",
        models.__doc__)
    extract = sub.add_parser("extract", help="write the models' unique layers (installed MXNet)")
    extract.add_argument("-o", "--output", help="default: benchmarks/model_layers.json")
    extract.set_defaults(func=cmd_extract, needs_project=False)
    report = sub.add_parser("report", help="predicted vs measured; attribution between releases")
    report.add_argument("--release", default="1.9.1")
    report.add_argument("--base", help="a second release: which layers explain the change")
    flavor_argument(report)
    report.add_argument("--data", help="default: benchmarks/model_layers.json")
    report.add_argument("--top", type=positive_int, default=5)
    report.set_defaults(func=cmd_report)
    select = sub.add_parser("select", help="the asv -b regex of some models and their layers")
    select.add_argument("models", nargs="+")
    select.set_defaults(func=cmd_select, needs_project=False)
    return parser


def cmd_extract(args):
    data = model_layers.extraction()
    output = args.output or M.DATA_FILE
    write_json_atomic(output, data)
    for name, batches in data["models"].items():
        for batch, entry in batches.items():
            print("%s batch %s: %d layers, %d unique" % (name, batch, entry["total"],
                                                        entry["unique"]))
    print("wrote %s (mxnet %s)" % (output, data["mxnet"]))
    return errors.OK


def cmd_report(args):
    project = args.project
    models.print_report(project, runner.reading_machine(project.store, args.machine),
                        M.load_data(args.data or M.DATA_FILE),
                        args.release, args.flavor, args.base, args.top)
    return errors.OK


def cmd_select(args):
    print(models.selection(M.load_data(), args.models))
    return errors.OK
