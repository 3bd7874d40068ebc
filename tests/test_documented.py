"""The documented changes judged at their shapes: the interleaved verdict of a point, the
field history's rows, the plan `confirm --documented` measures, and the history's changes
narrowed to those its own confirmation runs confirmed (`confirm --confirmed-at-least`)."""
import random

from mxbench.core.change_rule import Change
from mxbench.reports import documented
from mxbench.reports.documented import (NOT_SEEN, OTHER_WAY, SEEN, check_documented,
                                        documented_markdown, point_verdict)

FC = "bench_operators.FullyConnected.time_forward('%s', 'float32', 'cpu')"
ENTRY = {"release": "1.8.0", "benchmarks": ["bench_operators.FullyConnected.time_forward"],
         "flavors": ["cpu-mkldnn"], "expect": "faster", "what": "FC small batches",
         "source": "https://example.invalid/17980", "cases": ["field-17980"],
         "size": "3.7x", "shapes": "(5, 2048, 512)"}


def rounds(center, n=4, spread=0.01, seed=0):
    """Samples of n interleaved rounds of 5 around `center`."""
    rng = random.Random(seed)
    return [center * (1 + rng.uniform(-spread, spread)) for _ in range(5 * n)]


def test_a_point_that_moved_the_documented_way_is_seen():
    v = point_verdict("p", rounds(1.0), rounds(0.4, seed=1), "faster", 1.2)
    assert v.state == SEEN and 0.38 < v.ratio < 0.42 and v.low <= v.ratio <= v.high


def test_a_point_that_moved_the_other_way_says_so():
    assert point_verdict("p", rounds(1.0), rounds(2.0, seed=1), "faster", 1.2).state == OTHER_WAY


def test_a_point_that_did_not_move_is_not_seen_with_an_interval_inside_the_factor():
    v = point_verdict("p", rounds(1.0), rounds(1.01, seed=1), "faster", 1.2)
    assert v.state == NOT_SEEN and 1 / 1.2 < v.low and v.high < 1.2


def test_a_point_with_too_few_rounds_has_no_verdict():
    assert point_verdict("p", rounds(1.0, n=1), rounds(0.4, n=1), "faster", 1.2) is None
    assert point_verdict("p", rounds(1.0)[:7], rounds(0.4), "faster", 1.2) is None  # no whole rounds


def test_a_noisy_point_past_the_factor_without_separated_rounds_is_inconclusive():
    before = [1.0] * 5 + [0.3] * 5 + [1.0] * 5 + [1.0] * 5
    after = [0.4] * 5 + [0.4] * 5 + [0.4] * 5 + [0.4] * 5
    assert point_verdict("p", before, after, "faster", 1.2).state not in (SEEN, NOT_SEEN)


class FieldRecords(documented.FieldHistory):
    """A FieldHistory over given pairs and interleaved samples (no store)."""

    def __init__(self, pairs, samples):
        documented.FieldHistory.__init__(self, None, "field-host", 1.2)
        self._given, self.samples = pairs, samples

    def pairs(self, flavor):
        return self._given

    def label(self):
        return "field-host (a CPU)"

    def point_verdicts(self, base, head, flavor, names, expect):
        out = {}
        for name in names:
            if (base, head, name) in self.samples:
                before, after = self.samples[(base, head, name)]
                out[name] = point_verdict(name, before, after, expect, self.factor)
        return out


def test_the_field_history_judges_an_entry_at_its_shape_with_its_interleaved_run():
    catalogue = [Change(FC % "medium", 1.0, 1.0, 1.0, "same", "seconds")]  # committed history
    field_pair = [Change(FC % "field-17980", 1.0, 0.5, 0.5, "faster", "seconds"),
                  Change(FC % "field-bs1", 1.0, 1.0, 1.0, "same", "seconds")]
    report = {"cpu-mkldnn": [("1.7.0.post2", "1.8.0.post0", catalogue)]}
    pairs = [("1.7.0.post2", "1.8.0.post0", field_pair)]
    seen = FieldRecords(pairs, {("1.7.0.post2", "1.8.0.post0", FC % "field-17980"):
                                (rounds(1.0), rounds(0.5, seed=2))})
    row = check_documented(report, [ENTRY], field=seen)[0]
    assert row.verdict == "seen and confirmed at its shape" and row.where is seen
    assert row.confirmation[0] == SEEN and row.confirmation[2:] == (1, 1)
    text = documented_markdown([row], [ENTRY], seen)
    assert "seen and confirmed at its shape" in text and "field-host (a CPU)" in text
    assert "1 of the 1 measurable seen and confirmed" in text
    # measured again and unchanged: not seen at its shape, with its interval
    flat = FieldRecords(pairs, {("1.7.0.post2", "1.8.0.post0", FC % "field-17980"):
                                (rounds(1.0), rounds(1.0, seed=2))})
    row = check_documented(report, [ENTRY], field=flat)[0]
    assert row.verdict == "not seen at its shape" and row.confirmation[0] == NOT_SEEN
    # not measured again yet: the history's verdict, said to be unconfirmed
    row = check_documented(report, [ENTRY], field=FieldRecords(pairs, {}))[0]
    assert row.verdict == "seen at its shape (not yet confirmed)" and row.confirmation is None


