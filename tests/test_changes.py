"""mxbench.changes and mxbench.cost on real asv results (the asv_e2e fixture's run)."""
import shutil
import subprocess
import sys

from mxbench.changes import Change, aa_summary, compare, Point
from tests.conftest import ROOT


def tool(asv_e2e, module, *args):
    return subprocess.run([sys.executable, "-m", module, "--config", str(asv_e2e.conf_path)]
                          + list(args), cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)


def test_release_report_and_chart(asv_e2e, tmp_path):
    out, png = tmp_path / "changes.md", tmp_path / "changes.png"
    proc = tool(asv_e2e, "mxbench.changes", "releases", "--machine", asv_e2e.machine,
                "-o", str(out), "--chart", str(png))
    assert proc.returncode == 0, proc.stdout
    text = out.read_text()
    # cpu-mkldnn has both releases measured; cpu-openblas only 1.8.0.post0 (no 1.9.1 build)
    assert "## cpu-mkldnn" in text and "### 1.8.0.post0 → 1.9.1" in text
    assert "points compared" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_aa_on_two_real_runs_of_one_release(asv_e2e):
    second = asv_e2e.machine + "-again"
    from mxbench import asvtools
    asvtools.ensure_machine(second)
    try:
        proc = asv_e2e.mxbench("--machine", second, "run", "1.9.1", "--flavor", "cpu-mkldnn",
                               "--bench", r"^bench_overhead\.Dispatch\.", "--", "-a", "rounds=1")
        assert proc.returncode == 0, proc.stdout[-3000:]
        proc = tool(asv_e2e, "mxbench.changes", "aa", "--machine-a", asv_e2e.machine,
                    "--machine-b", second, "--release", "1.9.1", "--flavor", "cpu-mkldnn")
        assert proc.returncode == 0, proc.stdout
        assert "A/A 1.9.1 cpu-mkldnn" in proc.stdout and "points" in proc.stdout
        assert "time, other shapes" in proc.stdout
    finally:  # the shared fixture's results keep one machine for the other tests
        shutil.rmtree(str(asv_e2e.results_dir / second), ignore_errors=True)


def test_cost_lists_where_the_time_went(asv_e2e):
    proc = tool(asv_e2e, "mxbench.cost", "--machine", asv_e2e.machine, "--release", "1.9.1")
    assert proc.returncode == 0, proc.stdout
    assert "benchmarking" in proc.stdout and "bench_operators" in proc.stdout


def test_verdicts_follow_asv_compare():
    # Without statistics asv decides on the factor alone.
    before = {"b(x)": Point(1.0, None, None, "seconds"), "c(x)": Point(1.0, None, None, "s")}
    after = {"b(x)": Point(1.5, None, None, "seconds"), "c(x)": Point(1.1, None, None, "s")}
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
