"""Instruction counts in the reports (issue 24, item 3): changes releases, compare, check and
find --on-counts say, for each timing change, whether the entry's instruction count moved too
(docs/instructions.md). Recordings are written in temporary results directories through the
project's results writer, on the ladder's real commits, read by the real commands (real asv
compare); the selection of counted points is checked in the benchmark's own process."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from env_matrix import ladder
from mxbench.asvrun import runner
from mxbench.core import results
from tests.conftest import E2E_MACHINE, HISTORY_MACHINE, ROOT

MACHINE = "counts-fixture"
FLAVOR = "cpu-mkldnn"
ENV = "virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn"
TIMING = "bench_operators.%s.time_%s"
COUNT = "bench_instructions.%s.track_%s"


def header(release):
    """A committed recording's fields but its results, for `release` on MACHINE."""
    from mxbench.core.project import DEFAULT_CONFIG, load as load_project
    project = load_project(DEFAULT_CONFIG)
    path = project.store.filename(HISTORY_MACHINE, project.commit("1.9.1"), ENV)
    data = results.read_result_file(path)
    data["params"] = dict(data["params"], machine=MACHINE)
    data.update(commit_hash=ladder.tags(str(ROOT / "ladder"))[release], results={},
                durations={})
    return data


def row(value, params, version, columns):
    cells = {"result": [value], "params": params, "version": version,
             "started_at": 1795255864055, "duration": 1.0}
    return [cells.get(c) for c in columns]


def record(results_dir, release, timings, counts):
    """Write MACHINE's recording of `release` (cpu-mkldnn): timings {(entry, method):
    seconds} at ('medium', 'float32', 'cpu'), counts {(entry, method): instructions} at
    ('small', 'float32'), with the suite's recorded benchmark versions."""
    known = results.read_benchmarks_file(str(ROOT / "results" / "benchmarks.json"))
    data = header(release)
    columns = data["result_columns"]
    for (entry, method), value in timings.items():
        name = TIMING % (entry, method)
        data["results"][name] = row(value, [["'medium'"], ["'float32'"], ["'cpu'"]],
                                    known[name]["version"], columns)
    for (entry, method), value in counts.items():
        name = COUNT % (entry, method)
        data["results"][name] = row(value, known[name]["params"], known[name]["version"],
                                    columns)
    folder = os.path.join(str(results_dir), MACHINE)
    os.makedirs(folder, exist_ok=True)
    machine = results.read_machine_file(str(ROOT / "results" / HISTORY_MACHINE / "machine.json"))
    results.write_json_atomic(os.path.join(folder, "machine.json"), dict(machine, machine=MACHINE))
    results.write_json_atomic(os.path.join(str(results_dir), "benchmarks.json"),
                              dict(known, version=2))
    store = results.Store(results_dir)
    results.write_json_atomic(store.filename(MACHINE, data["commit_hash"], ENV), data,
                              compact=True)
    return store


# dot: 2x slower and its count moved (a code path); relu: 2x slower, count the same (the
# machine); exp: 2x slower, no count; sin: no timing change, its count moved.
BEFORE_TIMES = {("dot", "forward"): 1e-3, ("relu", "forward"): 1e-3, ("exp", "forward"): 1e-3,
                ("sin", "forward"): 1e-3}
AFTER_TIMES = {("dot", "forward"): 2e-3, ("relu", "forward"): 2e-3, ("exp", "forward"): 2e-3,
               ("sin", "forward"): 1e-3}
BEFORE_COUNTS = {("dot", "forward"): 100000, ("relu", "forward"): 20000,
                 ("sin", "forward"): 50000}
AFTER_COUNTS = {("dot", "forward"): 120000, ("relu", "forward"): 20010,
                ("sin", "forward"): 40000}


@pytest.fixture
def counted(tmp_path):
    """1.9.0 and 1.9.1 recorded with timings and counts on MACHINE."""
    folder = tmp_path / "results"
    record(folder, "1.9.0", BEFORE_TIMES, BEFORE_COUNTS)
    record(folder, "1.9.1", AFTER_TIMES, AFTER_COUNTS)
    return folder


def mxbench(results_dir, *args):
    return subprocess.run([sys.executable, "-m", "mxbench", "--results", str(results_dir),
                           "--machine", MACHINE] + list(args), cwd=str(ROOT),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=600)