def test_a_change_not_seen_at_its_pair_is_looked_for_in_the_others():
    flat = [Change(FC % "field-17980", 1.0, 1.0, 1.0, "same", "seconds")]
    later = [Change(FC % "field-17980", 1.0, 0.3, 0.3, "faster", "seconds")]
    pairs = [("1.7.0.post2", "1.8.0.post0", flat), ("1.8.0.post0", "1.9.0", later)]
    row = check_documented({}, [ENTRY], field=FieldRecords(pairs, {}))[0]
    assert row.verdict == "not seen at its shape"
    assert row.elsewhere == "1.8.0.post0 → 1.9.0 (0.30x)"
    assert "the documented way elsewhere: 1.8.0.post0 → 1.9.0" in documented_markdown([row])


def test_without_field_records_the_committed_history_and_its_confirmations_judge():
    from mxbench.reports.confirmations import CONFIRMED, Verdict
    entry = dict(ENTRY, cases=[])
    changes = [Change(FC % "medium", 1.0, 0.5, 0.5, "faster", "seconds")]
    report = {"cpu-mkldnn": [("1.7.0.post2", "1.8.0.post0", changes)]}

    def judge(flavor, ra, rb, flagged):
        return [Verdict(c, CONFIRMED, 0.52, 0.5, 0.55) for c in flagged]
    row = check_documented(report, [entry], judge=judge)[0]
    assert row.verdict == "seen and confirmed" and row.where is None


def test_the_plan_measures_every_field_point_of_the_bracketing_pair(monkeypatch):
    field_pair = [Change(FC % "field-17980", 1.0, 1.0, 1.0, "same", "seconds"),
                  Change(FC % "medium", 1.0, 0.5, 0.5, "faster", "seconds")]
    monkeypatch.setattr(documented, "load_documented", lambda: [ENTRY])
    monkeypatch.setattr(documented.FieldHistory, "pairs",
                        lambda self, flavor: [("1.7.0.post2", "1.8.0.post0", field_pair)])
    plan = documented.confirmation_plan(None, "m", "cpu-mkldnn", 1.2)
    assert dict(plan) == {("1.7.0.post2", "1.8.0.post0"): [FC % "field-17980"]}  # unflagged too
    assert documented.confirmation_plan(None, "m", "cpu-openblas", 1.2) == {}
    assert documented.confirmation_plan(None, "m", "cpu-mkldnn", 1.2, bench="Conv") == {}


def test_only_the_changes_the_history_confirmed_past_the_ratio_are_measured_again(monkeypatch):
    from mxbench.reports import confirmations
    from mxbench.reports.confirmations import CONFIRMED, REFUTED, Verdict
    changes = [Change("a", 1, 2.0, 2.0, "slower", "seconds"),
               Change("b", 1, 0.6, 0.6, "faster", "seconds"),
               Change("c", 1, 1.3, 1.3, "slower", "seconds"),
               Change("d", 1, 3.0, 3.0, "slower", "seconds")]
    confirmed = {"a": (CONFIRMED, 1.9), "b": (CONFIRMED, 0.62), "c": (CONFIRMED, 1.3),
                 "d": (REFUTED, 1.0)}
    monkeypatch.setattr(confirmations, "verdicts", lambda *a: [
        Verdict(c, confirmed[c.name][0], confirmed[c.name][1], 0, 0) for c in a[5]])
    kept = confirmations.confirmed_at_least(None, "m", "x", "y", "f", changes, 1.2, 1.5)
    assert [c.name for c in kept] == ["a", "b"]
