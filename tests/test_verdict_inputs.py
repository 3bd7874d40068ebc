"""Inputs to verdicts are validated (issue 44): rounds, counts and limits, noise tables (from
distinct recordings of enough days, with values that are ratios). Real commands on the
committed recordings; the bad inputs are real files."""
import json
import shutil
import subprocess
import sys

import pytest

from mxbench.reports import confirmations
from mxbench.reports.changes import Change
from tests.conftest import HISTORY_MACHINE, ROOT


def mxbench(*args):
    return subprocess.run([sys.executable, "-m", "mxbench"] + list(args), cwd=str(ROOT),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=900)


def refused(proc, message):
    """Exit 2 with `message` in its last line, and no traceback."""
    assert proc.returncode == 2, proc.stdout[-2000:]
    assert message in proc.stdout.strip().splitlines()[-1], proc.stdout[-2000:]
    assert "Traceback" not in proc.stdout, proc.stdout[-2000:]


# --- rounds a side ------------------------------------------------------------------------------
@pytest.mark.parametrize("rounds", ["1", "0", "-3"])
def test_confirm_needs_two_rounds_a_side(rounds):
    """One round a side confirmed 0.35x [0.35, 0.35]; -3 ran asv. Refused before anything
    runs (no machine is started: the argument is checked first)."""
    proc = mxbench("confirm", "1.9.0", "1.9.1", "--limit", "1", "--rounds", rounds)
    refused(proc, "argument --rounds: --rounds must be 2 or more, not %s" % rounds)


def test_the_default_is_four_rounds_a_side():
    assert confirmations.ROUNDS == 4 and confirmations.MIN_ROUNDS == 2


def rounds(*medians):
    """Rounds of ROUND_SAMPLES samples around each median."""
    return [[m * (1 + 0.001 * i) for i in range(confirmations.ROUND_SAMPLES)] for m in medians]


def test_recorded_rounds_fewer_than_two_a_side_are_no_verdict():
    """A point measured in one round a side (a run of --rounds 1, recorded before the rule)
    is not yet confirmed, however far apart its rounds are; two rounds a side are judged."""
    change = Change("bench_operators.relu.time_forward('medium', 'float32', 'cpu')",
                    1e-3, 3e-3, 3.0, "slower", "seconds")
    one = confirmations.judged(change, (rounds(1e-3), rounds(3e-3)), 1.2)
    assert one.state == confirmations.UNCONFIRMED and one.ratio is None
    uneven = confirmations.judged(change, (rounds(1e-3, 1e-3), rounds(3e-3)), 1.2)
    assert uneven.state == confirmations.UNCONFIRMED
    two = confirmations.judged(change, (rounds(1e-3, 1.01e-3), rounds(3e-3, 3.02e-3)), 1.2)
    assert two.state == confirmations.CONFIRMED


def test_an_aa_split_of_two_rounds_is_no_verdict():
    """An A/A run of --rounds 1 (two rounds: one a side) judges nothing."""
    change = Change("x", 1e-3, 3e-3, 3.0, "slower", "seconds")
    samples = sum(rounds(1e-3, 3e-3), [])
    verdict = confirmations.judged(change, confirmations.split_rounds(samples), 1.2)
    assert verdict.state == confirmations.UNCONFIRMED


# --- counts and limits --------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["confirm", "1.9.0", "1.9.1", "--list", "--limit"],
    ["cost", "--release", "1.9.1", "--top"],
    ["changes", "releases", "--top"],
    ["adhoc", "--op", "relu", "--runs"],
])
@pytest.mark.parametrize("number", ["-1", "0"])
def test_counts_and_limits_are_positive(args, number):
    """--limit -1 dropped the last candidate, --top -1 sliced silently."""
    proc = mxbench(*(args + [number]))
    refused(proc, "argument %s: a count must be 1 or more, not %s" % (args[-1], number))


def test_a_positive_limit_still_lists():
    proc = mxbench("confirm", "1.9.0", "1.9.1", "--list", "--limit", "1")
    assert proc.returncode == 0, proc.stdout[-2000:]


