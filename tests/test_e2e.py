"""End to end with the real asv and real MXNet wheels on two ladder commits.

The session fixture `asv_e2e` (conftest.py) has already run
`asv run HASHFILE:{1.8.0.post0, 1.9.1}` for both CPU flavors; cpu-openblas has a build for
1.8.0.post0 (mxnet-native) and none for 1.9.1.
"""
import json
import math
import subprocess
import sys

from tests.conftest import E2E_ATTRS, E2E_RELEASES, ROOT


def load_results(path):
    with open(str(path)) as fh:
        return json.load(fh)


def values(result_file, benchmark):
    data = load_results(result_file)
    columns = data["result_columns"]
    return data["results"][benchmark][columns.index("result")]


def test_results_exist_for_both_commits_where_there_is_a_build(asv_e2e):
    """mxbench run leaves out (release, flavor) cells without a wheel: cpu-openblas has none
    for 1.9.1, so that environment runs 1.8.0.post0 only and says why."""
    for release in E2E_RELEASES:
        assert asv_e2e.result_file(release, "cpu-mkldnn").exists(), release
    assert asv_e2e.result_file("1.8.0.post0", "cpu-openblas").exists()
    snapshot = (asv_e2e.first_results / asv_e2e.machine
                / asv_e2e.result_file("1.9.1", "cpu-openblas").name)
    assert not snapshot.exists()
    summary = asv_e2e.first_run.stdout.split("summary: ")[1]
    assert "no build" in summary and "measured" in summary
    machine = load_results(asv_e2e.results_dir / asv_e2e.machine / "machine.json")
    assert machine["machine"] == asv_e2e.machine and machine["cpu"] and machine["ram"]


def test_real_numbers_where_there_is_a_build(asv_e2e):
    for release in E2E_RELEASES:
        cpu = values(asv_e2e.result_file(release, "cpu-mkldnn"),
                     "bench_operators.dot.time_forward")
        # params: shape x dtype x device; a CPU environment's file keeps only the cpu device
        # (its gpu points only skipped: docs/results-store.md), every point of it measured.
        measured = [v for v in cpu if v is not None and not math.isnan(v)]
        assert len(measured) == len(cpu) > 0 and all(0 < v < 10 for v in measured)
        data = load_results(asv_e2e.result_file(release, "cpu-mkldnn"))
        params = data["results"]["bench_operators.dot.time_forward"][
            data["result_columns"].index("params")]
        assert params[-1] == ["'cpu'"], params
    data = load_results(asv_e2e.result_file("1.9.1", "cpu-mkldnn"))
    samples = data["results"]["bench_operators.dot.time_forward"][
        data["result_columns"].index("samples")]
    assert any(s and len(s) >= 2 for s in samples)  # --record-samples reached the file


def test_first_call_memory_is_measured_through_asv(asv_e2e):
    """bench_memory through asv's forkserver: every float32 point holds at least its output."""
    for release in E2E_RELEASES:
        peaks = values(asv_e2e.result_file(release, "cpu-mkldnn"),
                       "bench_memory.softmax.track_first_call_peak_rss")
        assert peaks and all(v is not None and v > 0 for v in peaks), (release, peaks)


