"""MXNet's crashes are data about a release on a CPU kind, not failures of the suite.

A point whose process MXNet kills (LeakyReLU rrelu's backward under autograd aborts on 1.9.1
on every CPU tried) is run again alone through the real asv, recorded as MXNet's crash in
the known-crash file with the release and CPU kind, named in the summary, not run again by a
resume, and the run exits 0. What only some CPUs show is keyed by CPU kind. A failure that is
not a crash (a Python error, a timeout) stays a failure."""
import json
import math

import pytest

from benchmarks.catalogue import crashes
from conftest import AsvProject
from mxbench.asvrun import crashes as probing
from mxbench.core import results

AMD_F26 = {"vendor": "AuthenticAMD", "family": "26", "model": "2"}
AMD_F25 = {"vendor": "AuthenticAMD", "family": "25", "model": "17"}

# asv --show-stderr's output of a failed point, as the probe reads it (from real runs)
MXNET_HANDLER = """[100.00%] ··· bench_operators.LeakyReLU_rrelu.time_forward_backward    failed
[100.00%] ··· For parameters: 'small', 'float32', 'cpu'

              Segmentation fault: 11

              terminate called without an active exception

              asv: benchmark failed (exit status -6)
"""
PYTHON_ERROR = """[100.00%] ··· bench_operators.dot.time_forward    failed
[100.00%] ··· For parameters: 'medium', 'float32', 'cpu'
              Traceback (most recent call last):
                File "bench_operators.py", line 25, in setup
              ValueError: a bad input
              asv: benchmark failed (exit status 1)
"""


def test_the_probe_tells_mxnets_crash_from_a_python_error_and_a_timeout():
    seen = probing.classify(MXNET_HANDLER)
    assert seen == {"exit_status": -6, "signal": "SIGABRT", "evidence":
                    "Segmentation fault: 11; terminate called without an active exception"}
    handled = MXNET_HANDLER.replace("exit status -6", "exit status 255")
    assert probing.classify(handled)["signal"] == "SIGSEGV"  # MXNet's handler: exit(-1)
    assert probing.classify(PYTHON_ERROR) is None
    assert probing.classify(PYTHON_ERROR.replace("exit status 1", "exit status -256")) is None
    assert probing.classify("[100.00%] ··· bench_overhead.Dispatch.time_add  1.0±0us\n") is None


def test_a_crash_of_some_cpus_is_known_only_on_their_kind(tmp_path, monkeypatch):
    rows = crashes.read_rows()
    jitter = ("image_random_color_jitter", "1.9.1", "medium")
    assert crashes.known_crash(*jitter, cpu=AMD_F26, rows=rows)
    assert crashes.known_crash(*jitter, cpu=AMD_F25, rows=rows) is None
    assert crashes.known_crash("image_random_color_jitter", "1.8.0.post0", "medium",
                               cpu=AMD_F26, rows=rows) is None  # before the range
    assert crashes.known_crash("image_random_color_jitter", "1.9.1", "small",
                               cpu=AMD_F26, rows=rows) is None  # another shape class
    # a row of one method: the point's other methods run; a gluon class of the same name
    # is another benchmark
    rrelu = ("LeakyReLU_rrelu", "1.9.1", "medium")
    assert crashes.known_crash(*rrelu, method="time_forward_backward", cpu=AMD_F25, rows=rows)
    assert crashes.known_crash(*rrelu, method="time_forward", cpu=AMD_F25, rows=rows) is None
    assert crashes.known_crash(*rrelu, cpu=AMD_F25, rows=rows) is None
    assert crashes.known_crash(*rrelu, method="time_forward_backward", cpu=AMD_F25, rows=rows,
                               module="bench_gluon") is None
    # the CPU kind comes from /proc/cpuinfo (MXBENCH_CPUINFO_FILE in its place here)
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n"
                       "model\t\t: 2\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\n")
    monkeypatch.setenv(crashes.CPUINFO_VARIABLE, str(cpuinfo))
    assert crashes.cpu_kind() == AMD_F26
    assert crashes.known_crash(*jitter, rows=rows)


