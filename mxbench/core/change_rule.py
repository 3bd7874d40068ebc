"""The change rule: asv compare's verdict on two recordings of a point, and its ratio.

One rule for every command and report (changes, check, compare, find, confirm, noise): a
point changed when its ratio (after / before; for times, > 1 is slower) passes the factor
and asv's statistics say the two sides differ (asv.commands.compare._is_result_better, the
rule `asv compare` and `asv continuous` apply).

asv's exact Mann-Whitney test sums its distribution term by term, each term with a binomial
coefficient computed afresh, for every point compared; the same (sample sizes, U) come back
thousands of times in a report over the history (`mxbench changes releases`: 111,000 sums,
over half of its time). asv_rule() keeps each sum once per process: the same floats, computed
by asv's own function.
"""
import functools
from collections import namedtuple

from mxbench.core.results import measured

FASTER, SLOWER, SAME = "faster", "slower", "same"  # a Change's verdict
Change = namedtuple("Change", "name before after ratio verdict unit")


def asv_rule():
    """asv compare's _is_result_better, with asv's exact Mann-Whitney cdf memoized (asv is
    imported here: some commands run where it is not installed)."""
    from asv import _stats
    from asv.commands.compare import _is_result_better
    if not getattr(_stats.mann_whitney_u_cdf, "memoized", False):
        _stats.mann_whitney_u_cdf = memoized_cdf(_stats.mann_whitney_u_cdf,
                                                 _stats._mann_whitney_u_memo)
    return _is_result_better


def memoized_cdf(exact_cdf, memo):
    """asv's mann_whitney_u_cdf(m, n, u, memo=None), each (m, n, u) computed once."""
    once = functools.lru_cache(maxsize=None)(lambda m, n, u: exact_cdf(m, n, u, memo))

    def mann_whitney_u_cdf(m, n, u, memo=None):
        return once(m, n, u)
    mann_whitney_u_cdf.memoized, mann_whitney_u_cdf.exact = True, exact_cdf
    return mann_whitney_u_cdf


def compare(before, after, factor):
    """Changes for the points measured on both sides, with asv compare's verdict."""
    _is_result_better = asv_rule()
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
