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

Verdict = namedtuple("Verdict", "change state ratio low high")
CONFIRMED, REFUTED, UNCONFIRMED = "confirmed", "refuted", "not yet confirmed"


def confirmation_dir(project, base, head):
    """<results>/../results-confirmations/BASE..HEAD: one asv results directory a pair."""
    return os.path.join(os.path.dirname(project.results_dir), CONFIRMATIONS,
                        "%s..%s" % (base, head))


def confirmation_project(project, base, head):
    """The project recording into (and reading) the confirmations of BASE..HEAD."""
    return project_model.load(project.config, confirmation_dir(project, base, head))


def candidates(project, machine, base, head, flavor, factor, noise=None):
    """The history's changes of `flavor` from BASE to HEAD that pass asv's rule (timings),
    largest first; with a noise table, only those beyond each point's noise too."""
    from mxbench.reports.changes import compare
    env_name = project.environment(flavor)
    sides = []
    for release in (base, head):
        commit = project.commit(release)
        if not project.store.has(machine, commit, env_name):
            raise UserError("%s %s is not recorded on machine %s: nothing to confirm"
                            % (release, flavor, machine))
        sides.append(by_name(project.store.points(machine, commit, env_name)))
    flagged = [c for c in compare(sides[0], sides[1], factor)
               if c.unit == "seconds" and c.verdict != "same"
               and (noise is None or noise.beyond(c, factor))]
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