def test_a_variant_runs_as_its_own_environment_and_compares(asv_e2e):
    """one-core (OMP_NUM_THREADS=1, pinned to CPU 0) through asv.variants.conf.json, then
    `mxbench changes ab` against the fixture's default run of the same release."""
    proc = asv_e2e.mxbench("run", "1.9.1", "--flavor", "cpu-mkldnn", "--variant", "one-core",
                           "--bench", r"^bench_overhead\.Dispatch\.", "--", *E2E_ATTRS,
                           config=asv_e2e.variants_conf_path)
    name = "virtualenv-py3.11-numpy1.23.5-requests-MXBENCH_VARIANTone-core-MXNET_FLAVORcpu-mkldnn"
    result = (asv_e2e.results_dir / asv_e2e.machine
              / ("%s-%s.json" % (asv_e2e.tags["1.9.1"][:8], name)))
    try:
        assert proc.returncode == 0, proc.stdout[-3000:]
        assert "-E %s" % name in proc.stdout  # only that variant ran
        floor = values(result, "bench_overhead.Dispatch.time_add_1_element")
        assert floor and all(v is not None and 0 < v < 1 for v in floor if not math.isnan(v))
        ab = subprocess.run(
            [sys.executable, "-m", "mxbench", "changes", "--config", str(asv_e2e.conf_path), "ab",
             "--machine-a", asv_e2e.machine, "--machine-b", asv_e2e.machine,
             "--variant-b", "one-core", "--release", "1.9.1"],
            cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            universal_newlines=True, timeout=300)
        assert ab.returncode == 0, ab.stdout
        assert ab.stdout.startswith("A/B 1.9.1 cpu-mkldnn, %s vs %s/one-core"
                                    % (asv_e2e.machine, asv_e2e.machine)), ab.stdout
        cost = subprocess.run(
            [sys.executable, "-m", "mxbench", "cost", "--config", str(asv_e2e.variants_conf_path),
             "--machine", asv_e2e.machine, "--release", "1.9.1", "--variant", "one-core"],
            cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            universal_newlines=True, timeout=300)
        assert cost.returncode == 0, cost.stdout
        assert cost.stdout.startswith("1.9.1 cpu-mkldnn/one-core: 3 benchmarks"), cost.stdout
    finally:  # other tests expect the fixture's environments only
        if result.exists():
            result.unlink()


def plain_asv_run_without_a_build(asv_e2e):
    """Plain asv on a release the flavor has no wheel for (mxbench run leaves it out)."""
    result = asv_e2e.result_file("1.9.1", "cpu-openblas")
    if not result.exists():
        proc = asv_e2e.run("run", "--machine", asv_e2e.machine, "%s^!" % asv_e2e.tags["1.9.1"],
                           "-E", asv_e2e.env_name("cpu-openblas"), "-b",
                           r"^bench_operators\.dot\.time_forward\(", *E2E_ATTRS)
        assert proc.returncode == 0, proc.stdout[-3000:]
    return result


def test_missing_build_is_a_skip_with_its_reason(asv_e2e):
    result = values(plain_asv_run_without_a_build(asv_e2e), "bench_operators.dot.time_forward")
    assert result and all(v is not None and math.isnan(v) for v in result)  # n/a, not failed
    # the run says so before it starts, per release and flavor
    plan = asv_e2e.first_run.stdout.split("$ ")[0]
    assert "no build: mxnet-native has no 1.9.1 wheel" in plan
    # and the same flavor one release earlier did run
    older = values(asv_e2e.result_file("1.8.0.post0", "cpu-openblas"),
                   "bench_operators.dot.time_forward")
    assert any(v is not None and not math.isnan(v) for v in older)


def test_compare_prints_both_columns(asv_e2e):
    proc = asv_e2e.run("compare", "1.8.0.post0", "1.9.1", "--machine", asv_e2e.machine,
                       "-E", asv_e2e.env_name("cpu-mkldnn"))
    assert proc.returncode == 0, proc.stdout
    assert "Traceback" not in proc.stdout
    rows = [line for line in proc.stdout.splitlines() if "bench_operators.dot.time_forward" in line]
    assert rows
    # before and after columns both carry a time, e.g. "  1.23±0.1ms  1.20±0.01ms  0.98  ..."
    assert any(line.count("s ") >= 2 or line.count("μs") + line.count("ms") >= 2 for line in rows)


def test_compare_with_the_no_build_flavor_does_not_crash(asv_e2e):
    plain_asv_run_without_a_build(asv_e2e)
    proc = asv_e2e.run("compare", "1.8.0.post0", "1.9.1", "--machine", asv_e2e.machine,
                       "-E", asv_e2e.env_name("cpu-openblas"))
    assert proc.returncode == 0 and "Traceback" not in proc.stdout
    assert "n/a" in proc.stdout


# Plain `asv find 1.8.0..1.9.1 bench_overhead.Dispatch.time_add_1_element` over the ladder, with
# a build at every release: the README's command, run as written by test_readme_commands.


