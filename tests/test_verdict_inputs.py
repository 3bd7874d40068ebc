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
    data = json.loads((ROOT / "generated-reports" / "noise" / (HISTORY_MACHINE + ".json")).read_text())
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


# --- instruction counts: 0 is a bad value; counts of two counting codes are not compared ---------
from tests import test_counts as counts_fixture  # noqa: E402  (its recordings' writer)

ZERO_COUNTS = dict(counts_fixture.BEFORE_COUNTS)
ZERO_COUNTS[("relu", "forward")] = 0


def changes_between(folder):
    return counts_fixture.mxbench(folder, "changes", "between", "1.9.0:cpu-mkldnn",
                                  "1.9.1:cpu-mkldnn")


@pytest.mark.parametrize("value,bad", [(0, True), (0.5, True), (-3, True), (28108, False),
                                       (28108.0, False)])
def test_an_instruction_count_is_a_whole_number_above_zero(value, bad):
    from mxbench.core import results
    problem = results.value_problem("bench_instructions.relu.track_forward", value,
                                    "instructions")
    assert (problem is not None) == bad, problem
    assert (results.value_problem("bench_instructions.relu.track_forward", value) is not None) \
        == bad  # the unit unknown: by the name


def test_a_record_holding_a_zero_count_is_refused_in_one_line(tmp_path):
    """A 0 count was read by every report as "no count" through separate guards; now the
    store refuses the file like any other bad value, naming it (exit 2)."""
    folder = tmp_path / "results"
    counts_fixture.record(folder, "1.9.0", counts_fixture.BEFORE_TIMES, ZERO_COUNTS)
    counts_fixture.record(folder, "1.9.1", counts_fixture.AFTER_TIMES,
                          counts_fixture.AFTER_COUNTS)
    proc = changes_between(folder)
    assert proc.returncode == 2, proc.stdout[-2000:]
    assert "0 is not an instruction count (it is a whole number above 0)" in proc.stdout, \
        proc.stdout[-2000:]
    assert "Traceback" not in proc.stdout


def count_versions(folder, release, version):
    """Make `release`'s counts on the fixture's machine recorded after versions exist: their
    start a day after HASHED_SINCE, in the window of a conditions entry with `version` (None:
    no entry, as plain asv or a killed run leaves them)."""
    import time
    from mxbench.core import counting, results
    store = results.Store(str(folder))
    commit = next(r.commit for r in store.recordings(counts_fixture.MACHINE)
                  if r.commit.startswith(counts_fixture.header(release)["commit_hash"]))
    path = store.filename(counts_fixture.MACHINE, commit, counts_fixture.ENV)
    data = results.read_result_file(path)
    started = counting.HASHED_SINCE + 86400 * 1000
    column = data["result_columns"].index("started_at")
    for name, row in data["results"].items():
        if name.startswith("bench_instructions."):
            row[column] = started
    results.write_json_atomic(path, data, compact=True)
    if version is not None:
        def stamp(ms):
            return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))
        log = store.conditions_path(counts_fixture.MACHINE)
        results.write_conditions_log(log, results.read_conditions_log(log) + [{
            "started": stamp(started - 60000), "ended": stamp(started + 60000),
            "commits": [commit], "env_names": [counts_fixture.ENV], "command": "fixture",
            counting.FIELD: version}])


def recorded_pair(tmp_path):
    """The counts fixture's 1.9.0 and 1.9.1 (timings and counts, legacy), in tmp_path."""
    folder = tmp_path / "results"
    counts_fixture.record(folder, "1.9.0", counts_fixture.BEFORE_TIMES,
                          counts_fixture.BEFORE_COUNTS)
    counts_fixture.record(folder, "1.9.1", counts_fixture.AFTER_TIMES,
                          counts_fixture.AFTER_COUNTS)
    return folder


def two_counting_codes(tmp_path, version="feedc0de0001"):
    """recorded_pair() with 1.9.1's counts of another counting code."""
    folder = recorded_pair(tmp_path)
    count_versions(folder, "1.9.1", version)
    return folder


@pytest.mark.parametrize("version,why", [
    ("feedc0de0001", "counted with two versions of the counting code (legacy and "
                     "feedc0de0001)"),
    (None, "counted with two versions of the counting code (legacy and unknown)"),
])
def test_counts_of_two_counting_codes_are_not_compared(tmp_path, version, why):
    """1.9.0's counts are the history's (legacy), 1.9.1's counted with another version of
    the counting code (or one nobody wrote down): no count ratio, a line naming both."""
    folder = recorded_pair(tmp_path)
    same = changes_between(folder)
    assert same.returncode == 0 and "the count moved too for 1" in same.stdout, same.stdout
    count_versions(folder, "1.9.1", version)
    proc = changes_between(folder)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "Instruction counts of 3 entries and methods not compared: %s." % why \
        in proc.stdout, proc.stdout
    assert "the count moved too" not in proc.stdout and "(moved)" not in proc.stdout