def test_the_release_report_says_whether_the_counts_moved(counted, tmp_path):
    out = tmp_path / "CHANGES.md"
    proc = mxbench(counted, "changes", "releases", "-o", str(out), "--lineage", "mxnet")
    assert proc.returncode == 0, proc.stdout[-3000:]
    section = out.read_text().split("### 1.9.0 → 1.9.1")[1].split("##")[0]
    assert ("Instruction counts (bench_instructions) on both sides for 2 of the significant "
            "timing changes: the count moved too for 1 (another code path), not for 1 "
            "(memory, threads, the machine).") in section, section


def test_a_release_pair_without_counts_has_no_count_line(tmp_path):
    folder = tmp_path / "results"
    record(folder, "1.9.0", BEFORE_TIMES, {})
    record(folder, "1.9.1", AFTER_TIMES, AFTER_COUNTS)
    out = tmp_path / "CHANGES.md"
    proc = mxbench(folder, "changes", "releases", "-o", str(out))
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "### 1.9.0 → 1.9.1" in out.read_text()
    assert "Instruction counts" not in out.read_text()


def test_confirmed_changes_carry_the_count_column():
    from mxbench.reports import confirmations
    from mxbench.reports.changes import Change, confirmed_tables, count_change
    name = "bench_operators.dot.time_forward('medium', 'float32', 'cpu')"
    change = Change(name, 1.0, 2.0, 2.0, "slower", "seconds")
    verdict = confirmations.Verdict(change, confirmations.CONFIRMED, 2.0, 1.9, 2.1)
    counts = {name: count_change("bench_instructions.dot.track_forward", 100, 130)}
    table = "\n".join(confirmed_tables([verdict], "a", "b", 10, counts))
    assert "| instructions |" in table and "1.30 (moved) |" in table
    assert "instructions" not in "\n".join(confirmed_tables([verdict], "a", "b", 10))


def test_the_report_counts_confirmed_changes_whose_instructions_did_not_move():
    """The closing section sums every pair's confirmed changes by what their counts did: a
    moved count, the same count, no count; refuted changes are not in it."""
    from mxbench.reports import confirmations
    from mxbench.reports.changes import Change, count_change, markdown_report
    names = [TIMING % (entry, "forward") + "('medium', 'float32', 'cpu')"
             for entry in ("dot", "relu", "exp", "sin")]
    flagged = [Change(name, 1.0, 2.0, 2.0, "slower", "seconds") for name in names]
    states = dict(zip(names, [confirmations.CONFIRMED] * 3 + [confirmations.REFUTED]))

    def judge(flavor, ra, rb, changes):
        return [confirmations.Verdict(c, states[c.name], 2.0, 1.9, 2.1) for c in changes]

    def count_source(flavor, ra, rb):   # dot's count moved, relu's and sin's did not, exp none
        return {names[0]: count_change(COUNT % ("dot", "forward"), 100, 130),
                names[1]: count_change(COUNT % ("relu", "forward"), 100, 100),
                names[3]: count_change(COUNT % ("sin", "forward"), 100, 100)}
    pairs = [("1.9.0", "1.9.1", flagged), ("1.8.0.post0", "1.9.0", flagged)]
    text = markdown_report({FLAVOR: pairs}, "m", 1.2, 10, judge=judge,
                           count_source=count_source)
    section = text.split("## The confirmed changes and their instruction counts")[1]
    assert ("Over every pair above, 6 confirmed changes; 4 of them have an instruction count "
            "on both sides") in section, section
    assert "which moved for 2 (another code path) and not for 2 (the same" in section
    assert "The other 2 have no count" in section
    # without counts there is nothing to sum
    assert "## The confirmed changes" not in markdown_report({FLAVOR: pairs}, "m", 1.2, 10,
                                                             judge=judge)


def test_compare_adds_the_counts_after_asv_compare(counted):
    proc = mxbench(counted, "compare", "1.9.0", "1.9.1", "--flavor", FLAVOR)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "bench_operators.dot.time_forward('medium'" in proc.stdout  # asv compare's table
    assert ("instruction counts (docs/instructions.md), cpu-mkldnn: counted on both sides "
            "for 3 entries and methods, 2 moved beyond 1 %") in proc.stdout, proc.stdout
    assert "the count moved too for 1 (another code path), not for 1" in proc.stdout
    moved = [l.split()[2] for l in proc.stdout.splitlines() if l.startswith("  count moved ")]
    # the largest move first: sin's 0.80 before dot's 1.20; relu's 0.05 % is no move
    assert moved == ["bench_instructions.sin.track_forward('small',",
                     "bench_instructions.dot.track_forward('small',"], proc.stdout