def test_find_across_releases_without_a_build(asv_e2e):
    """cpu-openblas over 1.7.0..1.8.0.post0: of 6 releases only 1.7.0 and 1.8.0.post0 have
    builds. asv find alone stops there ("Too many commits failed"); `mxbench find` bisects
    over the built releases only, both named ends included, each probe a real asv run, and
    answers with asv compare's rule: a regression with its points (exit 0) or none (exit 1)."""
    bench = "bench_overhead.Dispatch.time_add_1_element"
    proc = asv_e2e.mxbench("find", "1.7.0..1.8.0.post0", bench, "--flavor", "cpu-openblas")
    assert proc.returncode in (0, 1), proc.stdout[-3000:]
    assert "Traceback" not in proc.stdout
    assert "6 releases (both ends included), 2 with a cpu-openblas build" in proc.stdout
    assert "no build: 1.7.0.post0, 1.7.0.post1, 1.7.0.post2, 1.8.0" in proc.stdout
    if proc.returncode == 0:
        assert "Greatest regression found: 1.8.0.post0 (1.7.0 -> 1.8.0.post0)" in proc.stdout
        assert "  %s(" % bench in proc.stdout or "  %s " % bench in proc.stdout
    else:
        assert "No significant regression (asv's rule at 1.20x) in 1.7.0..1.8.0.post0" \
            in proc.stdout
    # both probes are now recorded results, so a second bisection measures nothing new
    again = asv_e2e.mxbench("find", "1.7.0..1.8.0.post0", bench, "--flavor", "cpu-openblas")
    assert again.returncode == proc.returncode and "$ " not in again.stdout


def test_plain_asv_find_over_a_gap_does_not_crash(asv_e2e):
    proc = asv_e2e.run("find", "-E", asv_e2e.env_name("cpu-openblas"), "--machine",
                       asv_e2e.machine, "1.8.0..1.9.1", "bench_overhead.Dispatch.time_add_1_element")
    assert proc.returncode == 0 and "Traceback" not in proc.stdout, proc.stdout[-3000:]


def test_unknown_flavor_and_release_are_clear_errors(asv_e2e):
    proc = asv_e2e.mxbench("find", "1.6.0..1.9.1", "bench_overhead.Dispatch.time_add_1_element",
                           "--flavor", "cpu-fast")
    assert proc.returncode == 2 and "unknown flavor 'cpu-fast'" in proc.stdout
    proc = asv_e2e.mxbench("run", "1.9.7")
    assert proc.returncode == 2 and "unknown MXNet release '1.9.7'" in proc.stdout


def test_the_suite_imports_and_runs_on_the_oldest_release(asv_e2e):
    """1.0.0.post4: operators that exist are measured, ones added later skip (not fail)."""
    proc = asv_e2e.mxbench("run", "1.0.0.post4", "--flavor", "cpu-openblas", "--bench",
                           r"^bench_operators\.(dot|LayerNorm)\.time_forward\(", "--",
                           "-a", "rounds=1", "-a", "repeat=2")
    result = asv_e2e.result_file("1.0.0.post4", "cpu-openblas")
    try:
        assert proc.returncode == 0, proc.stdout[-3000:]
        dot = values(result, "bench_operators.dot.time_forward")
        assert any(v is not None and not math.isnan(v) for v in dot)
        layer_norm = values(result, "bench_operators.LayerNorm.time_forward")
        assert layer_norm and all(v is not None and math.isnan(v) for v in layer_norm)
    finally:  # other tests expect the fixture's two releases only
        if result.exists():
            result.unlink()


