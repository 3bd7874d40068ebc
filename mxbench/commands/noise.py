"""python -m mxbench noise: the front of the noise tables (mxbench/reports/noise.py)."""
import json
import sys

from mxbench.core import errors
from mxbench.core.arguments import factor_argument, flavor_argument, margin_factor
from mxbench.reports import noise


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "noise", help="each point's noise from A/A recordings of one release (max/min)",
        description=noise.__doc__.split("\n\n")[0])
    parser.add_argument("recordings", nargs="+", metavar="RESULTS_DIR/MACHINE",
                        help="machine directories holding distinct recordings of the same "
                             "release and settings (at least %d, on at least %d different "
                             "days); the first names the machine whose reports the table "
                             "serves (or --machine before the command)"
                             % (noise.MIN_RECORDINGS, noise.MIN_DAYS))
    parser.add_argument("--release", required=True)
    flavor_argument(parser)
    parser.add_argument("-o", "--output",
                        help="JSON file (default: stdout); the reports of a machine's history "
                             "apply generated-reports/noise/MACHINE.json")
    factor_argument(parser, help="asv's change factor, with --held-out")
    parser.add_argument("--margin", type=margin_factor, default=noise.MARGIN,
                        help="a point's threshold is its noise times this (default 1), kept "
                             "in the table; with --held-out, applied to the tables of the "
                             "others")
    parser.add_argument("--held-out", action="store_true",
                        help="for every pair of recordings of different days: how many of its "
                             "timings pass the noise of a table built without it (needs %d "
                             "recordings); prints, writes no table" % (noise.MIN_RECORDINGS + 2))
    parser.set_defaults(func=cmd_noise)
    return parser


def cmd_noise(args):
    project = args.project
    if args.held_out:
        if args.output:
            raise errors.UserError("--held-out prints its pairs and writes no table; drop -o")
        print(noise.held_out_text(noise.held_out(project, args.recordings, args.release,
                                                 args.flavor, args.factor, args.margin),
                                  args.margin))
        return errors.OK
    command = "python -m mxbench noise " + " ".join(sys.argv[sys.argv.index("noise") + 1:]) \
        if "noise" in sys.argv else None
    data = noise.build(project, args.recordings, args.release, args.flavor, command,
                       args.machine, args.margin)
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if args.output:
        with open(args.output, "w") as fh:
            fh.write(text)
        print(noise.written_text(data, args.output, args.margin))
    else:
        sys.stdout.write(text)
    return errors.OK
