"""Pieces of the command line that several commands share: argument types, command groups."""
import argparse
import json
import os
import re

from mxbench.core import names


DEFAULT_FLAVOR = "cpu-mkldnn"  # the flavor with a build of every release, 1.0 to 2.0
# The factor of each meaning: asv's rule at the history's factor (changes, confirm, find,
# noise: what CHANGES.md flags) and asv compare's own default (compare, as plain asv)
HISTORY_FACTOR = 1.2
ASV_COMPARE_FACTOR = 1.1


def flavor_argument(parser, many=False, help=None):
    """--flavor: one flavor (default DEFAULT_FLAVOR), or with many=True a repeatable filter
    (default: every flavor the command covers)."""
    if many:
        return parser.add_argument("--flavor", action="append",
                                   help=help or "only this flavor (repeatable)")
    return parser.add_argument("--flavor", default=DEFAULT_FLAVOR,
                               help=help or "the flavor (default: %(default)s)")


def factor_argument(parser, default=HISTORY_FACTOR, help=None):
    """--factor: the ratio asv's rule flags (a ratio above 1)."""
    return parser.add_argument("--factor", type=positive_factor, default=default,
                               help=(help or "the ratio asv's rule flags") +
                               " (default: %(default)s)")


def bench_argument(parser, help):
    """--bench / -b: a regular expression over benchmark names, refused by the parser when
    it is not one."""
    return parser.add_argument("--bench", "-b", type=regex, help=help)


def command_group(subparsers, name, help, doc=None):
    """A command with subcommands of its own (`mxbench NAME SUBCOMMAND`): its parser, and the
    subparsers its subcommands are added to (args.<name>_command names the one given)."""
    parser = subparsers.add_parser(name, help=help, description=doc or help,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser, parser.add_subparsers(dest="%s_command" % name, required=True,
                                         metavar="COMMAND")


def margin_factor(text):
    """--margin: a ratio of 1 or more (1.5: thresholds half as wide again)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if not value >= 1.0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a ratio of 1 or more (e.g. 1.5), not %s"
                                         % text)
    return value


def positive_factor(text):
    """--factor: a ratio above 1 (1.3 = 30 % slower)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if not value > 1.0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a ratio above 1 (e.g. 1.3), not %s" % text)
    return value


def allow_busy_argument(parser):
    """--allow-busy for the commands that record (mxbench/asvrun/conditions.py)."""
    parser.add_argument("--allow-busy", action="store_true",
                        help="record even when other processes use the CPU (the record is "
                             "marked busy); also MXBENCH_ALLOW_BUSY=1")


def machine_name(text):
    """--machine: a name (mxbench.core.names): it becomes a folder under results/ and a key of
    ~/.asv-machine.json, so `../x` or a newline is refused before anything is written."""
    problem = names.machine_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def machine_or_path(text):
    """A machine name, or RESULTS_DIR/NAME (a recording read from another folder): its last
    part is a machine name."""
    machine_name(os.path.basename(text.rstrip("/")) if "/" in text else text)
    return text


def regex(text):
    """A regular expression option (--bench, --benchmark): a bad one is refused by the
    parser, before anything runs."""
    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError("not a regular expression: %r (%s)" % (text, exc))
    return text


def at_least(minimum, what="a count"):
    """An argument type: a whole number of `minimum` or more. Every count and limit of the
    command line takes one (`positive_int`), so that no 0 or negative number slices a list
    from its end, runs no rounds, or is taken as "no limit"."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("not a whole number: %r" % text)
        if value < minimum:
            raise argparse.ArgumentTypeError("%s must be %d or more, not %s"
                                             % (what, minimum, text))
        return value
    parse.__name__ = "at_least_%d" % minimum  # argparse names the type in its messages
    return parse


positive_int = at_least(1)


# adhoc's --shape and --kwargs
def parse_shape(text):
    parts = [p for p in re.split(r"[,x\s]+", text.strip()) if p]
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError("a shape is integers separated by commas: %r" % text)


def parse_kwargs(text):
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError("--kwargs is not JSON: %s" % exc)
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("--kwargs must be a JSON object")
    return value