def test_compare_says_how_to_record_missing_counts(tmp_path):
    folder = tmp_path / "results"
    record(folder, "1.9.0", BEFORE_TIMES, {})
    record(folder, "1.9.1", AFTER_TIMES, AFTER_COUNTS)
    proc = mxbench(folder, "compare", "1.9.0", "1.9.1", "--flavor", FLAVOR)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert ("cpu-mkldnn: not recorded for both releases (python -m mxbench run RELEASE "
            "--flavor cpu-mkldnn --bench '^bench_instructions\\.')") in proc.stdout


def test_check_says_for_each_regression_whether_the_count_moved(counted, capsys):
    from mxbench.commands.check import print_count_notes
    from mxbench.core.project import DEFAULT_CONFIG, VARIANTS_CONFIG, load as load_project
    # check runs the low-noise variant (asv.variants.conf.json); the counts are read from
    # the history's default environment, whatever machine recorded them
    project = load_project(DEFAULT_CONFIG, str(counted)).for_variants(
        ["low-noise"])
    assert project.config == VARIANTS_CONFIG
    timing = TIMING + "('medium', 'float32', 'cpu')"
    names = [timing % ("dot", "forward"), timing % ("relu", "forward"),
             timing % ("exp", "forward"), "bench_gluon.Dense.time_forward('small')"]
    print_count_notes(project, ("1.9.0", "1.9.1"), FLAVOR, names)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("instruction counts of the regressed points")
    notes = dict(line.strip().split(": ", 1) for line in lines[1:])
    assert notes[names[0]] == ("instruction count moved, 100000 -> 120000 instructions (ratio 1.2000): "
                               "another code path")
    assert notes[names[1]].startswith("instruction count the same, 20000 -> 20010")
    assert notes[names[2]] == ("no instruction count of exp.forward recorded at 1.9.0 and "
                               "1.9.1 (record it: python -m mxbench run 1.9.0 --flavor "
                               "cpu-mkldnn --bench '^bench_instructions\\.')")
    assert notes[names[3]].startswith("no instruction count")


def bisection_history(tmp_path, counts):
    """1.8.0.post0, 1.9.0, 1.9.1 (the cpu-mkldnn builds of that range) with dot's forward
    count at each."""
    folder = tmp_path / "results"
    for release, count in zip(("1.8.0.post0", "1.9.0", "1.9.1"), counts):
        record(folder, release, BEFORE_TIMES, {("dot", "forward"): count})
    return folder


def test_find_on_counts_finds_the_release_whose_count_moved(tmp_path):
    folder = bisection_history(tmp_path, (100000, 100000, 120000))
    for name in ("bench_operators.dot.time_forward", "bench_instructions.dot.track_forward"):
        proc = mxbench(folder, "find", "1.8.0.post0..1.9.1", name, "--on-counts",
                       "--flavor", FLAVOR)
        assert proc.returncode == 0, proc.stdout[-3000:]
        assert "  1.9.0        100000 instructions" in proc.stdout, proc.stdout
        assert "  1.9.1        120000 instructions" in proc.stdout
        assert "Instruction-count step found: 1.9.1 (1.9.0 -> 1.9.1)" in proc.stdout
    proc = mxbench(folder, "find", "1.8.0.post0..1.9.1", "bench_operators.dot.time_forward",
                   "--on-counts", "--invert", "--flavor", FLAVOR)
    assert proc.returncode == 1 and "No instruction-count step (fewer" in proc.stdout


def test_find_on_counts_takes_no_noise_rule(tmp_path):
    # 0.4 % and 0.5 %: within COUNT_SPREAD; 2 %: a step, however small (no factor)
    proc = mxbench(bisection_history(tmp_path, (100000, 100400, 100500)), "find",
                   "1.8.0.post0..1.9.1", "bench_operators.dot.time_forward", "--on-counts")
    assert proc.returncode == 1, proc.stdout[-3000:]
    proc = mxbench(bisection_history(tmp_path / "b", (100000, 102000, 102000)), "find",
                   "1.8.0.post0..1.9.1", "bench_operators.dot.time_forward", "--on-counts")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "step found: 1.9.0 (1.8.0.post0 -> 1.9.0)" in proc.stdout


def test_find_on_counts_refuses_what_has_no_count(tmp_path):
    folder = bisection_history(tmp_path, (1, 1, 1))
    for name, message in (("bench_gluon.Dense.time_forward", "has no instruction count"),
                          ("bench_operators.dot.time_nothing", "unknown benchmark")):
        proc = mxbench(folder, "find", "1.8.0.post0..1.9.1", name, "--on-counts")
        assert proc.returncode == 2, proc.stdout[-3000:]
        errors = [l for l in proc.stdout.splitlines() if l.startswith("error: ")]
        assert len(errors) == 1 and message in errors[0], proc.stdout


