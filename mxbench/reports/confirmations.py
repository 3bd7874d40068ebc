"""Verdicts of the confirmation runs (`python -m mxbench confirm`): for each change the history
flags between two releases, confirmed, refuted, inconclusive or not yet confirmed, with the
interleaved ratio and its 95 % interval. Read by `confirm` and by the changes report
(generated-reports/CHANGES.md).
"""
import math
import os
import re
from collections import namedtuple

from tabulate import tabulate

from mxbench.asvrun.conditions import cpu_kind_text, recorded_cpu_kinds
from env_matrix.matrix import MatrixError
from mxbench.asvrun.runner import reading_machine
from mxbench.core.project import load as load_project
from mxbench.core.arguments import HISTORY_FACTOR
from mxbench.core.change_rule import compare
from mxbench.core.errors import UserError
from mxbench.core.formatting import human_value, ratio_text
from mxbench.core.results import by_name
from mxbench.core.stats import measured_rounds, round_ratio_interval, rounds_separated
from mxbench.reports.sides import side_pair

CONFIRMATIONS = "results-confirmations"  # beside the results directory it confirms
ROUNDS = 4  # interleaved rounds per release: ~3x the samples of a history recording
# Rounds a side that a verdict needs: with one, "every round beyond every round" is a coin
# flip and the interval has no width (a round is the unit the bootstrap resamples). Fewer is
# no confirmation run: the point stays not yet confirmed, and the next run measures it.
MIN_ROUNDS = 2
# samples a round: confirm asks asv for exactly this many, so that a point's samples can be
# cut into its rounds again (every run before this was made with asv's default, 5 a round
# for all the points measured)
ROUND_SAMPLES = 5
LEVEL = 0.95
FACTOR = HISTORY_FACTOR  # asv's rule at the history's factor when none is given

Verdict = namedtuple("Verdict", "change state ratio low high")
CONFIRMED, REFUTED, INCONCLUSIVE = "confirmed", "refuted", "inconclusive"
UNCONFIRMED = "not yet confirmed"
STATES = (CONFIRMED, REFUTED, INCONCLUSIVE, UNCONFIRMED)


def confirmations_root(project):
    """<results>/../results-confirmations: the confirmation runs of the project's results."""
    return os.path.join(os.path.dirname(project.results_dir), CONFIRMATIONS)


def confirmation_dir(project, base, head):
    """<results>/../results-confirmations/BASE..HEAD: one asv results directory a pair."""
    return os.path.join(confirmations_root(project), "%s..%s" % (base, head))


def confirmation_project(project, base, head):
    """The project recording into (and reading) the confirmations of BASE..HEAD."""
    return load_project(project.config, confirmation_dir(project, base, head))


def history_changes(project, machine, base, head, flavor, factor):
    """The history's Change of every timing of `flavor` measured at BASE and HEAD (asv's
    verdict at `factor`, "same" included)."""
    env_name = project.environment(flavor)
    sides = []
    for release in (base, head):
        commit = project.commit(release)
        if not project.store.has(machine, commit, env_name):
            raise UserError("%s %s is not recorded on machine %s: nothing to confirm"
                            % (release, flavor, machine))
        sides.append(by_name(project.store.points(machine, commit, env_name)))
    return [c for c in compare(sides[0], sides[1], factor) if c.unit == "seconds"]


def candidates(project, machine, base, head, flavor, factor, noise=None):
    """The history's changes of `flavor` from BASE to HEAD that pass asv's rule (timings),
    largest first; with a noise table, only those beyond each point's noise too."""
    return flagged(history_changes(project, machine, base, head, flavor, factor), factor, noise)


def flagged(changes, factor, noise=None):
    """The timings among the changes that pass asv's rule (and, with a noise table, are
    beyond each point's noise), largest first."""
    kept = [c for c in changes if c.unit == "seconds" and c.verdict != "same"
            and (noise is None or noise.beyond(c, factor))]
    return sorted(kept, key=lambda c: -abs(math.log(c.ratio)))


