"""`mxbench selection slow-medium`: the catalogue's SLOW_MEDIUM_MS table from recorded results."""
import shlex
import sys

from benchmarks.catalogue import tuning
from mxbench.asvrun import runner
from mxbench.core import errors, selection
from mxbench.core.arguments import command_group, flavor_argument
from mxbench.core.errors import UserError


def setup_arguments(subparsers):
    parser, sub = command_group(subparsers, "selection", "tables the point selection reads")
    slow = sub.add_parser(
        "slow-medium", help="the entries whose medium call is recorded at --over-ms or more",
        description="The entries whose medium call is recorded at --over-ms or more, as the "
                    "catalogue's SLOW_MEDIUM_MS table (benchmarks/catalogue/slow_medium.json, with --write). --results: "
                    "default the config's, results/; the timing experiments are in experiments/.")
    slow.add_argument("--release", default="1.9.1")
    flavor_argument(slow)
    slow.add_argument("--over-ms", type=float, default=selection.SLOW_MEDIUM_OVER_MS)
    slow.add_argument("--write", action="store_true",
                      help="write the table into the catalogue's data (%s)"
                           % "benchmarks/catalogue/slow_medium.json")
    slow.set_defaults(func=cmd_slow_medium)
    return parser


def cmd_slow_medium(args):
    project = args.project
    machine = runner.reading_machine(project.store, args.machine)
    commit, env_name = project.commit(args.release), project.environment(args.flavor)
    if not project.store.has(machine, commit, env_name):
        raise UserError("no result of %s %s on machine %s in %s"
                        % (args.release, args.flavor, machine, project.store.results_dir))
    table = selection.slow_medium(project.store, machine, commit, env_name, args.over_ms)
    if not table:
        raise UserError("no entry's medium point of %s %s is recorded at %g ms or more"
                        % (args.release, args.flavor, args.over_ms))
    if args.write:
        made_by = "python -m mxbench " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        print("wrote %s" % tuning.write_slow_medium(table, made_by, args.over_ms))
        return errors.OK
    print("SLOW_MEDIUM_MS = {")
    for name in sorted(table):
        print("    %r: %d," % (name, table[name]))
    print("}")
    return errors.OK
