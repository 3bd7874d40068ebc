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


def ratio_interval(before, after, level=0.95, resamples=2000, seed=0):
    """(ratio, low, high): median(after) / median(before) and its bootstrap percentile
    interval (both sides resampled, a fixed seed: the same samples give the same interval);
    None when a side has no sample. Kalibera & Jones: a ratio is reported with its interval."""
    a = np.asarray([s for s in before or () if not is_missing(s)], dtype=float)
    b = np.asarray([s for s in after or () if not is_missing(s)], dtype=float)
    if a.size == 0 or b.size == 0 or not np.median(a) > 0:
        return None
    rng = np.random.RandomState(seed)
    ratios = (np.median(b[rng.randint(0, b.size, (resamples, b.size))], axis=1)
              / np.median(a[rng.randint(0, a.size, (resamples, a.size))], axis=1))
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return float(np.median(b) / np.median(a)), float(low), float(high)