def verdicts(project, machine, base, head, flavor, changes, factor, measured_on=None):
    """A Verdict for each change from the confirmation runs of BASE..HEAD: those recorded
    under `machine`, or under `measured_on` (another CPU kind's confirmation of `machine`'s
    history: the changes are still the history's)."""
    store = confirmation_project(project, base, head).store
    env_name = project.environment(flavor)
    on = measured_on or machine
    measured = {}
    if store.has(on, project.commit(base), env_name) and \
            store.has(on, project.commit(head), env_name):
        measured = [by_name(store.points(on, project.commit(r), env_name))
                    for r in (base, head)]
    out = []
    for change in changes:
        sides = None
        if measured and change.name in measured[0] and change.name in measured[1]:
            sides = (rounds_of(measured[0][change.name].samples),
                     rounds_of(measured[1][change.name].samples))
        out.append(judged(change, sides, factor))
    return out


def judged(change, sides, factor):
    """The Verdict of a change from its interleaved rounds (BASE's, HEAD's), or not yet
    confirmed without them (or with fewer than MIN_ROUNDS whole rounds a side)."""
    if sides and min(len(measured_rounds(side)) for side in sides) < MIN_ROUNDS:
        sides = None
    interval = round_ratio_interval(sides[0], sides[1], LEVEL) if sides else None
    if interval is None:
        return Verdict(change, UNCONFIRMED, None, None, None)
    separated = rounds_separated(sides[0], sides[1], slower=change.ratio > 1)
    return Verdict(change, decide(change.ratio, interval, factor, separated), *interval)


def rounds_of(samples, size=ROUND_SAMPLES):
    """One point's samples cut into its rounds (asv appends each round's samples in the order
    the rounds ran); None unless they are whole rounds of `size` (a failed round, a run with
    another repeat): such a point has no interval."""
    if not samples or len(samples) % size:
        return None
    return [samples[i:i + size] for i in range(0, len(samples), size)]


def round_arguments(rounds):
    """asv arguments of `rounds` interleaved rounds of exactly ROUND_SAMPLES samples."""
    return ["--interleave-rounds", "-a", "rounds=%d" % rounds,
            "-a", "repeat=%d" % ROUND_SAMPLES]


def decide(history_ratio, interval, factor, separated):
    """The state of a change the history showed (`history_ratio`, past the factor) from its
    interleaved (ratio, low, high) and whether every HEAD round lay beyond every BASE round
    the history's way (`separated`):

    - CONFIRMED: the ratio goes the history's way past the factor, its interval lies beyond
      1, and the rounds separate. The last is the A/A run's lesson (docs/trust.md): one
      build's rounds differ as processes do, and 3 of its 27 intervals lay past the factor;
      with 4 rounds a side, rounds that did not change separate by chance 1 time in 70;
    - REFUTED: the ratio falls short of the factor (or goes the other way) and the interval
      excludes the history's ratio: what the history showed did not happen again;
    - INCONCLUSIVE: neither: the ratio is past the factor without the interval or the rounds
      to back it, or the interval still holds the history's ratio. More rounds can tell.
    """
    ratio, low, high = interval
    if history_ratio > 1:
        past, beyond_one = ratio >= factor, low > 1
    else:
        past, beyond_one = ratio <= 1 / factor, high < 1
    if past and beyond_one and separated:
        return CONFIRMED
    if not past and not low <= history_ratio <= high:
        return REFUTED
    return INCONCLUSIVE


def counts(verdicts):
    """{state: how many of the verdicts are in it}, every state present."""
    return dict((state, sum(v.state == state for v in verdicts)) for state in STATES)


def counts_text(count):
    """'N confirmed, N refuted, N inconclusive, N not yet confirmed' of counts()."""
    return ", ".join("%d %s" % (count[state], state) for state in STATES)


def interval_text(verdict):
    if verdict.ratio is None:
        return ""
    return "%sx [%s, %s]" % (ratio_text(verdict.ratio), ratio_text(verdict.low),
                             ratio_text(verdict.high))



