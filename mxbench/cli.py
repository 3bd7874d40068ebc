"""python -m mxbench <command>: the suite's one command line.

    setup      the release ladder and this machine's asv entry
    run        record releases into results/ (default: the newest two final releases)
    check      asv continuous BASE HEAD and a second pass: exit 1 on a confirmed slow-down
    confirm    measure again, interleaved, the changes the history flags between two releases
    compare    asv compare of two recorded releases, per flavor
    find       bisect a change along the ladder for one flavor
    merge      fold other machines' results (CI artifacts) into results/
    drop-gpu-skips  rewrite results/ without CPU environments' all-skipped gpu points (once)
    ci-matrix  the CI workflow's (release, flavor) jobs, as JSON
    changes    significant differences: releases, between, lineage, aa, ab
    noise      each point's noise from A/A recordings of one release (generated-reports/noise/)
    export     any asv results directory as JSON, CSV or Markdown
    cost       where the time of a recorded run goes
    coverage   which registered MXNet operators the catalogue benchmarks
    models     the model-derived benchmarks: extract, report, select
    baselines  MXNet against PyTorch and NumPy on the same inputs
    cliffs     the performance cliffs the search found, and where each holds
    selection  slow-medium: the catalogue's SLOW_MEDIUM_MS table from recorded results
    matrix     the release x flavor table, resolve, the ladder, check-index
    adhoc      time operators on the installed MXNet, without asv
    search     a property-based search for operators' performance cliffs
    dispatch   the installed MXNet's dispatch floor under each A/B variant
    publish    the site (html/): asv publish, made to open from disk with no network

`python -m mxbench <command> --help` says more. Options before the command (--config,
--machine, --results) apply to every command. Arguments after `--` go to asv as they are.
Ctrl-C: what finished is kept, exit 130 (SIGTERM: 143). Bad input or unusable results: one
line naming the problem, exit 2.
"""
import argparse
import os
import signal
import sys

from mxbench.asvrun import conditions, runner
from mxbench.commands import (adhoc, baselines, changes, check, ci_matrix, cliffs, compare,
                              confirm, cost, coverage, dispatch, drop_gpu_skips, export, find,
                              matrix, merge, models, noise, publish, run, search, selection,
                              setup)
from mxbench.core import arguments, errors
from mxbench.core.project import DEFAULT_CONFIG, load as load_project

# The commands, in the order `--help` lists them: each module adds its parser and sets
# func (and takes_asv_args, the asv command that takes the arguments after `--`, and
# needs_project where they differ from the defaults below).
COMMANDS = (setup, run, check, confirm, compare, find, merge, drop_gpu_skips, ci_matrix,
            changes, noise, export, cost, coverage, models, baselines, cliffs, selection,
            matrix, publish, adhoc, search, dispatch)


def add_common_options(parser, top_level):
    """--config, --machine and --results, accepted before the command and after it."""
    default = None if top_level else argparse.SUPPRESS
    parser.add_argument("--config", default=default,
                        help="asv config (default: asv.conf.json; asv.gpu.conf.json for GPUs)")
    parser.add_argument("--machine", default=default, type=arguments.machine_name,
                        help="asv machine name: letters, digits, '.', '_', '-' (default: from "
                             "the hardware)")
    parser.add_argument("--results", metavar="DIR", default=default,
                        help="results directory instead of the config's (e.g. experiments)")
    parser.add_argument("--other-cpu", action="store_true", default=default,
                        help="record into (or merge into) a machine whose recordings were "
                             "made on another CPU kind, with a warning (refused otherwise)")


def command_parsers(parser):
    """A command's parser and those of its subcommands (changes releases, models report...)."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from command_parsers(sub)


class OneLineParser(argparse.ArgumentParser):
    """argparse, with bad input said in one line (`error: ...`, exit 2) as every other user
    error: the usage it would print first is what --help shows. Subcommands' parsers are of
    the same class (add_subparsers makes them so)."""

    def error(self, message):
        self.exit(errors.USAGE, "error: %s (%s --help shows the usage)\n" % (message, self.prog))


def build_parser():
    parser = OneLineParser(prog="python -m mxbench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(parser, top_level=True)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        for command in command_parsers(module.setup_arguments(subparsers)):
            add_common_options(command, top_level=False)
    parser.set_defaults(takes_asv_args=False, needs_project=True)
    return parser


def parse(argv):
    """The namespace of a command line; what follows `--` is args.asv_args."""
    argv = list(sys.argv[1:] if argv is None else argv)
    asv_args = argv[argv.index("--") + 1:] if "--" in argv else []
    parser = build_parser()
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if asv_args and not args.takes_asv_args:
        parser.error("asv arguments after -- are not taken by `%s`" % args.command)
    problem = asv_args and runner.asv_arguments_problem(args.takes_asv_args, asv_args)
    if problem:
        parser.exit(errors.USAGE, "error: %s\n" % problem)
    args.asv_args = asv_args
    return args


def terminate(signum, frame):
    raise runner.Interrupted(signum)


def main(argv=None):
    conditions.begin_look()  # a recording's look before covers the command's preparation
    args = parse(argv)
    if getattr(args, "other_cpu", None):  # read where a recording or a merge checks the CPU
        os.environ[conditions.OTHER_CPU_ENV] = "1"
    try:
        # inside the try: a Ctrl-C in the very moment the handler changes is still caught
        signal.signal(signal.SIGINT, signal.default_int_handler)  # KeyboardInterrupt from here
        signal.signal(signal.SIGTERM, terminate)  # like Ctrl-C: one line, exit 143, nothing lost
        if args.needs_project:
            chosen = getattr(args, "variant", None) or []
            args.project = load_project(
                args.config or DEFAULT_CONFIG, args.results).for_variants(
                    [chosen] if isinstance(chosen, str) else chosen)
        return args.func(args)
    except errors.UserError as exc:  # the one base of what a user can cause (core/errors.py)
        print("error: %s" % exc.message(), file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # the reader went away (`... | head`): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return errors.OK
    except (runner.Interrupted, KeyboardInterrupt) as exc:
        print("interrupted: what finished is kept in results/; run the same command again "
              "to resume", file=sys.stderr)
        return getattr(exc, "exit_code", errors.INTERRUPTED)