def test_run_and_find_name_the_variable_that_bench_instructions_reads():
    from benchmarks import bench_instructions
    from mxbench.asvrun import bisection, recording
    assert recording.INSTRUCTION_POINTS == bench_instructions.SELECTION_VARIABLE
    assert bisection.instruction_points_env is recording.instruction_points_env  # find's probes


def test_a_run_counts_only_the_instruction_points_it_records(monkeypatch):
    """mxbench run hands asv the variable for exactly its instruction points (a resume of the
    layers' points must not count the operators' whole table again), and none for timings."""
    import re
    from benchmarks import bench_instructions as B
    from mxbench.asvrun.recording import instruction_points_env
    layer = B.layer_points()[0]
    names = [B.point_name(*layer), B.point_name("dot", "small", "float32", "forward"),
             "bench_operators.dot.time_forward('medium', 'float32', 'cpu')"]
    env = instruction_points_env(names)
    monkeypatch.setenv(B.SELECTION_VARIABLE, env[B.SELECTION_VARIABLE])
    assert B.table_points() == [("dot", "small", "float32", "forward")]
    assert B.layer_points() == [layer]
    assert not re.search(env[B.SELECTION_VARIABLE], names[2])
    assert instruction_points_env(names[2:]) is None


def test_the_selection_variable_narrows_the_table_and_skips_the_rest(monkeypatch):
    from benchmarks import bench_instructions as B
    from benchmarks.harness import instructions as I
    every = B.table_points()
    assert len(every) > 500
    monkeypatch.setenv(B.SELECTION_VARIABLE, r"^bench_instructions\.dot\.track_forward\(")
    assert B.table_points() == [("dot", "small", "float32", "forward")]
    monkeypatch.setattr(I, "VALGRIND", "/nonexistent/valgrind")  # the table at once
    table = B.count_all()
    assert list(table) == ["dot|small|float32|forward"]
    dot_fb = getattr(B, "dot")()
    with pytest.raises(NotImplementedError, match="MXBENCH_INSTRUCTION_POINTS=.* does not "
                                                  "select it"):
        dot_fb.track_forward_backward(table, "small", "float32")
    with pytest.raises(NotImplementedError, match="valgrind is not available"):
        dot_fb.track_forward(table, "small", "float32")
    monkeypatch.delenv(B.SELECTION_VARIABLE)
    with pytest.raises(RuntimeError, match="no such point"):  # a table without the point
        dot_fb.track_forward_backward(table, "small", "float32")


@pytest.mark.skipif(shutil.which("valgrind") is None,
                    reason="valgrind is not installed (.ci/run installs Debian's)")
def test_asv_passes_the_selection_to_the_counting_process(tmp_path):
    """Real asv in the tool venv (MXNet 1.9.1; `--python=same`, one flavor), two benchmarks
    run, one point selected: the Valgrind process counts that one in minutes (the table
    takes 30-60) and the other skips (n/a) instead of getting a value."""
    from mxbench.core.project import read_config
    conf = read_config(str(ROOT / "asv.conf.json"))
    conf.update(repo=str(ROOT / "ladder"), benchmark_dir=str(ROOT / "benchmarks"),
                results_dir=str(tmp_path / "results"), env_dir=str(tmp_path / "env"),
                html_dir=str(tmp_path / "html"))
    conf["matrix"]["env"]["MXNET_FLAVOR"] = [FLAVOR]
    config = tmp_path / "asv.conf.json"
    config.write_text(json.dumps(conf))
    env = dict(os.environ, MXBENCH_INSTRUCTION_POINTS=r"^bench_instructions\.dot\.track_forward\(")
    # a machine of the tests' own (asv run would otherwise ask for this host's, by its name)
    machine = runner.ensure_machine(E2E_MACHINE)
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "asv"), "--config",
                           str(config), "run", "--machine", machine, "--python=same", "-e", "-b",
                           r"^bench_instructions\.(dot|relu)\.track_forward\("], cwd=str(ROOT),
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:]
    values = {}
    for part in proc.stdout.split("··· bench_instructions.")[1:]:
        name = part.split()[0]
        values[name] = re.search(r"small\s+(\S+)", part).group(1)
    assert values["relu.track_forward"] == "n/a", proc.stdout[-3000:]
    assert 10000 < int(values["dot.track_forward"]) < 10 ** 7, proc.stdout[-3000:]
