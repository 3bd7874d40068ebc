"""mxbench.stats with known inputs, and against asv's own quantile definition."""
import math

import pytest
from asv_runner.statistics import compute_stats, quantile

from mxbench.core import stats


def test_samples_one_to_hundred():
    summary = stats.summarize_samples(range(1, 101))
    assert summary["sample_count"] == 100
    assert summary["mean"] == pytest.approx(50.5)
    assert summary["median"] == summary["p50"] == pytest.approx(50.5)
    assert summary["min"] == 1 and summary["max"] == 100
    # Linear interpolation: position (n - 1) * q into the sorted samples.
    assert summary["p90"] == pytest.approx(90.1)
    assert summary["p99"] == pytest.approx(99.01)
    assert summary["q25"] == pytest.approx(25.75)
    assert summary["q75"] == pytest.approx(75.25)
    assert summary["iqr"] == pytest.approx(49.5)


def test_small_sample_by_hand():
    summary = stats.summarize_samples([4.0, 1.0, 3.0, 2.0])
    assert summary["median"] == 2.5
    assert summary["q25"] == pytest.approx(1.75)
    assert summary["q75"] == pytest.approx(3.25)
    assert summary["p90"] == pytest.approx(3.7)
    assert summary["p99"] == pytest.approx(3.97)


def test_single_sample():
    summary = stats.summarize_samples([0.5])
    assert summary["sample_count"] == 1
    for key in ("mean", "median", "min", "max", "p50", "p90", "p99", "q25", "q75"):
        assert summary[key] == 0.5
    assert summary["iqr"] == 0.0


def test_no_samples_means_no_numbers():
    summary = stats.summarize_samples([])
    assert summary["sample_count"] == 0
    assert all(summary[k] is None for k in stats.FIELDS if k != "sample_count")


def test_missing_samples_are_dropped():
    summary = stats.summarize_samples([1.0, None, float("nan"), 3.0])
    assert summary["sample_count"] == 2
    assert summary["mean"] == 2.0


@pytest.mark.parametrize("samples", [
    [3e-5, 1e-5, 2e-5, 9e-5, 1.1e-5],
    [0.25, 0.5, 0.125, 1.0, 2.0, 4.0, 0.0625],
    list(range(37)),
])
def test_matches_asv_definitions(samples):
    """Our p50/q25/q75 are asv's: the same numbers asv stores for the same samples."""
    summary = stats.summarize_samples(samples)
    result, asv_stats = compute_stats(samples, 1)
    assert summary["p50"] == pytest.approx(result, rel=1e-12)
    assert summary["q25"] == pytest.approx(quantile(samples, 0.25), rel=1e-12)
    assert summary["q75"] == pytest.approx(quantile(samples, 0.75), rel=1e-12)
    assert summary["sample_count"] == asv_stats["repeat"]
    assert stats.is_ordered(summary)


def test_asv_summary_fills_only_what_it_supports():
    summary = stats.summarize_asv_stats(
        2.0e-4, {"q_25": 1.5e-4, "q_75": 2.5e-4, "repeat": 10, "number": 3,
                 "ci_99_a": 1e-4, "ci_99_b": 3e-4})
    assert summary["median"] == summary["p50"] == 2.0e-4
    assert summary["q25"] == 1.5e-4 and summary["q75"] == 2.5e-4
    assert summary["iqr"] == pytest.approx(1.0e-4)
    assert summary["sample_count"] == 10  # repeat = samples; number = calls per sample
    for key in ("mean", "min", "max", "p90", "p99"):
        assert summary[key] is None


def test_asv_summary_without_stats():
    summary = stats.summarize_asv_stats(7.0, None)
    assert summary["median"] == 7.0
    assert summary["sample_count"] is None and summary["iqr"] is None
    summary = stats.summarize_asv_stats(float("nan"), {"repeat": 3})
    assert summary["median"] is None and summary["sample_count"] == 3


def test_is_ordered():
    assert stats.is_ordered(stats.summarize_samples([5, 1, 4, 2, 3]))
    assert stats.is_ordered(stats.empty_summary())
    broken = dict(stats.empty_summary(), min=2.0, p50=1.0)
    assert not stats.is_ordered(broken)


def test_is_missing():
    assert stats.is_missing(None) and stats.is_missing(math.nan)
    assert not stats.is_missing(0.0)
