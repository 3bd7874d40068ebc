"""`mxbench find`'s verdict on the final pair of a bisection (asvrun/bisection.py): asv
compare's rule point by point, each moved point with its confirmation verdicts; on counts, a
count that moved beyond COUNT_SPREAD. (found, text) each: the front prints the text and
returns the exit code."""
import re

from mxbench.core.change_rule import compare
from mxbench.core.errors import UserError
from mxbench.core.formatting import change_text
from mxbench.reports.changes import COUNT_SPREAD, count_figures, count_pairs
from mxbench.reports.confirmations import (UNCONFIRMED, interval_text, kind_label, other_kinds,
                                           verdicts)


def step_verdict(project, machine, flavor, benchmark, pair, points, factor, invert):
    """(found, text): asv compare's rule on the final pair `pair` ((before, after), their
    recorded points `points`) at `factor`; the moved points with their verdicts."""
    before, after = pair
    wanted = "faster" if invert else "slower"
    moved = [c for c in compare(points[0], points[1], factor) if c.verdict == wanted]
    kind = "improvement" if invert else "regression"
    if not moved:
        return False, ("No significant %s (asv's rule at %.2fx) in %s..%s; the largest step "
                       "is %s -> %s, and it is within the noise"
                       % (kind, factor, before, after, before, after))
    lines = ["Greatest %s found: %s (%s -> %s); points %s significantly beyond %.2fx:"
             % (kind, after, before, after, wanted, factor)]
    judged = verdicts(project, machine, before, after, flavor, moved, factor)
    others = other_kinds(project, machine, before, after, flavor, moved, factor)
    if any(v.state != UNCONFIRMED for v in judged):  # a verdict is a CPU kind's
        lines.append("  (verdicts on %s%s)" % (kind_label(project.store, machine),
                                               ", and each other kind's after it"
                                               if others else ""))
    for v in sorted(judged, key=lambda v: v.change.ratio, reverse=not invert):
        lines.append("  %s  %s  %s%s" % (
            v.change.name, change_text(v.change.before, v.change.after, v.change.unit),
            ("%s %s" % (v.state, interval_text(v))).rstrip(), "".join(
                "; on %s: %s %s" % (kind, o.state, interval_text(o))
                for kind, o in others.get(v.change.name, []))))
    if any(v.state == UNCONFIRMED for v in judged):
        lines.append("Confirm the step (both releases again, interleaved): python -m mxbench "
                     "confirm %s %s --flavor %s -b '%s'"
                     % (before, after, flavor, re.escape(benchmark)))
    return True, "\n".join(lines)


def count_verdict(flavor, pair, points, invert):
    """(found, text): a count of the final pair that moved beyond COUNT_SPREAD; UserError
    where the two were counted by different versions of the counting code."""
    before, after = pair
    moves, refused = count_pairs(*points)
    if refused:  # a step between two versions of the counting code is no release's
        raise UserError("%s -> %s: %s: %s; count both with this checkout: python -m "
                        "mxbench run %s %s --flavor %s --bench '^bench_instructions\\.' "
                        "--rerun" % (before, after, refused[0][0], refused[0][1], before,
                                     after, flavor))
    wanted = "faster" if invert else "slower"
    found = [c for c in moves if c.verdict == wanted]
    what = "fewer" if invert else "more"
    lines = ["  %s  %s" % (c.name, count_figures(c)) for c in moves]
    if not found:
        lines.append("No instruction-count step (%s instructions, beyond %g %%) in %s..%s; the "
                     "largest step is %s -> %s" % (what, 100 * COUNT_SPREAD, before, after,
                                                   before, after))
        return False, "\n".join(lines)
    lines.append("Instruction-count step found: %s (%s -> %s): %s instructions beyond %g %%, "
                 "another code path" % (after, before, after, what, 100 * COUNT_SPREAD))
    return True, "\n".join(lines)
