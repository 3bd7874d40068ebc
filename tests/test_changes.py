"""mxbench changes and mxbench cost on real asv results (the asv_e2e fixture's run)."""
import importlib
import re
import shutil
import subprocess
import sys

import pytest

from mxbench.reports.changes import Change, aa_summary, compare, whole_selection
from mxbench.core.results import Point
from tests.conftest import HISTORY_MACHINE, ROOT


def tool(asv_e2e, command, *args):
    return subprocess.run([sys.executable, "-m", "mxbench", command, "--config", str(asv_e2e.conf_path)]
                          + list(args), cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)


def test_release_report_and_chart(asv_e2e, tmp_path):
    out, png = tmp_path / "changes.md", tmp_path / "changes.png"
    proc = tool(asv_e2e, "changes", "releases", "--machine", asv_e2e.machine,
                "-o", str(out), "--chart", str(png))
    assert proc.returncode == 0, proc.stdout
    text = out.read_text()
    # cpu-mkldnn has both releases measured (and 1.9.0 too once a bisection in another test
    # has probed it); cpu-openblas only 1.8.0.post0 (no 1.9.1 build)
    assert "## cpu-mkldnn" in text
    assert re.search(r"### (1\.8\.0\.post0|1\.9\.0) → 1\.9\.1", text), text[:2000]
    assert "points compared" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_aa_on_two_real_runs_of_one_release(asv_e2e):
    second = asv_e2e.machine + "-again"
    from mxbench.asvrun import runner
    runner.ensure_machine(second)
    try:
        proc = asv_e2e.mxbench("--machine", second, "run", "1.9.1", "--flavor", "cpu-mkldnn",
                               "--bench", r"^bench_overhead\.Dispatch\.", "--", "-a", "rounds=1")
        assert proc.returncode == 0, proc.stdout[-3000:]
        proc = tool(asv_e2e, "changes", "aa", "--machine-a", asv_e2e.machine,
                    "--machine-b", second, "--release", "1.9.1", "--flavor", "cpu-mkldnn")
        assert proc.returncode == 0, proc.stdout
        assert "A/A 1.9.1 cpu-mkldnn" in proc.stdout and "points" in proc.stdout
        assert "time, other shapes" in proc.stdout
    finally:  # the shared fixture's results keep one machine for the other tests
        shutil.rmtree(str(asv_e2e.results_dir / second), ignore_errors=True)


def test_cost_lists_where_the_time_went(asv_e2e):
    proc = tool(asv_e2e, "cost", "--machine", asv_e2e.machine, "--release", "1.9.1")
    assert proc.returncode == 0, proc.stdout
    assert "benchmarking" in proc.stdout and "bench_operators" in proc.stdout


def test_cost_counts_setup_caches_as_benchmarking_not_install():
    """asv keeps a setup_cache's seconds beside '<build>' in a record's durations; the
    instruction counts run in bench_instructions' setup_caches (minutes), which are no install."""
    from mxbench.core.project import DEFAULT_CONFIG, load as load_project
    from mxbench.reports import cost
    project = load_project(DEFAULT_CONFIG)
    commit, env_name = project.commit("1.9.1"), project.environment_names()["cpu-mkldnn"]
    recorded = project.store.recordings(HISTORY_MACHINE, commit, env_name)[0].durations
    per, caches, build = cost.durations(project.store, HISTORY_MACHINE, commit, env_name)
    assert build == recorded["<build>"]
    assert caches and all(name.startswith("bench_instructions.setup_cache:") for name in caches)
    assert sum(caches.values()) == sum(v for k, v in recorded.items()
                                       if k.startswith("<setup_cache "))
    assert sum(caches.values()) > 60  # the counting: minutes, where the install took seconds


def test_verdicts_follow_asv_compare():
    # Without statistics asv decides on the factor alone.
    def points(b, c):
        return {"b(x)": Point("b(x)", "b", ("x",), b, "seconds"),
                "c(x)": Point("c(x)", "c", ("x",), c, "s")}
    before, after = points(1.0, 1.0), points(1.5, 1.1)
    verdicts = {c.name: c.verdict for c in compare(before, after, 1.2)}
    assert verdicts == {"b(x)": "slower", "c(x)": "same"}
    faster = compare(after, before, 1.2)
    assert [c.verdict for c in faster if c.name == "b(x)"] == ["faster"]


