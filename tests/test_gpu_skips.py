"""A CPU environment's result files keep no device='gpu' points that only skipped (issue 47):
the store's writer drops them (mxbench.core.results.without_gpu_skips), `mxbench
drop-gpu-skips` rewrites the files recorded before, and asv reads what is left.

The files with 'gpu' skips are real ones: results-archive/ is kept as recorded (the
migration ran on results/ and results-cpu-kinds/ only)."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from mxbench.core import results
from tests.conftest import ARCHIVE_MACHINE, ROOT, AsvProject

ARCHIVE = ROOT / "results-archive"
GPU = "'gpu'"
RELEASES = ("1.8.0.post0", "1.9.1")


def archive_files(count=None):
    """Real result files recorded with their 'gpu' skips, in name order."""
    files = results.Store(ARCHIVE).files(ARCHIVE_MACHINE)
    return files[:count] if count else files


@pytest.fixture
def archive_copy(tmp_path):
    """A results directory with three of the archive's files, its machine.json and
    benchmarks.json."""
    target = tmp_path / "results" / ARCHIVE_MACHINE
    target.mkdir(parents=True)
    for path in archive_files(3) + [str(ARCHIVE / ARCHIVE_MACHINE / "machine.json")]:
        shutil.copy2(path, str(target))
    shutil.copy2(str(ARCHIVE / "benchmarks.json"), str(target.parent))
    return results.Store(target.parent)


def mxbench(*args):
    return subprocess.run([sys.executable, "-m", "mxbench"] + list(args), cwd=str(ROOT),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=600)


def rows(data):
    return dict((name, dict(zip(data["result_columns"], row)))
                for name, row in data["results"].items())


def gpu_rows(data):
    return [name for name, row in rows(data).items()
            if any(GPU in axis for axis in row["params"] or [])]


def point_text(point):
    """Everything recorded of one point, as the JSON text it is written with."""
    return json.dumps([point.value, point.stats, point.samples, point.version,
                       point.started_at, point.duration])


def points_by_name(store, path):
    data = results.read_result_file(path)
    return dict(((data["env_name"], p.name), p) for p in store.points(
        commit=data["commit_hash"], env_name=data["env_name"]))


# --- the rule -----------------------------------------------------------------------------------
def test_a_cpu_file_is_written_without_its_gpu_skips_and_keeps_every_other_point(archive_copy,
                                                                                  tmp_path):
    """merge_result_file (the writer of every run and merge): a CPU environment's file as
    asv wrote it loses exactly its 'gpu' points, each a skip; every other point is kept as
    it was, value, statistics, samples."""
    path = archive_copy.files()[0]
    before = points_by_name(archive_copy, path)
    staged = tmp_path / "staged" / ARCHIVE_MACHINE / os.path.basename(path)
    staged.parent.mkdir(parents=True)
    shutil.copy2(path, str(staged))
    os.unlink(path)
    assert results.merge_result_file(str(staged), path)
    after = points_by_name(archive_copy, path)
    assert gpu_rows(json.loads(staged.read_text())) and not gpu_rows(results.read_result_file(path))
    dropped = set(before) - set(after)
    assert dropped and all(GPU in before[k].params and results.skipped(before[k].value)
                           for k in dropped)
    assert not set(after) - set(before)
    assert all(point_text(after[k]) == point_text(before[k]) for k in after)
    assert any(results.measured(p.value) for p in after.values())


def test_a_measured_or_failed_gpu_point_keeps_its_device_value():
    data = results.read_result_file(archive_files(1)[0])
    names = gpu_rows(data)
    for name, value in zip(names, (2.5e-3, None)):  # a measurement, a failure
        row = rows(data)[name]
        combos = results.row_points(row["params"])
        axis = results.device_axis(row["params"])
        i = next(i for i, c in enumerate(combos) if c[axis] == GPU)
        data["results"][name][0][i] = value
    slim = results.without_gpu_skips(data)
    assert [n for n in gpu_rows(slim)] == names[:2]
    assert slim["results"][names[0]] == data["results"][names[0]]
    assert slim["results"][names[1]] == data["results"][names[1]]


def test_a_gpu_environment_is_untouched(archive_copy, tmp_path):
    path = archive_copy.files()[0]
    data = results.read_result_file(path)
    data["env_vars"]["MXNET_FLAVOR"] = "gpu-cuda11.2"
    assert results.without_gpu_skips(data) is data
    staged = tmp_path / "staged" / ARCHIVE_MACHINE / "gpu.json"
    staged.parent.mkdir(parents=True)
    results.write_json_atomic(str(staged), data, compact=True)
    recorded = os.path.join(os.path.dirname(path), "gpu.json")
    assert results.merge_result_file(str(staged), recorded)
    assert open(recorded, "rb").read() == staged.read_bytes()


def test_a_file_already_without_gpu_skips_is_unchanged_byte_for_byte(archive_copy):
    assert results.drop_gpu_skips(archive_copy)
    stamps = dict((p, (os.stat(p).st_ino, open(p, "rb").read())) for p in archive_copy.files())
    assert results.drop_gpu_skips(archive_copy) == []
    assert stamps == dict((p, (os.stat(p).st_ino, open(p, "rb").read()))
                          for p in archive_copy.files())
    data = results.read_result_file(archive_copy.files()[0])
    assert results.without_gpu_skips(data) is data


def test_asv_is_given_back_the_skips_it_recorded(archive_copy, tmp_path):
    """A staging's copy (copy_for_asv) of a migrated file is the file as asv wrote it: asv
    keeps the points a run does not measure from the benchmark's declared grid, and a
    'gpu' point missing from the row would come back as a failure."""
    originals = dict((p, open(p, "rb").read()) for p in archive_copy.files())
    results.drop_gpu_skips(archive_copy)
    for path, original in originals.items():
        copied = tmp_path / "copy.json"
        results.copy_for_asv(path, str(copied))
        assert copied.read_bytes() == original, path


# --- the migration --------------------------------------------------------------------------------
def test_the_migration_keeps_every_measured_and_failed_point(archive_copy):
    """`mxbench drop-gpu-skips` on real files: point by point against the files before,
    only skipped 'gpu' points go; asv reads every file; a second run rewrites nothing."""
    before = dict((p, points_by_name(archive_copy, p)) for p in archive_copy.files())
    proc = mxbench("--results", archive_copy.results_dir, "drop-gpu-skips")
    assert proc.returncode == 0, proc.stdout
    assert "3 of 3 result file(s) rewritten" in proc.stdout, proc.stdout
    from asv.results import Results
    for path, old in before.items():
        new = points_by_name(archive_copy, path)
        kept = [k for k, p in old.items() if results.measured(p.value) or p.value is None]
        assert kept and all(point_text(new[k]) == point_text(old[k]) for k in kept)
        assert all(GPU in old[k].params and results.skipped(old[k].value)
                   for k in set(old) - set(new))
        loaded = Results.load(path)
        assert not [k for k in loaded.get_all_result_keys()
                    if any(GPU in axis for axis in loaded.get_result_params(k))]
    again = mxbench("--results", archive_copy.results_dir, "drop-gpu-skips")
    assert again.returncode == 0 and "0 of 3 result file(s) rewritten" in again.stdout


def test_a_corrupt_file_is_named_and_nothing_is_rewritten(archive_copy):
    bad = archive_copy.files()[1]
    with open(bad, "r+") as fh:
        fh.truncate(1000)
    before = dict((p, open(p, "rb").read()) for p in archive_copy.files())
    proc = mxbench("--results", archive_copy.results_dir, "drop-gpu-skips")
    assert proc.returncode == 2, proc.stdout
    assert bad in proc.stdout and "Traceback" not in proc.stdout, proc.stdout
    assert before == dict((p, open(p, "rb").read()) for p in archive_copy.files())


@pytest.mark.parametrize("folder", ["results", "results-cpu-kinds"])
def test_the_committed_cpu_records_hold_no_gpu_skips(folder):
    """Migrated once (python -m mxbench --results FOLDER drop-gpu-skips), written without
    them since."""
    for path in results.Store(ROOT / folder).files():
        data = results.read_result_file(path)
        assert results.without_gpu_skips(data) is data, path


# --- asv itself -----------------------------------------------------------------------------------
def compare_lines(project, machine):
    proc = project.run("compare", *RELEASES, "--machine", machine)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return proc.stdout.splitlines()


def test_asv_compare_of_migrated_results_shows_the_same_cpu_rows_and_no_gpu_row(tmp_path):
    """Plain asv compare of the archive's two releases, before and after the migration: the
    same lines, less every 'gpu' row (each n/a)."""
    project = AsvProject(tmp_path)
    shutil.copytree(str(ARCHIVE), str(project.results_dir))
    before = compare_lines(project, ARCHIVE_MACHINE)
    gpu = [line for line in before if GPU + ")" in line]
    assert gpu and all(re.search(r"\|\s+n/a\s+\|\s+n/a\s+\|", line) for line in gpu)
    proc = mxbench("--results", str(project.results_dir), "drop-gpu-skips")
    assert proc.returncode == 0, proc.stdout
    after = compare_lines(project, ARCHIVE_MACHINE)
    assert after == [line for line in before if GPU + ")" not in line]
    assert len(after) < len(before) - 1000


def test_a_recording_writes_no_gpu_skips_and_a_rerun_keeps_them_out(recorded_project):
    """mxbench run through real asv and a real wheel: the fixture's first recording wrote its
    CPU files without 'gpu' points; one point measured again (asv keeps the others) leaves
    the row without them, every other point as it was."""
    project, name = recorded_project, "bench_operators.softmax.time_forward"
    path = str(project.result_file("1.9.1", "cpu-mkldnn"))
    for recorded in results.Store(project.results_dir).files():
        data = results.read_result_file(recorded)
        assert results.cpu_environment(data) and not gpu_rows(data), recorded
    row = rows(results.read_result_file(path))[name]
    assert row["params"][2] == ["'cpu'"] and results.measured(row["result"][0])
    point = "%s('small', 'float32', 'cpu')" % name
    proc = project.mxbench("run", "1.9.1", "--flavor", "cpu-mkldnn", "--rerun", "--bench",
                           "^%s$" % re.escape(point), "--", "-a", "rounds=1", "-a", "repeat=1",
                           "-a", "warmup_time=0.01")
    assert proc.returncode == 0 and ": 1 point(s) to measure" in proc.stdout, proc.stdout[-3000:]
    again = rows(results.read_result_file(path))[name]
    assert again["params"] == row["params"] and again["started_at"] > row["started_at"]
    assert results.measured(again["result"][0])
    for column in results.PER_POINT:  # every other point as it was
        assert json.dumps((again[column] or [None])[1:]) == json.dumps((row[column] or [None])[1:])
