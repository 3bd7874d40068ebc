"""`mxbench confirm BASE HEAD`: measure again, side by side, what the history says changed.

The history compares recordings made on different days, and this machine's speed moves more
between days than most changes between releases (generated-reports/noise/: a median point's
recordings of one build span 2.3x over three days). A change the history flags (asv's rule)
is a candidate until both releases are measured again in one session: `asv run` of both commits with `--interleave-rounds` (BASE's
first round, HEAD's first round, BASE's second ...), the samples kept, into
results-confirmations/BASE..HEAD/ (kept in git with the history). Each candidate then has a
verdict: **confirmed** when the interleaved ratio passes the factor in the same direction and
its 95 % interval (bootstrap of the medians) lies beyond 1; **refuted** otherwise; **not yet
confirmed** while no confirmation measured it. The Pinpoint pattern (Chromium): re-run both
sides of an alert on one device before anyone acts on it.

A run measures only the candidates without a verdict (as `mxbench run` measures only what is
not recorded; `--rerun` measures them again), so runs of `--limit N` resume one another;
`mxbench confirm --history` goes through every consecutive pair that `changes releases`
compares.

`mxbench confirm RELEASE --aa NAME_A NAME_B` runs the same path on an A/A pair: the changes
that two recordings of one release (recorded as NAME_A and NAME_B) flag, measured again with
the release against itself (odd rounds against even rounds, results-confirmations/aa-RELEASE/).
Whatever it confirms is a false positive of the method; it should confirm nothing.
"""
from mxbench.asvrun import runner
from mxbench.asvrun.confirmation import record_rounds
from mxbench.core import errors
from mxbench.core.arguments import (allow_busy_argument, at_least, bench_argument,
                                    factor_argument, flavor_argument, positive_factor,
                                    positive_int)
from mxbench.core.errors import UserError
from mxbench.core.project import load as load_project
from mxbench.asvrun.conditions import cpu_identity, cpu_kind, cpu_kind_text
from mxbench.reports import confirmations, documented
from mxbench.reports.confirmations import (FACTOR, MIN_ROUNDS, ROUNDS, STATES,
                                           aa_candidates, aa_project, aa_verdicts, candidates,
                                           confirmation_project, counts, counts_text,
                                           history_of, kind_label, round_arguments, verdicts)
from mxbench.reports.noise import Noise


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "confirm", help="measure again, interleaved, the changes the history flags between "
                        "two releases", description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?",
                        help="the older release, e.g. 1.9.0 (with --aa: the release)")
    parser.add_argument("head", nargs="?", help="the newer release, e.g. 1.9.1 (not with --aa)")
    parser.add_argument("--aa", nargs=2, metavar=("NAME_A", "NAME_B"),
                        help="an A/A pair instead of two releases: the release's recordings "
                             "under these two names (experiments/, then results/); the "
                             "release is measured against itself")
    parser.add_argument("--history", action="store_true",
                        help="instead of two releases: every consecutive pair of the "
                             "history's records of the flavor, as `changes releases` compares "
                             "them, one after the other (with --limit N: N a pair)")
    parser.add_argument("--of", metavar="MACHINE",
                        help="confirm the changes of this machine's history (default: this "
                             "host's own, else the one results/ holds: a host of another CPU "
                             "kind then measures the history's changes on its own kind, "
                             "recorded under its own name)")
    parser.add_argument("--confirmed-at-least", type=positive_factor, metavar="RATIO",
                        help="only the candidates the history's own confirmation runs "
                             "confirmed at RATIO or more either way (e.g. 1.5: 1.5x slower or "
                             "1.5x faster): the history's changes measured again on another "
                             "CPU kind, with --of")
    parser.add_argument("--documented", action="store_true",
                        help="instead of two releases: every documented change's points at "
                             "its shapes (docs/documented-changes.toml's field cases), "
                             "flagged or not, measured interleaved for the pair of the "
                             "history's records that brackets its release")
    flavor_argument(parser)
    factor_argument(parser, FACTOR, help="the history's factor")
    bench_argument(parser, "only candidates whose name this regex finds")
    parser.add_argument("--limit", type=positive_int,
                        help="only the N largest candidates (measuring: the N largest that "
                             "have no verdict yet, so that runs of N resume one another)")
    parser.add_argument("--rerun", action="store_true",
                        help="measure again the candidates that have a verdict too (without "
                             "it, a run measures only those not yet confirmed; with --aa, "
                             "those the release's A/A runs have not measured)")
    parser.add_argument("--beyond-noise", action="store_true",
                        help="only candidates beyond their point's noise (the machine's table, "
                             "generated-reports/noise/MACHINE.json)")
    parser.add_argument("--noise", metavar="FILE",
                        help="--beyond-noise with this table (python -m mxbench noise)")
    parser.add_argument("--rounds", type=at_least(MIN_ROUNDS, "--rounds"), default=ROUNDS,
                        help="interleaved rounds a side, at least %d (default: %%(default)s)"
                             % MIN_ROUNDS)
    parser.add_argument("--list", action="store_true",
                        help="list the candidates and their verdicts; measure nothing")
    allow_busy_argument(parser)
    parser.set_defaults(func=cmd_confirm, takes_asv_args="run")
    return parser