def test_a_bad_known_crash_file_is_named_in_one_line(tmp_path):
    bad = tmp_path / "known_crashes.jsonl"
    bad.write_text(json.dumps({"entry": "dot", "since": "1.9.1", "what": "x"}) + "\n{oops\n")
    with pytest.raises(crashes.CrashDataError, match="known_crashes.jsonl line 2: not JSON"):
        crashes.read_rows(str(bad))
    bad.write_text(json.dumps({"entry": "dot", "since": "1.9.1", "what": "x", "cpu": "AMD"}))
    with pytest.raises(crashes.CrashDataError, match="line 1: cpu must be"):
        crashes.read_rows(str(bad))


@pytest.fixture(scope="module")
def project(asv_e2e, tmp_path_factory):
    """A project of its own on asv_e2e's environments (none made again)."""
    return AsvProject(tmp_path_factory.mktemp("crashes"), env_dir=asv_e2e.env_dir)


RELEASE = "1.9.1"
BENCH = r"^bench_operators\.LeakyReLU_rrelu\.time_forward_backward\("
CRASH = "bench_operators.LeakyReLU_rrelu.time_forward_backward('medium', 'float32', 'cpu')"


def run(project, crash_file, *options):
    return project.mxbench("run", RELEASE, "--flavor", "cpu-mkldnn", "--selection", "short",
                           "--bench", BENCH, *options, "--", "-a", "rounds=1", "-a", "repeat=2",
                           env={crashes.CRASHES_FILE_VARIABLE: str(crash_file)})


CRASH_TRIES = 3  # the crash comes and goes (one run in several on family 26)


def run_until_it_crashes(project, crash_file):
    """The first run in which MXNet killed the point (up to CRASH_TRIES; a run the point
    went through is measured again with --rerun)."""
    for attempt in range(CRASH_TRIES):
        proc = run(project, crash_file, *(["--rerun"] if attempt else []))
        if proc.returncode != 0 or "probing a failed point alone" in proc.stdout:
            return proc
    return proc


def test_a_crash_that_comes_and_goes_is_probed_until_seen(monkeypatch):
    """A failed point that runs through when probed is probed again (PROBES_PER_POINT in
    all); a probe that fails otherwise (a Python error) ends the probing: a failure."""
    from mxbench.asvrun import crashes as sorting
    crash = "asv: benchmark failed (exit status -11)\n"
    error = "Traceback ...\nValueError: x\nasv: benchmark failed (exit status 1)\n"
    for outputs, seen, probes in ((["ok", "ok", crash], "SIGSEGV", 3),
                                  (["ok", error, crash], None, 2),
                                  (["ok"] * 5, None, sorting.PROBES_PER_POINT)):
        given = list(outputs)
        monkeypatch.setattr(sorting, "probe", lambda *args, **kwargs: given.pop(0))
        found = sorting.probe_until_seen(None, "m", "c", "e", "p")
        assert (found and found["signal"]) == seen and len(outputs) - len(given) == probes
    # asv could not install the release (its line for the environment): nothing ran, so no
    # probe again, and no point of that environment is probed (the failure is the install's)
    skipped = ("[ 0.00%] ·· Building for e\n[ 0.00%] ·· Skipping e\n"
               "[100.00%] ··· bench_x.A.time_y          skipped\n")
    undiscovered = ("·· Error running /env/bin/python -m env_matrix.asv_hook install (exit status"
                    " 1)\n·· Failed to build the project and import the benchmark suite.\n")
    for output in (skipped, undiscovered):
        given = [output, crash]
        monkeypatch.setattr(sorting, "probe", lambda *args, **kwargs: given.pop(0))
        with pytest.raises(sorting.NotInstalled):
            sorting.probe_until_seen(None, "m", "c", "e", "p")
        assert given == [crash]


