"""The change rule: asv compare's verdict on two recordings of a point, and its ratio.

One rule for every command and report (changes, check, compare, find, confirm, noise): a
point changed when its ratio (after / before; for times, > 1 is slower) passes the factor
and asv's statistics say the two sides differ (asv.commands.compare._is_result_better, the
rule `asv compare` and `asv continuous` apply).
"""
from collections import namedtuple

from mxbench.core.results import measured

FASTER, SLOWER, SAME = "faster", "slower", "same"  # a Change's verdict
Change = namedtuple("Change", "name before after ratio verdict unit")


def compare(before, after, factor):
    """Changes for the points measured on both sides, with asv compare's verdict."""
    from asv.commands.compare import _is_result_better
    changes = []
    for name in sorted(set(before) & set(after)):
        a, b = before[name], after[name]
        if not (measured(a.value) and measured(b.value)) or a.value <= 0:
            continue
        ss_a, ss_b = (a.stats, a.samples), (b.stats, b.samples)
        if _is_result_better(b.value, a.value, ss_b, ss_a, factor):
            verdict = FASTER
        elif _is_result_better(a.value, b.value, ss_a, ss_b, factor):
            verdict = SLOWER
        else:
            verdict = SAME
        changes.append(Change(name, a.value, b.value, b.value / a.value, verdict, a.unit))
    return changes