def test_aa_summary_counts():
    changes = [Change("a", 1.0, 1.02, 1.02, "same", "s"), Change("b", 1.0, 2.0, 2.0, "slower", "s"),
               Change("c", 1.0, 0.97, 0.97, "same", "s")]
    summary = aa_summary(changes)
    assert summary["points"] == 3 and summary["flagged"] == 1
    assert 0.02 < summary["median_abs_log_ratio"] < 0.031


def test_documented_changes_are_checked_against_the_bracketing_pair():
    from mxbench.reports.documented import check_documented, documented_markdown
    entry = {"release": "1.9.0", "benchmarks": ["bench_operators.LayerNorm.time_forward"],
             "flavors": ["cpu-mkldnn", "cpu-openblas"], "expect": "faster",
             "what": "LayerNorm kernel", "source": "https://example.invalid/pr"}
    name = "bench_operators.LayerNorm.time_forward(%s, float32, cpu)"
    pair = [Change(name % "small", 1.0, 0.3, 0.3, "faster", "seconds"),
            Change(name % "medium", 1.0, 0.25, 0.25, "faster", "seconds"),
            Change(name % "large", 1.0, 1.0, 1.0, "same", "seconds"),
            # a prefix of another benchmark's name must not count
            Change("bench_operators.LayerNorm.time_forward_backward(small)", 1, 9, 9, "slower", "s")]
    report = {"cpu-mkldnn": [("1.7.0.post2", "1.8.0.post0", []),
                             ("1.8.0.post0", "1.9.1", pair)],  # 1.9.0 not measured: 1.9.1 ships it
              "cpu-openblas": [("1.6.0", "1.7.0", [])]}           # history stops before 1.9.0
    rows = check_documented(report, [entry])
    by_flavor = dict((r.flavor, r) for r in rows)
    assert by_flavor["cpu-mkldnn"][2:8] == ("1.8.0.post0 → 1.9.1", 2, 0, 1, 0.3,
                                            "seen (not yet confirmed)")
    assert by_flavor["cpu-openblas"][2:8] == (None, 0, 0, 0, None, "not measured")
    entry["expect"] = "slower"
    assert check_documented(report, [entry])[0].verdict == "not seen"
    text = documented_markdown(rows)
    assert "| 1.9.0 | LayerNorm kernel ([source](https://example.invalid/pr)) | cpu-mkldnn" in text


def test_documented_changes_file_is_well_formed():
    from env_matrix.matrix import load
    from mxbench.reports.documented import load_documented
    matrix = load()
    releases = set(matrix.releases())
    for entry in load_documented():
        assert entry["release"] in releases, entry
        assert entry["expect"] in ("faster", "slower"), entry
        for url in [entry["source"]] + entry.get("also", []):
            assert url.startswith("https://"), entry
        assert entry["benchmarks"] and all(b.startswith("bench_") for b in entry["benchmarks"])
        if entry.get("device", "cpu") == "cpu":
            assert set(entry["flavors"]) <= {"cpu-mkldnn", "cpu-openblas"}, entry
        else:  # kept for a GPU machine
            assert entry["device"] == "gpu", entry
            assert all(f.startswith("gpu-") and f in matrix.flavors for f in entry["flavors"])
        for bench in entry["benchmarks"]:  # module.Class.method of this suite
            module, cls, method = bench.split(".")
            mod = importlib.import_module("benchmarks." + module)
            assert hasattr(getattr(mod, cls, None), method), bench


def test_documented_changes_are_complete_and_at_least_40_on_cpu():
    """Every entry says what its source reports and at which shapes (or that it gives none),
    regressions are among them, and at least 40 are CPU changes."""
    from mxbench.reports.documented import load_documented
    documented = load_documented()
    for entry in documented:
        for field in ("release", "what", "source", "expect", "size", "shapes", "flavors"):
            assert isinstance(entry.get(field), (str, list)) and entry[field], (field, entry)
        assert set(entry) <= {"release", "what", "source", "also", "benchmarks", "flavors",
                              "expect", "size", "shapes", "cases", "not_measurable",
                              "device"}, entry
    cpu = [e for e in documented if e.get("device", "cpu") == "cpu"]
    assert len(cpu) >= 40
    assert sum(e["expect"] == "slower" for e in cpu) >= 5