# --- A/A: the method's false positives ---------------------------------------------------------
# Two recordings of one release flag "changes" that cannot be real. Measured again the way a
# pair is (interleaved rounds, samples kept), the release against itself: asv runs it alone in
# 2 x rounds rounds of exactly ROUND_SAMPLES samples each, and the odd rounds are side A, the
# even rounds side B. Every change such a run confirms is a false positive of the verdict rule.
AA_PREFIX = "aa-"


def aa_project(project, release):
    """The project recording into (and reading) the A/A confirmations of one release:
    results-confirmations/aa-RELEASE (no '..': it is not a pair, the site and the changes
    report leave it alone)."""
    return load_project(project.config, os.path.join(confirmations_root(project),
                                                            AA_PREFIX + release))


def aa_candidates(project, release, flavor, name_a, name_b, factor, noise=None,
                  results_only=False):
    """The changes that asv's rule flags between two recordings of one release (recorded as
    name_a and name_b: experiments/, then the history), the timings, largest first."""
    (before, _), (after, _) = side_pair(project, release, flavor, (name_a, "default"),
                                        (name_b, "default"), results_only)
    return flagged(compare(before, after, factor), factor, noise)


def split_rounds(samples):
    """(side A, side B), each a list of rounds, of one A/A point's samples: rounds 1, 3, ...
    are A and 2, 4, ... are B. None unless the samples are an even number of whole rounds."""
    rounds = rounds_of(samples)
    if not rounds or len(rounds) % 2:
        return None
    return rounds[0::2], rounds[1::2]


def aa_verdicts(project, machine, release, flavor, changes, factor):
    """A Verdict for each A/A change from the A/A confirmation run of RELEASE."""
    store = aa_project(project, release).store
    commit, env_name = project.commit(release), project.environment(flavor)
    measured = (by_name(store.points(machine, commit, env_name))
                if store.has(machine, commit, env_name) else {})
    out = []
    for change in changes:
        point = measured.get(change.name)
        out.append(judged(change, split_rounds(point.samples) if point is not None else None,
                          factor))
    return out



# --- every confirmation held -------------------------------------------------------------------
HeldVerdict = namedtuple("HeldVerdict", "base head machine flavor env_name verdict")
PAIR_SEPARATOR = ".."


def held_pairs(project):
    """(BASE, HEAD) of every results-confirmations/BASE..HEAD folder beside the project's
    results, in name order."""
    folder = confirmations_root(project)
    if not os.path.isdir(folder):
        return []
    return [tuple(name.split(PAIR_SEPARATOR, 1)) for name in sorted(os.listdir(folder))
            if PAIR_SEPARATOR in name and os.path.isdir(os.path.join(folder, name))]


def measured_in_both(store, machine, commits, env_name):
    """The names of the points measured with samples at both commits of one environment."""
    names = []
    for commit in commits:
        names.append({p.name for p in store.points(machine, commit, env_name) if p.samples})
    return names[0] & names[1]


ARCHIVE = "results-archive"  # the history before the quiet-machine rule, beside results/


def history_of(project, machine, strict=True):
    """The history machine whose changes a confirmation machine's runs judge: its own where
    the results read (or the archived history beside them) hold it, else the history this
    checkout reads (a host of another CPU kind confirming the committed history's changes:
    `confirm` says which). Where the results hold several histories and none is this
    host's, that is a question for the user (MatrixError); strict=False: None (a report
    then leaves that machine's confirmations out)."""
    archive = os.path.join(os.path.dirname(project.results_dir), ARCHIVE)
    for folder in (project.results_dir, archive):
        if os.path.isdir(os.path.join(folder, machine)):
            return machine
    try:
        return reading_machine(project.store, None, lambda m: bool(project.store.files(m)),
                               "a history")
    except MatrixError:
        if strict:
            raise
        return None


def kind_label(store, machine):
    """The CPU kind(s) a machine's recordings in `store` were made on, else its name."""
    kinds = recorded_cpu_kinds(store, machine)
    return " and ".join(cpu_kind_text(k) for k in kinds) if kinds else machine


