"""Quiet recordings (issue 23): a recording looks at the machine first and refuses a busy one;
told to record anyway, it marks the record busy; every recording leaves its load and the
machine-speed reference in <results>/<machine>/conditions.jsonl. Real asv, real wheels (the
asv_e2e fixture's environments), a machine made busy by real processes."""
import json
import os
import subprocess
import sys
import time

import pytest

from mxbench.asvrun import conditions
from mxbench.core import results
from tests.conftest import ROOT

RELEASE, FLAVOR = "1.9.1", "cpu-mkldnn"
ONE_POINT = ["--bench", r"^bench_overhead\.Dispatch\.time_add_1_element\(", "--rerun", "--",
             "-a", "rounds=1", "-a", "repeat=1", "-a", "warmup_time=0.01"]


@pytest.fixture
def busy_machine():
    """A process that spins one core: other work beside a recording (conditions.BUSY_CORES is
    a quarter of one)."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])]
    time.sleep(0.5)
    yield
    for proc in spinners:
        proc.kill()
        proc.wait()


def run(project, *extra, allow_env=None):
    env = dict(os.environ)
    env.pop(conditions.ALLOW_BUSY_ENV, None)
    if allow_env:
        env[conditions.ALLOW_BUSY_ENV] = allow_env
    return subprocess.run(project.mxbench_command("run", RELEASE, "--flavor", FLAVOR,
                                                  *extra), cwd=str(ROOT), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=900)


def log_entries(project):
    return project.store.conditions(project.machine)


def test_a_busy_machine_is_refused_and_nothing_runs(recorded_project, busy_machine):
    recorded = recorded_project.result_file(RELEASE, FLAVOR)
    before, logged = recorded.read_bytes(), log_entries(recorded_project)
    proc = run(recorded_project, *ONE_POINT)
    assert proc.returncode == 2, proc.stdout[-3000:]
    errors = [line for line in proc.stdout.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "the machine is busy" in errors[0], proc.stdout[-3000:]
    assert "--allow-busy" in errors[0]
    assert "$ " not in proc.stdout and "Traceback" not in proc.stdout  # asv never started
    assert recorded.read_bytes() == before
    assert log_entries(recorded_project) == logged


@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_recording_allowed_on_a_busy_machine_is_marked_busy(recorded_project, busy_machine,
                                                              how):
    logged = log_entries(recorded_project)
    if how == "option":
        proc = run(recorded_project, "--allow-busy", *ONE_POINT)
    else:
        proc = run(recorded_project, *ONE_POINT, allow_env="1")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "recording on a busy machine" in proc.stdout
    entries = log_entries(recorded_project)
    assert entries[:-1] == logged
    entry = entries[-1]
    assert entry["busy"] is True and entry["allowed_busy"] is True
    assert entry["load_before"]["other_cores"] > conditions.BUSY_CORES
    assert entry["outcome"] == "exit 0"
    commit = recorded_project.tags[RELEASE]
    assert entry["commits"] == [commit]
    assert entry["env_names"] == [recorded_project.env_name(FLAVOR)]
    assert entry["load_during"]["looks"] >= 1
    assert entry["cpu"] == conditions.cpu_identity() and entry["cpu"]["vector"]
    for side in ("reference_before", "reference_after"):
        assert set(entry[side]) == set(conditions.REFERENCE)
        assert all(isinstance(v, float) and v > 0 for v in entry[side].values()), entry[side]
    # the store finds the entry by what it recorded, and asv's own reader ignores the log
    store = recorded_project.store
    assert store.conditions(recorded_project.machine, commit,
                            recorded_project.env_name(FLAVOR))[-1] == entry
    assert store.conditions(recorded_project.machine, "0" * 40) == []
    from asv.results import iter_results_paths
    assert not any(name == results.CONDITIONS_FILE
                   for _, name, _ in iter_results_paths(str(recorded_project.results_dir)))


def test_a_damaged_conditions_log_is_named_and_stops_a_recording(recorded_project):
    path = recorded_project.store.conditions_path(recorded_project.machine)
    with open(path, "w") as fh:
        fh.write(json.dumps({"commits": [], "env_names": []}) + "\n{not json\n")
    problems = [str(p) for p in recorded_project.store.problems()]
    assert any(path in p and "line 2" in p for p in problems), problems
    proc = run(recorded_project, *ONE_POINT, allow_env="1")
    assert proc.returncode == 2, proc.stdout[-3000:]
    assert path in proc.stdout and "line 2" in proc.stdout


def test_the_reference_workloads_measure_this_machine():
    figures = conditions.reference_figures()
    assert set(figures) == set(conditions.REFERENCE)
    assert all(isinstance(v, float) and v > 0 for v in figures.values()), figures
    slower = dict(figures, python_call_ns=figures["python_call_ns"] * 2,
                  numpy_gemm_gflops=figures["numpy_gemm_gflops"] / 2)
    ratios = conditions.slowdown(figures, slower)
    assert ratios["python_call_ns"] == pytest.approx(2.0)
    assert ratios["numpy_gemm_gflops"] == pytest.approx(2.0)
    assert ratios["memory_copy_gbs"] == pytest.approx(1.0)


def test_the_look_before_a_recording_covers_at_least_its_seconds_and_at_most_its_limit(
        monkeypatch):
    """The look begins at the command's start (and at a recording's end), so the preparation
    runs inside it: it waits only for what is left of its seconds, and a look begun too long
    ago is not taken (it would thin out a load that just started): a fresh one waits them all."""
    conditions.begin_look()
    started = time.time()
    figures = conditions.look_before(seconds=0.5)
    assert 0.45 <= time.time() - started < 5 and figures["seconds"] >= 0.5, figures
    conditions.begin_look()
    time.sleep(0.6)
    started = time.time()
    figures = conditions.look_before(seconds=0.5)  # begun long enough ago: no wait
    assert time.time() - started < 0.3 and figures["seconds"] >= 0.5, figures
    monkeypatch.setattr(conditions, "LOOK_AT_MOST", 0.3)
    conditions.begin_look()
    time.sleep(0.6)  # longer ago than its limit: a fresh look
    started = time.time()
    figures = conditions.look_before(seconds=0.5)
    assert time.time() - started >= 0.45 and figures["seconds"] < 0.6 + 0.3, figures


CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC
stepping\t: 1
flags\t\t: fpu sse4_2 avx avx2 avx512f avx512bw avx512_bf16

processor\t: 1
vendor_id\t: AuthenticAMD
"""


def test_the_cpu_beneath_its_model_name_names_the_machine():
    """Two kinds of host here both call themselves "AMD EPYC": the AVX-512 one (family 25,
    model 17) keeps the name its history in results/ was recorded under, any other kind gets
    one with its family and model (tests/test_cpu_kinds.py has the rest)."""
    from mxbench.asvrun import runner
    assert conditions.cpu_identity(CPUINFO) == {
        "vendor": "AuthenticAMD", "family": "25", "model": "17", "stepping": "1",
        "vector": "avx512"}
    avx2 = CPUINFO.replace(" avx512f avx512bw avx512_bf16", "").replace("17", "1")
    assert conditions.cpu_identity(avx2)["vector"] == "avx2"
    assert runner.machine_name(CPUINFO).startswith("amd-epyc-avx512-")
    assert runner.machine_name(avx2).startswith("amd-epyc-f25m1-")
    assert conditions.cpu_identity("") == {}
