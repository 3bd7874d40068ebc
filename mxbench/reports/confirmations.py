"""Verdicts of the confirmation runs (`python -m mxbench confirm`): for each change the history
flags between two releases, confirmed, refuted or not yet confirmed, with the interleaved
ratio and its 95 % interval. Read by `confirm` and by the changes report (reports/CHANGES.md).
"""
import math
import os
from collections import namedtuple

from mxbench.core import project as project_model
from mxbench.core.errors import UserError
from mxbench.core.formatting import ratio_text
from mxbench.core.results import by_name
from mxbench.core.stats import ratio_interval

CONFIRMATIONS = "results-confirmations"  # beside the results directory it confirms
ROUNDS = 4  # interleaved rounds per release: ~3x the samples of a history recording
LEVEL = 0.95
FACTOR = 1.2  # the history's factor (asv's rule) when none is given: confirm's and the report's

Verdict = namedtuple("Verdict", "change state ratio low high")
CONFIRMED, REFUTED, UNCONFIRMED = "confirmed", "refuted", "not yet confirmed"


def confirmations_root(project):
    """<results>/../results-confirmations: the confirmation runs of the project's results."""
    return os.path.join(os.path.dirname(project.results_dir), CONFIRMATIONS)


def confirmation_dir(project, base, head):
    """<results>/../results-confirmations/BASE..HEAD: one asv results directory a pair."""
    return os.path.join(confirmations_root(project), "%s..%s" % (base, head))


def confirmation_project(project, base, head):
    """The project recording into (and reading) the confirmations of BASE..HEAD."""
    return project_model.load(project.config, confirmation_dir(project, base, head))


def history_changes(project, machine, base, head, flavor, factor):
    """The history's Change of every timing of `flavor` measured at BASE and HEAD (asv's
    verdict at `factor`, "same" included)."""
    from mxbench.reports.changes import compare
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
    flagged = [c for c in history_changes(project, machine, base, head, flavor, factor)
               if c.verdict != "same" and (noise is None or noise.beyond(c, factor))]
    return sorted(flagged, key=lambda c: -abs(math.log(c.ratio)))


def verdicts(project, machine, base, head, flavor, changes, factor):
    """A Verdict for each change from the confirmation runs of BASE..HEAD."""
    store = confirmation_project(project, base, head).store
    env_name = project.environment(flavor)
    measured = {}
    if store.has(machine, project.commit(base), env_name) and \
            store.has(machine, project.commit(head), env_name):
        measured = [by_name(store.points(machine, project.commit(r), env_name))
                    for r in (base, head)]
    out = []
    for change in changes:
        interval = None
        if measured and change.name in measured[0] and change.name in measured[1]:
            interval = ratio_interval(measured[0][change.name].samples,
                                      measured[1][change.name].samples, LEVEL)
        if interval is None:
            out.append(Verdict(change, UNCONFIRMED, None, None, None))
            continue
        out.append(Verdict(change, decide(change.ratio, interval, factor), *interval))
    return out


def decide(history_ratio, interval, factor):
    """CONFIRMED when the interleaved (ratio, low, high) goes the history's way, past the
    factor, with its interval beyond 1; else REFUTED (no change, a smaller one, or the
    other way)."""
    ratio, low, high = interval
    if history_ratio > 1:
        return CONFIRMED if low > 1 and ratio >= factor else REFUTED
    return CONFIRMED if high < 1 and ratio <= 1 / factor else REFUTED


def counts(verdicts):
    """{state: how many of the verdicts are in it}, every state present."""
    return dict((state, sum(v.state == state for v in verdicts))
                for state in (CONFIRMED, REFUTED, UNCONFIRMED))


def interval_text(verdict):
    if verdict.ratio is None:
        return ""
    return "%sx [%s, %s]" % (ratio_text(verdict.ratio), ratio_text(verdict.low),
                             ratio_text(verdict.high))




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


def held_verdicts(project, factor):
    """A HeldVerdict for every point that a confirmation run measured at both of its
    releases (per folder, machine and flavor of this config), judged against the history's
    change of that point (flagged or not); pairs or points the history lacks are left out."""
    flavor_of = dict((name, flavor) for flavor, name in project.environment_names().items())
    out = []
    for base, head in held_pairs(project):
        store = confirmation_project(project, base, head).store
        commits = (project.commit(base), project.commit(head))
        for machine in store.machines():
            for env_name in sorted({r.env_name for r in store.recordings(machine)}):
                if env_name not in flavor_of:
                    continue
                names = measured_in_both(store, machine, commits, env_name)
                try:
                    changes = history_changes(project, machine, base, head,
                                              flavor_of[env_name], factor)
                except UserError:
                    continue  # the history has no recording of a side: nothing it flagged
                judged = verdicts(project, machine, base, head, flavor_of[env_name],
                                  [c for c in changes if c.name in names], factor)
                out += [HeldVerdict(base, head, machine, flavor_of[env_name], env_name, v)
                        for v in judged]
    return out