def cmd_confirm(args):
    if args.aa:
        return cmd_confirm_aa(args)
    if args.documented:
        return cmd_confirm_documented(args)
    if args.history:
        if args.base is not None:
            raise UserError("--history confirms every consecutive pair of the history: give "
                            "no releases (not %s)" % " ".join(r for r in (args.base, args.head)
                                                              if r))
    elif args.head is None:
        raise UserError("confirm needs BASE and HEAD (or one release and --aa NAME_A NAME_B, "
                        "or --history)")
    project = args.project
    machine, history = machine_and_history(args)
    if history != machine and not args.list:
        print("the changes of machine %s's history (%s), measured on machine %s (%s): the "
              "verdicts are this CPU kind's" % (
                  history, kind_label(project.store, history), machine,
                  cpu_kind_text(cpu_kind(cpu_identity()))), flush=True)
    if not args.history:
        code, _ = confirm_pair(project, machine, args, args.base, args.head, history)
        return code
    from mxbench.reports.release_pairs import release_changes
    pairs = [(a, b) for a, b, _ in release_changes(
        project, history, {args.flavor: project.environment(args.flavor)},
        args.factor)[args.flavor]]
    if not pairs:
        raise UserError("machine %s has no two consecutive records of %s to confirm"
                        % (history, args.flavor))
    total = dict((state, 0) for state in STATES)
    for base, head in pairs:
        print("\n## %s -> %s" % (base, head), flush=True)
        code, results = confirm_pair(project, machine, args, base, head, history)
        for state, n in counts(results).items():
            total[state] += n
        if code not in (0, 2):  # interrupted, or the machine is busy: the rest waits too
            return code
    print("\nthe history's %d pair(s) of %s, %s: %s"
          % (len(pairs), args.flavor, "the candidates listed" if args.list
             else "their candidates now", counts_text(total)))
    return errors.OK


def machine_and_history(args):
    """(the machine a run records under, the history whose changes it judges). --list only
    reads: the history's machine where this host has none; a run records under this host's
    name unless --machine names another."""
    project = args.project
    machine = args.machine or (runner.reading_machine(project.store, None) if args.list
                               else runner.machine_name())
    return machine, args.of or history_of(project, machine)


def confirm_pair(project, machine, args, base, head, history=None):
    """(exit code, [Verdict]) of BASE -> HEAD: the candidates listed, or those without a
    verdict measured again (all with --rerun). The verdicts: of those listed, or, after a
    run, of every candidate the selection names (what the pair holds now). The candidates
    are `history`'s changes (default: machine's own), measured under `machine`."""
    history = history or machine
    for release in (base, head):
        project.require_build(release, args.flavor)
    changes = confirmations.selected(
        candidates(project, history, base, head, args.flavor, args.factor,
                   noise_table(args, history, own_machine=True)), args.bench)
    if args.confirmed_at_least:
        changes = confirmations.confirmed_at_least(project, history, base, head, args.flavor,
                                                   changes, args.factor,
                                                   args.confirmed_at_least)

    def judge(these):
        return verdicts(project, history, base, head, args.flavor, these, args.factor, machine)
    todo = changes
    if not args.list and not args.rerun:
        judged = judge(changes)
        todo = confirmations.waiting(judged)
        if changes and not todo:
            print("%s -> %s, %s: every one of the %d candidate(s)%s has a verdict (%s); "
                  "--rerun measures them again" % (base, head, args.flavor, len(changes),
                                                   selection_text(args),
                                                   counts_text(counts(judged))))
            return errors.OK, judged
    todo = todo[:args.limit] if args.limit else todo
    if not todo:
        print("%s -> %s, %s: the history flags no change at %.2fx%s: nothing to confirm"
              % (base, head, args.flavor, args.factor, selection_text(args)))
        return errors.OK, []
    code = errors.OK
    if not args.list:
        code = record(project, machine, args, confirmation_project(project, base, head),
                      [base, head], [c.name for c in todo], args.rounds,
                      "%s -> %s (%s): %d interleaved rounds"
                      % (base, head, args.flavor, args.rounds))
        if code not in (0, 2):  # 2: some benchmark failed; the others still have verdicts
            return code, []
    print(confirmations.verdicts_text(judge(todo), base, head, args.flavor))
    return code, judge(todo if args.list else changes)


