"""Summary statistics of timing samples, and what can be said from asv's own summary.

Percentiles use asv's own definition (numpy's linear interpolation), so p50 of the samples
is asv's `result`. Imported by the ad-hoc runner inside MXNet environments too: numpy only,
Python 3.7 syntax.
"""
import math

import numpy as np

# Row fields, in the order reports show them.
FIELDS = ("sample_count", "mean", "median", "min", "max", "p50", "p90", "p99",
          "q25", "q75", "iqr")
PERCENTILES = {"p50": 50, "p90": 90, "p99": 99, "q25": 25, "q75": 75}

SOURCE_SAMPLES = "samples"
SOURCE_ASV_SUMMARY = "asv-summary"
SOURCE_VALUE_ONLY = "value-only"


def empty_summary():
    """Every field present and unknown (None): a summary never invents a number."""
    return dict((name, None) for name in FIELDS)


def is_missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def summarize_samples(samples):
    """All FIELDS from raw samples (a sequence of numbers); None fields when there are none."""
    values = np.asarray([s for s in samples if not is_missing(s)], dtype=float)
    summary = empty_summary()
    summary["sample_count"] = int(values.size)
    if values.size == 0:
        return summary
    points = np.percentile(values, [PERCENTILES[k] for k in sorted(PERCENTILES)])
    summary.update(zip(sorted(PERCENTILES), (float(p) for p in points)))
    summary["mean"] = float(np.mean(values))
    summary["median"] = float(np.median(values))
    summary["min"] = float(np.min(values))
    summary["max"] = float(np.max(values))
    summary["iqr"] = summary["q75"] - summary["q25"]
    return summary


def summarize_asv_stats(result, stats):
    """The FIELDS that asv's stored summary supports when no samples were recorded.

    asv keeps `result` (the median of the samples for time_ benchmarks) and, per parameter
    combination, q_25, q_75, repeat (how many samples) and number (calls averaged into each
    sample). Mean, min, max, p90 and p99 are not recoverable from that: they stay None.
    """
    summary = empty_summary()
    stats = stats or {}
    if not is_missing(result):
        summary["median"] = summary["p50"] = float(result)
    q25, q75 = stats.get("q_25"), stats.get("q_75")
    if not is_missing(q25) and not is_missing(q75):
        summary["q25"], summary["q75"] = float(q25), float(q75)
        summary["iqr"] = float(q75) - float(q25)
    if stats.get("repeat") is not None:
        summary["sample_count"] = int(stats["repeat"])
    return summary


def is_ordered(summary):
    """min <= q25 <= p50 <= q75, p50 <= p90 <= p99 <= max, over the fields that are known."""
    chains = (("min", "q25", "p50", "q75", "max"), ("min", "p50", "p90", "p99", "max"))
    for chain in chains:
        known = [summary[k] for k in chain if summary.get(k) is not None]
        if any(a > b for a, b in zip(known, known[1:])):
            return False
    return True


def measured_rounds(rounds):
    """The rounds (lists of samples) as arrays of their measured samples, empty rounds left
    out; None is no rounds."""
    kept = [np.asarray([s for s in r if not is_missing(s)], dtype=float) for r in rounds or ()]
    return [r for r in kept if r.size]


def round_ratio_interval(before_rounds, after_rounds, level=0.95, resamples=2000, seed=0):
    """(ratio, low, high): median(after) / median(before) over all samples, and its bootstrap
    percentile interval (both sides resampled, a fixed seed: the same samples give the same
    interval; Kalibera & Jones: a ratio is reported with its interval). The bootstrap
    resamples whole rounds (a cluster bootstrap): a round is one benchmark process, and its
    samples share that process's state (memory layout, thread placement), so they are no
    independent draws. Measured (docs/trust.md, the A/A run): one build's rounds differ by
    up to 2x, far more than the samples inside a round, and a per-sample bootstrap calls
    that real.
    Each side is a list of rounds (lists of samples); None when a side has no round with a
    sample."""
    sides = [measured_rounds(before_rounds), measured_rounds(after_rounds)]
    if not sides[0] or not sides[1]:
        return None
    before_all, after_all = np.concatenate(sides[0]), np.concatenate(sides[1])
    if not np.median(before_all) > 0:
        return None
    rng = np.random.RandomState(seed)

    def medians(rounds):
        picks = rng.randint(0, len(rounds), (resamples, len(rounds)))
        if len(set(r.size for r in rounds)) == 1:
            # rounds of one size (the rule: 5 samples each): every resample in one array
            return np.median(np.stack(rounds)[picks].reshape(resamples, -1), axis=1)
        return np.array([np.median(np.concatenate([rounds[i] for i in row])) for row in picks])
    ratios = medians(sides[1]) / medians(sides[0])
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return float(np.median(after_all) / np.median(before_all)), float(low), float(high)


def rounds_separated(before_rounds, after_rounds, slower):
    """Whether every round of `after` lies beyond every round of `before` (by its median):
    above when `slower`, else below. For rounds of one build, in random order, a chance of
    1 / C(n + m, n) (4 rounds a side: 1 in 70): a rank test on whole rounds, which are the
    independent units (round_ratio_interval)."""
    medians = [[float(np.median(r)) for r in measured_rounds(rounds)]
               for rounds in (before_rounds, after_rounds)]
    if not medians[0] or not medians[1]:
        return False
    if slower:
        return min(medians[1]) > max(medians[0])
    return max(medians[1]) < min(medians[0])