def test_every_documented_shape_is_a_field_case_of_its_entry():
    """A field case named in the toml is a shape parameter value of every benchmark of its
    entry (benchmarks/catalogue/field.py), named field-..., after the entry's own cases."""
    from mxbench.reports.documented import load_documented
    import benchmarks.bench_operators as bench_operators
    from benchmarks.catalogue import by_class_name
    named = 0
    for entry in load_documented():
        for case_name in entry.get("cases", []):
            assert case_name.startswith("field-"), entry
            for bench in entry["benchmarks"]:
                module, cls, method = bench.split(".")
                assert module == "bench_operators", bench
                op = by_class_name()[cls]
                assert case_name in op.field, (case_name, bench)
                shapes = getattr(bench_operators, cls).params[0]
                assert shapes[:len(op.cases)] == list(op.cases)  # recorded names first
                assert case_name in shapes[len(op.cases):], (case_name, bench)
                named += 1
    assert named >= 15


def test_documented_changes_are_judged_at_their_field_shapes():
    from mxbench.reports.documented import check_documented, documented_markdown
    entry = {"release": "1.8.0", "benchmarks": ["bench_operators.FullyConnected.time_forward"],
             "flavors": ["cpu-mkldnn"], "expect": "faster", "what": "FC small batches",
             "source": "https://example.invalid/17980", "cases": ["field-17980"],
             "size": "3.7x", "shapes": "(5, 2048, 512)"}
    name = "bench_operators.FullyConnected.time_forward('%s', 'float32', 'cpu')"
    catalogue = [Change(name % "small", 1.0, 1.01, 1.01, "same", "seconds"),
                 Change(name % "medium", 1.0, 0.99, 0.99, "same", "seconds")]
    field = [Change(name % "field-17980", 1.0, 0.4, 0.4, "faster", "seconds"),
             Change(name % "field-bs1", 1.0, 2.0, 2.0, "slower", "seconds")]  # another case
    report = {"cpu-mkldnn": [("1.7.0.post2", "1.8.0.post0", catalogue + field)]}
    row = check_documented(report, [entry])[0]
    assert row[2:8] == ("1.7.0.post2 → 1.8.0.post0", 1, 0, 0, 0.4,
                        "seen at its shape (not yet confirmed)")
    # field cases not recorded in this pair: the catalogue's shapes, and the command
    report = {"cpu-mkldnn": [("1.7.0.post2", "1.8.0.post0", catalogue)]}
    rows = check_documented(report, [entry])
    assert rows[0][2:8] == ("1.7.0.post2 → 1.8.0.post0", 0, 0, 2, 1.0,
                            "not recorded at the documented shape yet")
    text = documented_markdown(rows)
    assert ("`python -m mxbench run 1.7.0.post2 1.8.0.post0 --flavor cpu-mkldnn "
            "--selection field`") in text
    # compiled out of the wheels: said so, whatever the points do
    entry["not_measurable"] = "MKL BLAS only"
    rows = check_documented({"cpu-mkldnn": [("1.7.0.post2", "1.8.0.post0", field)]}, [entry])
    assert rows[0].verdict == "not measurable in these wheels"
    assert "**not measurable in these wheels**: MKL BLAS only" in documented_markdown(rows)
    # GPU entries are left to a GPU machine's report
    gpu = dict(entry, device="gpu", flavors=["gpu-cuda10.1"])
    assert check_documented(report, [gpu]) == []
    assert "1 GPU changes are kept" in documented_markdown([], [gpu])


def changes_cli(*args):
    return subprocess.run([sys.executable, "-m", "mxbench", "changes"] + list(args),
                          cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=600)