def test_check_fails_on_a_real_regression_and_passes_the_other_way(asv_e2e):
    """`mxbench check` = asv continuous + a second pass over what it flags, with the
    low-noise variant. LayerNorm's forward on the medium shape became ~9x faster in 1.9.0
    (apache/mxnet#19601; the history has 11.7 ms -> 1.3 ms): checked as a change from 1.9.1
    back to 1.8.0.post0 it is a regression in both passes (exit 1); forward it is not."""
    bench = r"^bench_operators\.LayerNorm\.time_forward\('medium', 'float32'"
    back = asv_e2e.mxbench("check", "1.9.1", "1.8.0.post0", "-b", bench,
                           config=asv_e2e.variants_conf_path)
    assert back.returncode == 1, back.stdout[-3000:]
    assert "MXBENCH_VARIANTlow-noise-MXNET_FLAVORcpu-mkldnn" in back.stdout
    assert ("second pass: measuring again the 1 flagged point(s): "
            "bench_operators.LayerNorm.time_forward('medium', 'float32'") in back.stdout
    assert "REGRESSION: significantly slower beyond 1.30x in both passes" in back.stdout
    ahead = asv_e2e.mxbench("check", "1.8.0.post0", "1.9.1", "-b", bench,
                            config=asv_e2e.variants_conf_path)
    assert ahead.returncode == 0, ahead.stdout[-3000:]
    assert "no significant slow-down beyond 1.30x" in ahead.stdout
    assert "second pass" not in ahead.stdout
    # a check records in .asv/check-results, beside the config: results/ is untouched
    checked = asv_e2e.base / ".asv" / "check-results" / asv_e2e.machine
    assert len(list(checked.glob("*-MXBENCH_VARIANTlow-noise-MXNET_FLAVORcpu-mkldnn.json"))) == 2
    assert sorted(p.name for p in asv_e2e.results_dir.iterdir()) == \
        sorted(p.name for p in asv_e2e.first_results.iterdir())
    for release in ("1.8.0.post0", "1.9.1"):
        recorded = load_results(asv_e2e.result_file(release, "cpu-mkldnn"))["results"]
        assert "bench_operators.LayerNorm.time_forward" not in recorded


def test_check_refuses_what_it_cannot_measure(asv_e2e):
    proc = asv_e2e.mxbench("check", "1.9.0", "1.9.7", config=asv_e2e.variants_conf_path)
    assert proc.returncode == 2 and "unknown MXNet release '1.9.7'" in proc.stdout
    proc = asv_e2e.mxbench("check", "1.8.0.post0", "1.9.1", "--flavor", "cpu-openblas",
                           config=asv_e2e.variants_conf_path)
    assert proc.returncode == 2 and "1.9.1 cpu-openblas: no build" in proc.stdout
    proc = asv_e2e.mxbench("check", "1.9.1", "1.9.1", config=asv_e2e.variants_conf_path)
    assert proc.returncode == 2 and "BASE and HEAD are both 1.9.1" in proc.stdout
    proc = asv_e2e.mxbench("check", "1.8.0.post0", "1.9.1", "--variant", "fast")
    assert proc.returncode == 2 and "variant fast is not in the matrix" in proc.stdout


def test_a_release_installed_again_is_moved_back_from_where_the_hook_kept_it(recorded_project):
    """The install hook keeps the release it removes (env_matrix/asv_hook.py): 1.9.1 then
    1.8.0.post0 in one environment moves 1.8.0.post0 back (no wheel unpacked), keeps 1.9.1,
    and the release measured is 1.8.0.post0, whose import the hook checked when it first
    installed it (a release moved back keeps that check's record)."""
    project = recorded_project
    env = project.env_path("cpu-mkldnn")
    bench = r"^bench_overhead\.Dispatch\.time_add_1_element\("
    def kept():
        return sorted(p.name for p in (env / "mxbench-kept-releases").iterdir())
    for number, release in enumerate(("1.8.0.post0", "1.9.1", "1.8.0.post0")):
        if number == 2:  # 1.9.1 took its place: kept
            assert "mxnet==1.8.0.post0" in kept(), kept()
        proc = project.mxbench("run", release, "--flavor", "cpu-mkldnn", "--rerun", "--bench",
                               bench, "--", *E2E_ATTRS)
        assert proc.returncode == 0, proc.stdout[-3000:]
    assert "mxnet==1.9.1" in kept() and "mxnet==1.8.0.post0" not in kept(), kept()
    build = load_results(env / "mxbench-build.json")
    assert (build["release"], build["status"]) == ("1.8.0.post0", "ok"), build
    found = subprocess.run([str(env / "bin" / "python"), "-c",
                            "import mxnet; print(mxnet.__version__)"],
                           stdout=subprocess.PIPE, universal_newlines=True)
    assert found.stdout.strip() == "1.8.0", found.stdout
    measured = values(project.result_file("1.8.0.post0", "cpu-mkldnn"),
                      "bench_overhead.Dispatch.time_add_1_element")
    assert any(v is not None and not math.isnan(v) for v in measured)