def test_a_real_mxnet_crash_is_recorded_as_the_releases_not_run_again_and_exits_0(
        project, tmp_path):
    """No row knows the crash yet (an empty file): the real asv runs the point, MXNet kills
    its process, the probe sees it again alone, and the run records and names it."""
    crash_file = tmp_path / "known_crashes.jsonl"
    crash_file.write_text("")
    first = run_until_it_crashes(project, crash_file)
    assert first.returncode == 0, first.stdout[-4000:]
    assert "probing a failed point alone: %s" % CRASH in first.stdout
    [row] = crashes.read_rows(str(crash_file))
    assert (row["entry"], row["case"], row["method"], row["since"], row["until"]) == (
        "LeakyReLU_rrelu", "medium", "time_forward_backward", RELEASE, RELEASE)
    assert row["cpu"] == crashes.cpu_kind() and row["flavor"] == "cpu-mkldnn"
    assert row["what"].startswith("SIG") and row["exit_status"] != 0
    summary = first.stdout.split("summary: ")[1]
    assert "0 measured, 0 failed, 1 MXNet crash(es)," in summary, summary
    assert "  %s on %s (cpu-mkldnn, %s): SIG" % (CRASH, RELEASE, crashes.cpu_text(row["cpu"])) \
        in summary, summary
    points = results.by_name(results.Store(str(project.results_dir)).points(
        project.machine, project.tags[RELEASE], project.env_name("cpu-mkldnn")))
    assert points[CRASH].value is None  # the crash itself: failed, not skipped

    again = run(project, crash_file)
    assert again.returncode == 0, again.stdout[-4000:]
    assert "%s: 0 point(s) to measure" % RELEASE in again.stdout, again.stdout[-4000:]
    assert "1 MXNet crash(es)" in again.stdout.split("summary: ")[1]
    assert len(crashes.read_rows(str(crash_file))) == 1


def test_a_known_crash_skips_in_the_harness_with_its_reason(project):
    """With the committed file, the same point is a skip naming the crash (the harness reads
    the row before the call): a new results folder records n/a, not a failure."""
    (project.base / "fresh").mkdir()
    fresh = AsvProject(project.base / "fresh", env_dir=project.env_dir)
    result = fresh.mxbench("run", RELEASE, "--flavor", "cpu-mkldnn", "--selection", "short",
                           "--bench", BENCH, "--", "-a", "rounds=1", "-a", "repeat=2")
    assert result.returncode == 0, result.stdout[-4000:]
    assert "probing" not in result.stdout
    points = results.by_name(results.Store(str(fresh.results_dir)).points(
        fresh.machine, fresh.tags[RELEASE], fresh.env_name("cpu-mkldnn")))
    assert math.isnan(points[CRASH].value)
    # the row names every shape class: the small point, not run (n/a), is counted with it
    assert "0 measured, 0 failed, 2 MXNet crash(es)," in result.stdout.split("summary: ")[1], \
        result.stdout[-3000:]


def test_a_corrupt_known_crash_file_stops_a_run_in_one_line(project, tmp_path):
    crash_file = tmp_path / "known_crashes.jsonl"
    crash_file.write_text("{oops\n")
    result = run(project, crash_file)
    assert result.returncode == 2, result.stdout[-3000:]
    assert "Traceback" not in result.stdout
    assert result.stdout.strip().splitlines()[-1] == (
        "error: %s line 1: not JSON (Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1))" % crash_file), result.stdout[-3000:]


def test_an_adhoc_run_does_not_run_a_known_crash_in_its_own_process():
    """The ad-hoc path times in the caller's process: rrelu's backward, known to abort 1.9.1,
    is not run; the row says why, and its forward is timed."""
    from mxbench.inside import adhoc
    from benchmarks import harness as H
    if not crashes.crashing_methods("LeakyReLU_rrelu", H.mx.__version__, "small"):
        pytest.skip("no known crash of rrelu's backward on mxnet %s" % H.mx.__version__)
    [row] = [r for r in adhoc.run_operator("LeakyReLU", cases=["small"], dtypes=["float32"],
                                           runs=2, warmup=0) if r["entry"] == "LeakyReLU_rrelu"]
    assert row["status"] == "ok" and row["forward"] is not None
    assert row["forward_backward"] is None
    assert row["message"].startswith("backward not measured: crashes the process in mxnet")