# --- noise tables: distinct recordings, enough days ----------------------------------------------
AA = "experiments/amd-epyc-2cpu-24gb-"  # the archived history's A/A recordings of 1.9.1


def test_a_noise_table_is_not_one_recording_given_three_times(tmp_path):
    out = tmp_path / "noise.json"
    proc = mxbench("noise", AA + "aa", AA + "aa", AA + "aa", "--release", "1.9.1", "-o",
                   str(out))
    refused(proc, "are one recording: a point's noise needs distinct recordings")
    assert not out.exists()


def test_a_copy_of_a_recording_is_the_same_recording(tmp_path):
    """A recording copied into another results directory is still one recording."""
    copy = tmp_path / "experiments" / "amd-epyc-2cpu-24gb-aa"
    shutil.copytree(str(ROOT / (AA + "aa")), str(copy))
    shutil.copy(str(ROOT / "experiments" / "benchmarks.json"), str(tmp_path / "experiments"))
    proc = mxbench("noise", AA + "aa", str(copy), AA + "set-old1", AA + "short3-a",
                   "--release", "1.9.1")
    refused(proc, "are one recording")


def test_a_noise_table_needs_three_days(tmp_path):
    """aa and aa2 on 2026-11-21, short3-a on -25: three recordings, two days."""
    out = tmp_path / "noise.json"
    proc = mxbench("noise", AA + "aa", AA + "aa2", AA + "short3-a", "--release", "1.9.1",
                   "-o", str(out))
    refused(proc, "3 recording(s) on 2 day(s) (2026-11-21, 2026-11-25): a noise table needs "
                  "recordings of at least 3 different days")
    assert not out.exists()
    proc = mxbench("noise", AA + "aa", AA + "set-old1", AA + "short3-a", "--release", "1.9.1",
                   "-o", str(out))
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert json.loads(out.read_text())["days"] == ["2026-11-21", "2026-11-23", "2026-11-25"]


# --- noise values -------------------------------------------------------------------------------
def table_with(tmp_path, change):
    """The history's committed noise table with `change(data)` applied, as a file."""
    data = json.loads((ROOT / "reports" / "noise" / (HISTORY_MACHINE + ".json")).read_text())
    change(data)
    path = tmp_path / "noise.json"
    path.write_text(json.dumps(data))
    return str(path)


def first_point(data):
    return data["points"][sorted(data["points"])[0]]


@pytest.mark.parametrize("change,message", [
    (lambda d: first_point(d).update(noise=float("nan")), "is NaN, not a finite ratio"),
    (lambda d: first_point(d).update(noise=-2.0), "is -2.0, not a finite ratio"),
    (lambda d: first_point(d).update(noise="1.5"), "is \"1.5\", not a finite ratio"),
    (lambda d: first_point(d).update(noise=float("inf")), "is Infinity, not a finite ratio"),
    (lambda d: d.update(unknown_noise=float("nan")), "its unknown_noise is NaN"),
    (lambda d: d.update(margin=-1), "its margin is -1"),
    (lambda d: d.update(margin="wide"), "its margin is \"wide\""),
    (lambda d: d.update(points=[]), "no \"points\" object"),
])
def test_noise_values_are_finite_ratios(tmp_path, change, message):
    """A NaN or negative noise kept every candidate (rc 0); a string gave a TypeError."""
    table = table_with(tmp_path, change)
    proc = mxbench("confirm", "1.9.0", "1.9.1", "--noise", table, "--list", "--limit", "1")
    refused(proc, "not a noise table (")
    assert message in proc.stdout, proc.stdout[-2000:]


def test_a_bad_table_is_refused_by_changes_aa_too(tmp_path):
    table = table_with(tmp_path, lambda d: first_point(d).update(noise=-1))
    proc = mxbench("changes", "aa", "--machine-a", AA + "aa", "--machine-b", AA + "aa2",
                   "--release", "1.9.1", "--noise", table)
    refused(proc, "not a noise table (")
