"""Nothing lost, no wrong verdict: real `mxbench` runs through real asv and real wheels,
interrupted, fed bad files, or asked for verdicts they cannot measure.

Each test works on its own copy of the asv_e2e fixture's results (and shares its asv
environments, so nothing is installed twice)."""
import itertools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from mxbench.core import results
from tests.conftest import E2E_ATTRS, ROOT

FLAVOR = "cpu-mkldnn"
RELEASE = "1.9.1"
# dot is recorded by the fixture; LayerNorm is not, so a run without --rerun has work to do.
SELECTION = r"^bench_operators\.(dot|LayerNorm)\.time_forward\("
ATTRS = ["-a", "rounds=2", "-a", "repeat=3", "-a", "warmup_time=0.02"]


@pytest.fixture
def project(recorded_project):
    return recorded_project


def measured_points(store):
    """{(file, benchmark, index)} of every measured point in a results directory."""
    found = set()
    for path in store.files():
        data = results.read_result_file(path)
        for name, row in data["results"].items():
            for i, value in enumerate(row[0] or []):
                if results.measured(value):
                    found.add((os.path.basename(path), name, i))
    return found


def run_bench(project, *extra, rerun=False):
    return project.mxbench_command("run", RELEASE, "--flavor", FLAVOR, "--bench", SELECTION,
                                   *(["--rerun"] if rerun else []), "--", *ATTRS)


def staged_files(project):
    root = project.base / ".asv" / "staging"
    return [p for p in root.glob("*/results/*/*.json")] if root.exists() else []


def wait_for_a_write(project, proc, limit):
    """Return as soon as asv writes a staged result file or mxbench writes a temporary in
    results/ (the moments a result file is being written), or after `limit` seconds."""
    def stamps():
        out = {}
        for path in staged_files(project) + list(project.results_dir.glob("*/.*tmp-*")):
            try:
                out[str(path)] = os.stat(str(path)).st_mtime_ns
            except OSError:
                pass
        return out
    start, first = time.time(), None
    while time.time() - start < limit and proc.poll() is None:
        now = stamps()
        if first is None:
            first = now
        elif now != first:
            return
        time.sleep(0.002)