def other_kinds(project, machine, base, head, flavor, changes, factor):
    """{change name: [(CPU kind, Verdict)]} of the confirmations of `machine`'s changes that
    other machines (other CPU kinds) measured, verdicts only (not yet confirmed left out)."""
    store = confirmation_project(project, base, head).store
    out = {}
    for other in store.machines():
        if other == machine or history_of(project, other, strict=False) != machine:
            continue
        label = kind_label(store, other)
        for v in verdicts(project, machine, base, head, flavor, changes, factor, other):
            if v.state != UNCONFIRMED:
                out.setdefault(v.change.name, []).append((label, v))
    return out


def held_verdicts(project, factor):
    """A HeldVerdict for every point that a confirmation run measured at both of its
    releases (per folder, machine and flavor of this config), judged against that machine's
    own history's change of that point (flagged or not); pairs or points the history lacks,
    and other CPU kinds' runs, are left out."""
    flavor_of = dict((name, flavor) for flavor, name in project.environment_names().items())
    out = []
    for base, head in held_pairs(project):
        store = confirmation_project(project, base, head).store
        commits = (project.commit(base), project.commit(head))
        for machine in store.machines():
            for env_name in sorted({r.env_name for r in store.recordings(machine)}):
                if env_name not in flavor_of:
                    continue
                # the history's own kind only: the site gives one verdict a change (other
                # kinds' verdicts are CHANGES.md's "other CPU kinds" column)
                if history_of(project, machine, strict=False) != machine:
                    continue
                names = measured_in_both(store, machine, commits, env_name)
                if not all(project.store.has(machine, c, env_name) for c in commits):
                    continue  # the history has no recording of a side: nothing it flagged
                changes = history_changes(project, machine, base, head, flavor_of[env_name],
                                          factor)
                judged = verdicts(project, machine, base, head, flavor_of[env_name],
                                  [c for c in changes if c.name in names], factor)
                out += [HeldVerdict(base, head, machine, flavor_of[env_name], env_name, v)
                        for v in judged]
    return out


# --- the candidates a confirm run takes, and what it prints ----------------------------------
def selected(changes, bench=None):
    """The changes whose name the regex `bench` finds (all without one)."""
    return [c for c in changes if re.search(bench, c.name)] if bench else changes


def narrowed(changes, bench=None, limit=None):
    """selected(), then the first `limit` of them."""
    changes = selected(changes, bench)
    return changes[:limit] if limit else changes


def confirmed_at_least(project, history, base, head, flavor, changes, factor, ratio):
    """The changes that the history's own confirmation runs confirmed, at `ratio` or more
    either way (its confirmed ratio, not the history's)."""
    return [v.change for v in verdicts(project, history, base, head, flavor, changes, factor)
            if v.state == CONFIRMED and max(v.ratio, 1 / v.ratio) >= ratio]


def waiting(judged):
    """The changes of these verdicts that no confirmation run has judged yet."""
    return [v.change for v in judged if v.state == UNCONFIRMED]


def selection_text(bench=None, beyond_noise=False, at_least=None):
    """How the candidates were chosen: asv's rule, and what narrowed it."""
    return " (asv's rule%s%s%s)" % (
        ", beyond each point's noise" if beyond_noise else "",
        ", confirmed by the history's own runs at %sx or more" % at_least if at_least else "",
        ", -b %s" % bench if bench else "")


def verdicts_text(results, base, head, flavor, label=None, note=None):
    """The verdicts' table and their counts (label: an A/A pair's, whose "before" column is
    the recorded one, not the history's)."""
    rows = [(v.change.name, human_value(v.change.before, v.change.unit),
             human_value(v.change.after, v.change.unit), ratio_text(v.change.ratio),
             v.state, interval_text(v)) for v in results]
    lines = [tabulate(rows, headers=["point", base, head, "recorded" if label else "history",
                                     "verdict", "interleaved ratio [95 % interval]"])]
    count = counts(results)
    lines.append("%s, %s: %s%s" % (label or "%s -> %s" % (base, head), flavor,
                                   counts_text(count), " (%s)" % note if note else ""))
    if count[INCONCLUSIVE]:
        lines.append("inconclusive: the interleaved run can neither confirm nor refute them; "
                     "more --rounds can")
    return "\n".join(lines)
