"""Shared fixtures. `asv_e2e` runs the real asv, with real MXNet wheels, once per session."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The machine of the committed history, results/<it>/ (the only one there: test_results_store)
HISTORY_MACHINE = "amd-epyc-avx512-2cpu-24gb"
# The history before the quiet-machine rule, kept whole: results-archive/<it>/
ARCHIVE_MACHINE = "amd-epyc-2cpu-24gb"
# Tests record into temporary stores while pytest and the fixtures' own processes run: the
# refusal of a busy machine (mxbench/asvrun/conditions.py) has its own test, which unsets it.
os.environ.setdefault("MXBENCH_ALLOW_BUSY", "1")

from env_matrix import ladder
from mxbench.asvrun import runner as asvtools
from mxbench.core import project as project_model

# Two ladder commits, the same small benchmark subset, quick-but-real settings.
E2E_RELEASES = ("1.8.0.post0", "1.9.1")
E2E_BENCH = (r"^bench_operators\.(dot|softmax)\.time_forward\(|^bench_overhead\.Dispatch\."
             r"|^bench_memory\.softmax\.")
E2E_ATTRS = ["-a", "rounds=1", "-a", "repeat=5", "-a", "warmup_time=0.02"]
E2E_MACHINE = "mxbench-e2e-test"


class AsvProject(object):
    """A copy of the suite's asv config pointing at temporary ladder/env/results dirs."""

    def __init__(self, base, env_dir=None):
        self.base = Path(base)
        self.env_dir = Path(env_dir) if env_dir else self.base / "env"
        self.ladder = self.base / "ladder"
        self.results_dir = self.base / "results"
        self.html_dir = self.base / "html"
        self.machine = E2E_MACHINE
        self.conf_path = self.write_config("asv.conf.json")
        self.variants_conf_path = self.write_config("asv.variants.conf.json")
        ladder.ensure(str(self.ladder))
        self.tags = ladder.tags(str(self.ladder))
        asvtools.ensure_machine(self.machine)

    def write_config(self, name):
        """A copy of the repo's config `name` in this project's folder."""
        conf = project_model.read_config(str(ROOT / name))
        conf.update(repo=str(self.ladder), results_dir=str(self.results_dir),
                    html_dir=str(self.html_dir), env_dir=str(self.env_dir),
                    benchmark_dir=str(ROOT / "benchmarks"))
        for key in ("install_command", "uninstall_command"):
            conf[key] = [c.replace("{conf_dir}", str(ROOT)) for c in conf[key]]
        path = self.base / name
        path.write_text(json.dumps(conf, indent=1))
        return path

    def run(self, *args, env=None):
        full_env = dict(os.environ, **(env or {}))
        return subprocess.run([asvtools.asv_executable(), "--config", str(self.conf_path)]
                              + list(args), cwd=str(self.base), env=full_env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=1800)

    def mxbench_command(self, *args, config=None):
        return [sys.executable, "-m", "mxbench", "--config", str(config or self.conf_path),
                "--machine", self.machine] + list(args)

    def mxbench(self, *args, env=None, config=None):
        """python -m mxbench with this project's config (or `config`) and machine."""
        full_env = dict(os.environ, **(env or {}))
        return subprocess.run(self.mxbench_command(*args, config=config), cwd=str(ROOT),
                              env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=1800)

    def env_name(self, flavor):
        return project_model.load(str(self.conf_path)).environment(flavor)

    def result_file(self, release, flavor):
        return (self.results_dir / self.machine
                / ("%s-%s.json" % (self.tags[release][:8], self.env_name(flavor))))


@pytest.fixture(scope="session")
def asv_e2e(tmp_path_factory):
    project = AsvProject(tmp_path_factory.mktemp("asv-e2e"))
    proc = project.mxbench("run", *E2E_RELEASES, "--bench", E2E_BENCH, "--", *E2E_ATTRS)
    project.first_run = proc
    assert proc.returncode == 0, proc.stdout[-5000:]
    # Later tests add runs (find, other releases); tests about this run read a snapshot.
    project.first_results = project.base / "first-results"
    shutil.copytree(str(project.results_dir), str(project.first_results))
    return project


@pytest.fixture
def recorded_project(asv_e2e, tmp_path):
    """A project with the asv_e2e fixture's recorded results, sharing its environments."""
    from mxbench.core import results
    (tmp_path / "project").mkdir()
    copy = AsvProject(tmp_path / "project", env_dir=asv_e2e.env_dir)
    shutil.copytree(str(asv_e2e.first_results), str(copy.results_dir))
    copy.store = results.Store(copy.results_dir)
    return copy