def test_twenty_interrupts_lose_nothing_and_a_resume_completes(project):
    """Interrupt a real `mxbench run` at 20 random moments (Ctrl-C to the process group,
    SIGINT or SIGTERM to mxbench alone, SIGKILL to everything; half of them as a result
    file is being written). After each: every results file parses and every point measured
    before is still measured. Then a plain resume completes the run."""
    store = project.store
    before = measured_points(store)
    start = time.time()
    calibration = subprocess.run(run_bench(project, rerun=True), cwd=str(ROOT),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 universal_newlines=True, timeout=900)
    duration = time.time() - start
    assert calibration.returncode == 0, calibration.stdout[-3000:]
    before = measured_points(store)
    assert any(name.endswith("LayerNorm.time_forward") for _, name, _ in before)
    # forget LayerNorm again so that runs without --rerun have something to record
    for path in store.files():
        data = results.read_result_file(path)
        if data["results"].pop("bench_operators.LayerNorm.time_forward", None) is not None:
            results.write_json_atomic(path, data, compact=True)
    before = measured_points(store)

    seed = int(time.time())
    rng = random.Random(seed)
    kinds = ["ctrl-c", "sigint", "sigterm", "sigkill"]
    log = []
    for attempt in range(20):
        kind = kinds[attempt % len(kinds)]
        during_write = attempt % 2 == 1
        moment = rng.uniform(0.5, duration)  # under 0.5 s: the interpreter's own start
        proc = subprocess.Popen(run_bench(project, rerun=attempt % 3 == 0), cwd=str(ROOT),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                universal_newlines=True, start_new_session=True)
        if during_write:
            wait_for_a_write(project, proc, duration * 1.5)
        else:
            time.sleep(moment)
        if proc.poll() is None:
            if kind == "ctrl-c":
                os.killpg(proc.pid, signal.SIGINT)
            elif kind == "sigkill":
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.send_signal(signal.SIGINT if kind == "sigint" else signal.SIGTERM)
        _, stderr = proc.communicate(timeout=300)
        if kind == "sigkill":  # what the kill left behind must not survive the next start
            subprocess.run(["pkill", "-KILL", "-g", str(proc.pid)], check=False)
        label = "seed %d, attempt %d: %s %s at %.1fs, exit %s" % (
            seed, attempt, kind, "during a write" if during_write else "", moment,
            proc.returncode)
        log.append(label)
        assert store.problems() == [], label
        lost = before - measured_points(store)
        assert not lost, (label, sorted(lost)[:5])
        if kind != "sigkill" and proc.returncode not in (0, None):
            assert proc.returncode in (130, 143), (label, stderr[-2000:])
            assert "Traceback" not in stderr, (label, stderr[-3000:])
            assert stderr.strip().splitlines()[-1].startswith("interrupted:"), (label, stderr)
        before = measured_points(store)

    resume = subprocess.run(run_bench(project), cwd=str(ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, universal_newlines=True, timeout=900)
    assert resume.returncode == 0, (log, resume.stdout[-3000:])
    assert not list((project.base / ".asv" / "staging").glob("*")), "staging left behind"
    assert not list(project.results_dir.glob("*/.*tmp-*")), "temporary files left behind"
    result = project.result_file(RELEASE, FLAVOR)
    data = results.read_result_file(str(result))
    for name in ("bench_operators.dot.time_forward", "bench_operators.LayerNorm.time_forward"):
        values = data["results"][name][0]
        cpu = [v for v, combo in zip(values, itertools.product(*data["results"][name][1]))
               if "'cpu'" in combo]
        assert cpu and all(results.measured(v) for v in cpu), (name, values, log)


def test_a_killed_runs_staging_is_recovered_when_nothing_is_left_to_measure(project):
    """A run killed with SIGKILL leaves its staging; the next run merges it before it
    decides what to measure, also when that leaves nothing to measure (asv never starts)."""
    dot = r"^bench_operators\.dot\.time_forward\("
    plain = project.mxbench("run", RELEASE, "--flavor", FLAVOR, "--bench", dot)
    assert plain.returncode == 0 and ": 0 point(s) to measure" in plain.stdout, plain.stdout
    recorded = project.result_file(RELEASE, FLAVOR)
    complete = recorded.read_bytes()
    data = results.read_result_file(str(recorded))
    assert data["results"].pop("bench_operators.dot.time_forward") is not None
    results.write_json_atomic(str(recorded), data, compact=True)
    # the staging of a run that has exited: its pid is no longer alive
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    staged = project.base / ".asv" / "staging" / ("run-%d" % dead.pid)
    (staged / "results" / project.machine).mkdir(parents=True)
    (staged / "pid").write_text(str(dead.pid))
    (staged / "results" / project.machine / recorded.name).write_bytes(complete)
    resumed = project.mxbench("run", RELEASE, "--flavor", FLAVOR, "--bench", dot)
    assert resumed.returncode == 0, resumed.stdout[-3000:]
    assert "recovered 1 result file(s)" in resumed.stdout, resumed.stdout
    assert ": 0 point(s) to measure" in resumed.stdout and "$ " not in resumed.stdout
    assert not staged.exists(), "staging left behind"
    assert results.read_result_file(str(recorded))["results"][
        "bench_operators.dot.time_forward"] == json.loads(complete)["results"][
        "bench_operators.dot.time_forward"]


def test_a_failed_install_keeps_the_record_and_a_resume_retries_it(project):
    """With the package index unreachable the install of 1.8.0.post0 fails (1.9.1, installed
    already, lets asv discover the suite): its recorded dot timings stay, LayerNorm (not
    recorded before) is recorded as failed, and a resume with the index back measures it."""
    store = project.store
    before = measured_points(store)
    offline = dict(PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_NO_CACHE_DIR="1",
                   PIP_RETRIES="0", PIP_TIMEOUT="2", PIP_FIND_LINKS="")
    # 1.9.1 first, so that the environment must install 1.8.0.post0 again, and from the index:
    # not from the releases its install step keeps
    assert project.mxbench("run", "1.9.1", "--flavor", FLAVOR, "--bench",
                           r"^bench_overhead\.Dispatch\.time_add", "--", *E2E_ATTRS
                           ).returncode == 0
    shutil.rmtree(str(project.env_path(FLAVOR) / "mxbench-kept-releases"), ignore_errors=True)
    failed = project.mxbench("run", "1.9.1", "1.8.0.post0", "--flavor", FLAVOR, "--rerun",
                             "--bench",
                             SELECTION, "--", *E2E_ATTRS, env=offline)
    assert failed.returncode != 0, failed.stdout[-3000:]
    # one probe tells the install failed; the environment's other failed points are not probed
    assert failed.stdout.count("probing a failed point alone") == 1, failed.stdout[-3000:]
    assert "1.8.0.post0 could not be installed in" in failed.stdout, failed.stdout[-3000:]
    assert store.problems() == []
    assert not (before - measured_points(store)), "a failed install replaced recorded values"
    result = project.result_file("1.8.0.post0", FLAVOR)
    layer_norm = results.read_result_file(str(result))["results"][
        "bench_operators.LayerNorm.time_forward"][0]
    assert layer_norm is None, failed.stdout[-3000:]  # asv: failed
    resumed = project.mxbench("run", "1.8.0.post0", "--flavor", FLAVOR, "--bench", SELECTION,
                              "--", *E2E_ATTRS)
    assert resumed.returncode == 0, resumed.stdout[-3000:]
    layer_norm = results.read_result_file(str(result))["results"][
        "bench_operators.LayerNorm.time_forward"][0]
    assert any(results.measured(v) for v in layer_norm)


def damage(path, how):
    with open(str(path)) as fh:
        text = fh.read()
    if how == "truncated":
        text = text[: len(text) // 3]
    else:  # wrong types where asv expects an object
        data = json.loads(text)
        data["results"] = [1, 2]
        text = json.dumps(data)
    with open(str(path), "w") as fh:
        fh.write(text)


def tool(project, command, *args):
    return subprocess.run([sys.executable, "-m", "mxbench", command] + list(args), cwd=str(ROOT),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=600)


@pytest.mark.parametrize("how", ["truncated", "wrong-types"])
def test_a_bad_file_is_named_and_nothing_answers_without_it(project, how):
    bad = project.result_file("1.9.1", FLAVOR)
    damage(bad, how)
    damaged = bad.read_bytes()
    name = str(bad)
    runs = {
        "changes": tool(project, "changes", "--config", str(project.conf_path),
                        "releases", "--machine", project.machine),
        "export": tool(project, "export", str(project.results_dir)),
        "run": subprocess.run(project.mxbench_command(
            "run", "1.8.0.post0", "1.9.1", "--bench", r"^bench_overhead\.Dispatch\.time_add",
            "--", *E2E_ATTRS), cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            universal_newlines=True, timeout=600),
    }
    runs["compare"] = subprocess.run(project.mxbench_command("compare", "1.8.0.post0", "1.9.1"),
                                     cwd=str(ROOT), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    for command, proc in runs.items():
        assert proc.returncode == 2, (command, proc.stdout[-2000:], proc.stderr[-2000:])
        assert name in proc.stderr and "Traceback" not in proc.stderr, (command, proc.stderr)
    assert "$ " not in runs["run"].stdout  # nothing ran: no release was measured past it
    assert bad.read_bytes() == damaged


def test_verdicts_need_measurements(project):
    """check with a selection that matches nothing, and find with an unknown benchmark or
    a benchmark never measured, refuse (exit 2) instead of naming a regression."""
    proc = project.mxbench("check", "1.8.0.post0", "1.9.1", "-b", "nothing_matches_this",
                           config=project.variants_conf_path)
    assert proc.returncode == 2, proc.stdout[-3000:]
    assert "NO VERDICT" in proc.stdout and "REGRESSION" not in proc.stdout
    for factor in ("-1", "0.9", "nan", "x"):
        proc = project.mxbench("check", "1.8.0.post0", "1.9.1", "--factor", factor)
        assert proc.returncode == 2 and "--factor" in proc.stdout, (factor, proc.stdout)
    proc = project.mxbench("find", "1.6.0..1.9.1", "bench_operators.nope.time_forward")
    assert proc.returncode == 2 and "unknown benchmark bench_operators.nope.time_forward" \
        in proc.stdout and "$ " not in proc.stdout, proc.stdout
    proc = project.mxbench("find", "1.6.0..1.9.1", "bench_operators.dot.time_forwrd")
    assert proc.returncode == 2 and "did you mean: bench_operators.dot.time_forward" \
        in proc.stdout, proc.stdout
    proc = project.mxbench("find", "1.9.1..1.8.0.post0", "bench_operators.dot.time_forward")
    assert proc.returncode == 2 and "is not older than" in proc.stdout, proc.stdout


def test_find_includes_the_named_good_release(project):
    """LayerNorm's forward became several times faster in 1.9.0 (apache/mxnet#19601).
    Over 1.8.0.post0..1.9.1 the change is at the first release after the named one: the
    bisection must see 1.8.0.post0 and name 1.9.0, with the points that moved. What follows
    `--` goes to each probe's asv run: 4 samples a round, 8 a point (the suite's own setting
    takes up to 5 a round)."""
    proc = project.mxbench("find", "1.8.0.post0..1.9.1",
                           "bench_operators.LayerNorm.time_forward", "--flavor", FLAVOR,
                           "--invert", "--", "-a", "repeat=4", "-a", "warmup_time=0.02")
    assert proc.returncode == 0, proc.stdout[-3000:]
    env_name = project.env_name(FLAVOR)
    for release in ("1.8.0.post0", "1.9.0", "1.9.1"):
        points = project.store.points(project.machine, project.tags[release], env_name,
                                      r"^bench_operators\.LayerNorm\.time_forward$")
        sampled = [len(p.samples) for p in points if p.samples]
        assert sampled and set(sampled) == {8}, (release, sampled)
    assert "3 releases (both ends included), 3 with a cpu-mkldnn build" in proc.stdout
    assert "Greatest improvement found: 1.9.0 (1.8.0.post0 -> 1.9.0)" in proc.stdout
    moved = [line for line in proc.stdout.splitlines()
             if line.startswith("  bench_operators.LayerNorm.time_forward(")]
    ratios = [float(re.search(r"\(([0-9.e-]+)x\)", line).group(1)) for line in moved]
    assert moved and all(r < 1 for r in ratios), moved
    # each with what the confirmation runs say of it (none here: not yet confirmed)
    assert all(line.endswith("not yet confirmed") for line in moved), moved
    assert "python -m mxbench confirm 1.8.0.post0 1.9.0 --flavor %s" % FLAVOR in proc.stdout


def test_compare_names_its_machine_and_shows_no_gpu_point(project):
    proc = subprocess.run(project.mxbench_command("compare", "1.8.0.post0", "1.9.1"),
                          cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "cpu-mkldnn: results of machine %s" % project.machine in proc.stdout
    assert "cpu-openblas: no build of 1.9.1" in proc.stdout
    assert "bench_operators.dot.time_forward('medium', 'float32', 'cpu')" in proc.stdout
    # recorded without them (results.without_gpu_skips): no row to leave out
    assert "'gpu')" not in proc.stdout and "device='gpu' points left out" not in proc.stdout


def test_a_machine_record_of_other_hardware_is_never_rewritten(project):
    """`--machine NAME` where results/NAME/machine.json describes another host: refused
    before anything runs, and the record stays as it was."""
    other = project.results_dir / "someone-elses-machine"
    other.mkdir()
    record = dict(json.loads((project.results_dir / project.machine / "machine.json").read_text()),
                  machine=other.name, cpu="Another CPU @ 9.9GHz", num_cpu="64")
    (other / "machine.json").write_text(json.dumps(record))
    before = (other / "machine.json").read_bytes()
    cmd = project.mxbench_command("run", "1.9.1", "--flavor", FLAVOR, "--bench", SELECTION)
    cmd[cmd.index("--machine") + 1] = other.name
    proc = subprocess.run(cmd, cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=600)
    assert proc.returncode == 2 and "describes another host" in proc.stdout, proc.stdout
    assert "$ " not in proc.stdout
    assert (other / "machine.json").read_bytes() == before
