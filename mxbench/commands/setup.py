"""`mxbench setup`: the release ladder and this machine's asv entry."""
from mxbench.asvrun import runner
from mxbench.core import errors


def setup_arguments(subparsers):
    setup = subparsers.add_parser("setup", help="create the ladder and the asv machine entry")
    setup.set_defaults(func=cmd_setup)
    return setup


def cmd_setup(args):
    head, changed = args.project.ensure_ladder()
    print("ladder: %s (head %s)" % ("written" if changed else "up to date", head[:8]))
    name = runner.ensure_machine(args.machine, args.project.store)
    print("asv machine: %s" % name)
    return errors.OK
