"""`mxbench confirm BASE HEAD`: measure again, side by side, what the history says changed.

The history compares recordings made on different days, and this machine's speed moves more
between days than most changes between releases (reports/noise.json: a median point's
recordings of one build span 2.3x over three days). A change the history flags (asv's rule)
is a candidate until both releases are measured again in one session: `asv run` of both commits with `--interleave-rounds` (BASE's
first round, HEAD's first round, BASE's second ...), the samples kept, into
results-confirmations/BASE..HEAD/ (kept in git with the history). Each candidate then has a
verdict: **confirmed** when the interleaved ratio passes the factor in the same direction and
its 95 % interval (bootstrap of the medians) lies beyond 1; **refuted** otherwise; **not yet
confirmed** while no confirmation measured it. The Pinpoint pattern (Chromium): re-run both
sides of an alert on one device before anyone acts on it.
"""
import os
from tabulate import tabulate

from mxbench.asvrun import runner as asvtools
from mxbench.commands.run import record_points
from mxbench.core import project as project_model
from mxbench.core.arguments import allow_busy_argument, positive_factor
from mxbench.core.formatting import human_value, ratio_text
from mxbench.reports.confirmations import (CONFIRMED, FACTOR, REFUTED, ROUNDS, UNCONFIRMED,
                                           candidates, confirmation_project, counts,
                                           interval_text, verdicts)

def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "confirm", help="measure again, interleaved, the changes the history flags between "
                        "two releases", description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the older release, e.g. 1.9.0")
    parser.add_argument("head", help="the newer release, e.g. 1.9.1")
    parser.add_argument("--flavor", default="cpu-mkldnn")
    parser.add_argument("--factor", type=positive_factor, default=FACTOR,
                        help="the history's factor (default: %(default)s)")
    parser.add_argument("--bench", "-b", help="only candidates whose name this regex finds")
    parser.add_argument("--limit", type=int, help="only the N largest candidates")
    parser.add_argument("--beyond-noise", action="store_true",
                        help="only candidates beyond their point's noise (reports/noise.json)")
    parser.add_argument("--rounds", type=int, default=ROUNDS,
                        help="interleaved rounds (default: %(default)s)")
    parser.add_argument("--list", action="store_true",
                        help="list the candidates and their verdicts; measure nothing")
    allow_busy_argument(parser)
    parser.set_defaults(func=cmd_confirm, takes_asv_args=True)
    return parser


def cmd_confirm(args):
    project = args.project
    machine = args.machine or asvtools.machine_name()
    for release in (args.base, args.head):
        project.require_build(release, args.flavor)
    from mxbench.reports.noise import Noise
    changes = candidates(project, machine, args.base, args.head, args.flavor, args.factor,
                         Noise.load() if args.beyond_noise else None)
    if args.bench:
        import re
        changes = [c for c in changes if re.search(args.bench, c.name)]
    changes = changes[:args.limit] if args.limit else changes
    if not changes:
        print("%s -> %s, %s: the history flags no change at %.2fx (asv's rule%s%s): nothing "
              "to confirm" % (args.base, args.head, args.flavor, args.factor,
                              ", beyond each point's noise" if args.beyond_noise else "",
                              ", -b %s" % args.bench if args.bench else ""))
        return 0
    if not args.list:
        code = record(project, machine, args, [c.name for c in changes])
        if code not in (0, 2):  # 2: some benchmark failed; the others still have verdicts
            return code
    results = verdicts(project, machine, args.base, args.head, args.flavor, changes,
                       args.factor)
    print_verdicts(results, args.base, args.head, args.flavor)
    return 0


def record(project, machine, args, names):
    """Both releases, interleaved rounds, only these points, into the confirmation store."""
    target = confirmation_project(project, args.base, args.head)
    asvtools.ensure_machine(machine)
    project.ensure_ladder()
    print("confirming %d candidate(s) of %s -> %s (%s): %d interleaved rounds into %s"
          % (len(names), args.base, args.head, args.flavor, args.rounds,
             os.path.relpath(target.results_dir, project_model.ROOT)), flush=True)
    return record_points(target, machine, [args.base, args.head],
                         [project.environment(args.flavor)], names,
                         ["--interleave-rounds", "-a", "rounds=%d" % args.rounds]
                         + list(args.asv_args), allow_busy=args.allow_busy)


def print_verdicts(results, base, head, flavor):
    rows = [(v.change.name, human_value(v.change.before, v.change.unit),
             human_value(v.change.after, v.change.unit), ratio_text(v.change.ratio),
             v.state, interval_text(v)) for v in results]
    print(tabulate(rows, headers=["point", base, head, "history", "verdict",
                                  "interleaved ratio [95 % interval]"]))
    count = counts(results)
    print("%s -> %s, %s: %d confirmed, %d refuted, %d not yet confirmed"
          % (base, head, flavor, count[CONFIRMED], count[REFUTED], count[UNCONFIRMED]))