def test_counts_of_one_counting_code_compare(tmp_path):
    folder = tmp_path / "results"
    for release, times, counts in (("1.9.0", counts_fixture.BEFORE_TIMES,
                                    counts_fixture.BEFORE_COUNTS),
                                   ("1.9.1", counts_fixture.AFTER_TIMES,
                                    counts_fixture.AFTER_COUNTS)):
        counts_fixture.record(folder, release, times, counts)
        count_versions(folder, release, "feedc0de0001")
    proc = changes_between(folder)
    assert proc.returncode == 0 and "the count moved too for 1" in proc.stdout, proc.stdout


def test_the_recorded_history_compares_with_itself():
    """Every count in results/ predates the versions: one legacy version, so the history's
    pairs compare as they did."""
    from mxbench.core.project import DEFAULT_CONFIG, load as load_project
    from mxbench.core.results import by_name
    from mxbench.reports.changes import COUNTED_BENCHMARKS, count_pairs
    project = load_project(DEFAULT_CONFIG)
    sides = [by_name(project.store.points(HISTORY_MACHINE, project.commit(r),
                                          project.environment("cpu-mkldnn"),
                                          COUNTED_BENCHMARKS)) for r in ("1.9.0", "1.9.1")]
    moves, refused = count_pairs(*sides)
    assert refused == [] and len(moves) > 900


def test_a_recording_writes_its_counting_code_version(tmp_path):
    """The conditions entry of every recording names the counting code's version."""
    from benchmarks import counting_code
    from mxbench.asvrun import conditions
    from mxbench.core import results
    store = results.Store(str(tmp_path))
    watch = conditions.Watch(store, "m", allow_busy=True)
    watch.start(["0" * 40], ["env"], "fixture")
    watch.finish("exit 0")
    (entry,) = store.conditions("m")
    assert entry["counting_code"] == counting_code.version()
    assert len(entry["counting_code"]) == 12


def test_the_counting_code_version_follows_the_harness(tmp_path):
    from benchmarks import counting_code
    harness = tmp_path / "harness"
    shutil.copytree(str(ROOT / "benchmarks" / "harness"), str(harness),
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert counting_code.version(str(harness)) == counting_code.version()
    with open(str(harness / "instructions.py"), "a") as fh:
        fh.write("\n# an edit\n")
    assert counting_code.version(str(harness)) != counting_code.version()


def test_the_ad_hoc_path_says_what_its_counts_compare_with(tmp_path):
    """python -m benchmarks.bench_instructions printed counts of whatever build and Python
    it ran in beside nothing (relu forward 28,688 against the record's 28,108: the asv
    environment held 2.0.0b1, whose record has 28,688; the tool venv's 1.9.1 counted with
    main's harness gives 28,108); now a line names the counting code's version, the build,
    and whether this Python is an asv environment like a recording's. (No valgrind here:
    the points skip, the lines before them are the subject.)"""
    from benchmarks import counting_code
    env = dict(__import__("os").environ, MXBENCH_VALGRIND=str(tmp_path / "no-valgrind"))
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_instructions",
                           r"^bench_instructions\.relu\.track_forward\("], cwd=str(ROOT),
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("mxnet 1.9.1 (")
    assert lines[1].startswith("counting code %s (benchmarks/harness/); a record's counts are "
                               "these only when" % counting_code.version()), lines[1]
    assert "NOT an asv environment (%s)" % sys.prefix in lines[1]


def test_check_and_the_release_report_say_which_counts_they_did_not_compare(tmp_path, capsys):
    """check's note for a regression, and CHANGES.md's pair section, over a legacy count and
    one of another counting code."""
    from mxbench.commands.check import print_count_notes
    from mxbench.core.project import DEFAULT_CONFIG, load as load_project
    from mxbench.core.results import by_name
    from mxbench.reports.changes import COUNTED_BENCHMARKS, count_changes, count_summary
    folder = two_counting_codes(tmp_path)
    project = load_project(DEFAULT_CONFIG, str(folder))
    name = counts_fixture.TIMING % ("dot", "forward") + "('medium', 'float32', 'cpu')"
    print_count_notes(project, ("1.9.0", "1.9.1"), "cpu-mkldnn", [name])
    out = capsys.readouterr().out
    assert ("%s: instruction counts not compared: counted with two versions of the counting "
            "code (legacy and feedc0de0001)" % name) in out, out
    sides = [by_name(project.store.points(counts_fixture.MACHINE, project.commit(r),
                                          counts_fixture.ENV, COUNTED_BENCHMARKS))
             for r in ("1.9.0", "1.9.1")]
    counts = count_changes(*sides)
    assert not counts and len(counts.refused) == 3
    assert count_summary([], counts) == [
        "Instruction counts of 3 entries and methods not compared: counted with two versions "
        "of the counting code (legacy and feedc0de0001)."]


def test_find_on_counts_refuses_a_step_between_two_counting_codes(tmp_path):
    folder = two_counting_codes(tmp_path)
    proc = counts_fixture.mxbench(folder, "find", "1.9.0..1.9.1",
                                  "bench_operators.dot.time_forward", "--on-counts",
                                  "--flavor", "cpu-mkldnn")
    refused(proc, "counted with two versions of the counting code (legacy and feedc0de0001); "
                  "count both with this checkout: python -m mxbench run 1.9.0 1.9.1")
    assert "Instruction-count step found" not in proc.stdout