def cmd_confirm_documented(args):
    """Every documented change with field cases, at its shapes: the pairs of the history's
    records that bracket each, their points measured interleaved (those without rounds yet,
    or all with --rerun), and the documented verdicts printed."""
    if args.base is not None or args.history or args.aa:
        raise UserError("--documented confirms the documented changes' pairs: give no "
                        "releases, --history or --aa")
    project = args.project
    machine, history = machine_and_history(args)
    # the changes without field cases: their points in the committed history's pair
    results = load_project(project.config)
    committed = documented.FieldHistory(
        results, runner.reading_machine(results.store, None), args.factor)
    plan = documented.confirmation_plan(project, history, args.flavor, args.factor,
                                        bench=args.bench, committed=committed)
    if not plan:
        print("machine %s has no records of %s at a documented change's shapes: record them "
              "with python -m mxbench run RELEASES --selection field" % (history, args.flavor))
        return errors.OK
    code = errors.OK
    for (base, head), names in plan.items():
        todo = names if args.rerun or args.list else documented.unmeasured(
            project, machine, base, head, args.flavor, names)
        if args.list or not todo:
            continue
        code = record(project, machine, args, confirmation_project(project, base, head),
                      [base, head], todo, args.rounds,
                      "%s -> %s (%s), documented changes at their shapes: %d interleaved "
                      "rounds" % (base, head, args.flavor, args.rounds))
        if code not in (0, 2):
            return code
    rows = documented.judged_rows(project, history, machine, args.flavor, args.factor,
                                  committed)
    print(documented.table_text(rows))
    return code


def cmd_confirm_aa(args):
    """The A/A pair's flagged changes, measured again: the release against itself."""
    if args.head is not None:
        raise UserError("--aa compares one release with itself: give one release, not %s "
                        "and %s" % (args.base, args.head))
    project, release = args.project, args.base
    machine = args.machine or runner.machine_name()
    project.require_build(release, args.flavor)
    name_a, name_b = args.aa
    changes = confirmations.narrowed(
        aa_candidates(project, release, args.flavor, name_a, name_b, args.factor,
                      noise_table(args, machine), results_only=bool(args.results)),
        args.bench, args.limit)
    label = "A/A %s %s (%s vs %s)" % (release, args.flavor, name_a, name_b)
    if not changes:
        print("%s: no change flagged at %.2fx%s: nothing to confirm"
              % (label, args.factor, selection_text(args)))
        return errors.OK
    # A point measured for another A/A pair of the release is not measured again (its
    # rounds are the release against itself, whichever pair flagged it; --rerun does)
    todo = changes if args.rerun else confirmations.waiting(
        aa_verdicts(project, machine, release, args.flavor, changes, args.factor))
    if not args.list and todo:
        # the release alone: odd rounds are side A, even rounds side B
        code = record(project, machine, args, aa_project(project, release), [release],
                      [c.name for c in todo], 2 * args.rounds,
                      "%s: %s alone, %d rounds a side, interleaved"
                      % (label, release, args.rounds))
        if code not in (0, 2):
            return code
    elif not args.list:
        print("%s: every one of the %d candidate(s) has a verdict; --rerun measures them again"
              % (label, len(changes)))
    results = aa_verdicts(project, machine, release, args.flavor, changes, args.factor)
    print(confirmations.verdicts_text(results, name_a, name_b, args.flavor,
                                      label="A/A " + release,
                                      note="every confirmed one is a false positive"))
    return errors.OK


def noise_table(args, machine, own_machine=False):
    """--noise FILE's table, or with --beyond-noise the machine's (mxbench/reports/noise.py)."""
    return Noise.chosen(machine, args.noise, args.beyond_noise, own_machine)


def selection_text(args):
    return confirmations.selection_text(args.bench, bool(args.beyond_noise or args.noise),
                                        getattr(args, "confirmed_at_least", None))


def record(project, machine, args, target, releases, names, rounds, what):
    """These releases, `rounds` interleaved rounds, only these points, into `target` (a
    confirmation store): asvrun/confirmation.py."""
    # ours last: the verdict cuts each point's samples into rounds of ROUND_SAMPLES again
    return record_rounds(project, machine, project.environment(args.flavor), target, releases,
                         names, list(args.asv_args) + round_arguments(rounds), what,
                         allow_busy=args.allow_busy)