def test_package_lineage_crosses_the_flavor_and_python_boundaries():
    proc = changes_cli("lineage", "mxnet", "--machine", HISTORY_MACHINE, "--top", "2")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if re.match(r"\| \d", line)]
    pairs = [tuple(cell.strip() for cell in row.split("|")[1:3]) for row in rows]
    # plain mxnet: the OpenBLAS build up to 1.6.0, MKL-DNN from 1.7; 1.2.x is in Python 3.7
    assert ("1.6.0", "1.7.0.post2") in pairs and ("1.2.1.post1", "1.3.0") in pairs, pairs
    assert all(a != b for a, b in pairs)
    flavor_row = rows[pairs.index(("1.6.0", "1.7.0.post2"))]
    assert "flavor cpu-openblas → cpu-mkldnn" in flavor_row
    assert "Python 3.7 → 3.11" in rows[pairs.index(("1.2.1.post1", "1.3.0"))]
    # rows within one flavor and environment carry no boundary note
    assert "→" not in rows[pairs.index(("1.8.0.post0", "1.9.0"))]
    assert "### 1.6.0 cpu-openblas → 1.7.0.post2 cpu-mkldnn" in proc.stdout


def test_between_any_two_recordings_and_its_refusals():
    proc = changes_cli("between", "1.2.1.post1:cpu-openblas", "1.3.1:cpu-openblas",
                       "--machine", HISTORY_MACHINE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("1.2.1.post1 cpu-openblas (Python 3.7, numpy 1.21.6) → "
                                  "1.3.1 cpu-openblas (Python 3.11, numpy 1.23.5)")
    assert "Not only MXNet differs here: Python 3.7 → 3.11" in proc.stdout
    for args, message in (
            (("1.2.1:cpu-openblas", "1.3.1"), "--config asv.py37.conf.json run 1.2.1"),
            (("1.7.0:cpu-mkldnn", "1.9.1"), "no build"),
            (("1.9.1:cpu-nothing", "1.9.1"), "unknown flavor"),
            (("0.1", "1.9.1"), "0.1")):
        proc = changes_cli("between", *args, "--machine", HISTORY_MACHINE)
        assert proc.returncode == 2 and message in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    proc = changes_cli("lineage", "numpy")
    assert proc.returncode == 2 and "mxnet, mxnet-mkl, mxnet-native" in proc.stderr


@pytest.mark.parametrize("command,whole", [
    ("python -m mxbench run 1.9.1 --flavor cpu-mkldnn", True),
    ("python -m mxbench run 1.9.1 --flavor cpu-mkldnn --bench ^bench_instructions\\.", False),
    ("python -m mxbench run 1.6.0 -b BatchNorm", False),
    ("python -m mxbench run 1.6.0 --bench=BatchNorm", False),
    ("python -m mxbench run 'unbalanced", False),
])
def test_the_machine_line_reads_only_recordings_of_the_whole_selection(command, whole):
    """A later run of the counts or of a few points into a record is not the machine its
    timings had (changes releases' "Machine at the two recordings")."""
    assert whole_selection(command) is whole


def project_logging(entries):
    """A stand-in project of one flavor whose release R (its own commit) has the conditions
    entries entries[R]."""
    class Store(object):
        def conditions(self, machine, commit, env_name):
            return entries[commit]

    class Project(object):
        store = Store()

        def commit(self, release):
            return release

        def environment_names(self):
            return {"cpu-mkldnn": "env"}
    return Project()


def test_the_machine_line_names_two_kinds_of_cpu():
    """A pair recorded on two kinds of host says so: a model name alone ("AMD EPYC") hid an
    AVX-512 host among AVX2 ones. Entries from before the log named the CPU say nothing.
    (A kind is vendor, family and model: tests/test_cpu_kinds.py.)"""
    from mxbench.reports.changes import machine_note
    zen4 = {"vendor": "AuthenticAMD", "family": "25", "model": "17", "stepping": "1",
            "vector": "avx512"}
    entries = {"a": {"command": "python -m mxbench run 1.9.0", "cpu": dict(zen4, model="1",
                                                                          vector="avx2"),
                     "reference_before": {"python_call_ns": 50.0}},
               "b": {"command": "python -m mxbench run 1.9.1", "cpu": zen4,
                     "reference_before": {"python_call_ns": 25.0}},
               "c": {"command": "python -m mxbench run 1.9.1", "cpu": zen4,
                     "reference_before": {"python_call_ns": 25.0}},
               "d": {"command": "python -m mxbench run 1.9.1",
                     "reference_before": {"python_call_ns": 25.0}}}

    note = machine_note(project_logging({r: [e] for r, e in entries.items()}), "m")
    line = note("cpu-mkldnn", "a", "b")
    assert "Python call dispatch 0.50x" in line
    assert ("**recorded on two kinds of CPU: a on AuthenticAMD family 25 model 1 against b on "
            "AuthenticAMD family 25 model 17**") in line
    assert "two kinds of CPU" not in note("cpu-mkldnn", "b", "c")
    assert "two kinds of CPU" not in note("cpu-mkldnn", "a", "d")


def test_the_report_says_how_many_of_its_records_carry_their_conditions():
    """CHANGES.md names the records whose timings have no load and speed figures (made
    before the conditions log) and the busy ones."""
    from mxbench.reports.changes import records_conditions_note
    quiet = {"command": "python -m mxbench run 1.9.1", "busy": False,
             "load_before": {"other_cores": 0.0}, "reference_before": {"python_call_ns": 25.0},
             "reference_after": {"python_call_ns": 26.0}}
    entries = {"a": [], "b": [quiet], "c": [dict(quiet, busy=True)],
               "d": [quiet, {"command": "python -m mxbench run 1.9.1 -b relu"}]}
    project = project_logging(entries)
    pairs = [("a", "b", []), ("b", "c", []), ("c", "d", [])]
    line, blank = records_conditions_note(project, "m", {"cpu-mkldnn": pairs}, "results")
    assert blank == ""
    assert line.startswith("3 of the 4 records compared here carry the machine's load and "
                           "speed"), line
    assert "`results/m/conditions.jsonl`" in line
    assert "the other 1 were recorded before that log existed" in line
    assert "**recorded on a busy machine: c cpu-mkldnn**" in line
    assert records_conditions_note(project, "m", {"cpu-mkldnn": []}) == []


def test_an_aa_side_can_be_a_results_directory_path():
    """One name, two directories: the history's record of 1.9.1 and the first A/A recording
    on its host are both `amd-epyc-avx512-2cpu-24gb`; a path picks each."""
    name = "amd-epyc-avx512-2cpu-24gb"
    proc = changes_cli("aa", "--machine-a", "experiments/" + name,
                       "--machine-b", "results/" + name + "/", "--release", "1.9.1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("A/A 1.9.1 cpu-mkldnn, experiments/%s vs results/%s/ "
                                  % (name, name)), proc.stdout
    files = [line.split(": ", 1)[1] for line in proc.stdout.splitlines()
             if line.startswith(("  A: ", "  B: "))]
    assert [f.split("/")[0] for f in files] == ["experiments", "results"], files
    proc = changes_cli("aa", "--machine-a", "experiments/no-such-recording",
                       "--machine-b", "results/" + name, "--release", "1.9.1")
    assert proc.returncode == 2 and "recorded as no-such-recording in experiments" in proc.stderr


def test_the_memoized_mann_whitney_cdf_is_asvs(monkeypatch):
    """change_rule.asv_rule() keeps asv's exact cdf once per (m, n, u): the same floats as asv's
    own function, and the same tests on samples that tie, differ and overlap."""
    import random
    from asv import _stats
    from mxbench.core import change_rule
    change_rule.asv_rule()
    memoized = _stats.mann_whitney_u_cdf
    assert memoized.memoized and memoized.exact.__module__ == "asv._stats"
    for m in range(1, 13):
        for n in range(1, 13):
            for u in range(m * n + 1):
                assert memoized(m, n, u) == memoized.exact(m, n, u), (m, n, u)
    rng = random.Random(7)
    pairs = [([round(rng.gauss(1.0, 0.1), 2) for _ in range(rng.randint(2, 12))],
              [round(rng.gauss(rng.choice([1.0, 1.3]), 0.1), 2)
               for _ in range(rng.randint(2, 12))]) for _ in range(300)]
    tested = [_stats.mann_whitney_u(x, y) for x, y in pairs]
    monkeypatch.setattr(_stats, "mann_whitney_u_cdf", memoized.exact)
    assert tested == [_stats.mann_whitney_u(x, y) for x, y in pairs]
    assert any(p < 0.002 for _, p in tested) and any(p > 0.5 for _, p in tested)
