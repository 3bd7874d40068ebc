"""Opt-in: the smoke test (tests/test_smoke.py) under MXNet 2.0, in another interpreter.

The tool venv has mxnet 1.9.1; MXNet 2.0.0b1 (numpy interface on by default, renamed and
changed operators) lives in a venv of its own that `make test-mx20` builds (.venv-mx20:
Python 3.11, the tool venv's numpy/requests/pytest/packaging/tabulate/asv_runner pins, mxnet
2.0.0b1 installed with --no-deps; no asv: the commands run here need only MXNet) and then
runs this file with MXBENCH_MX20_PYTHON pointing at it:

    make test-mx20                                         # build the venv, run this
    MXBENCH_MX20_PYTHON=.venv-mx20/bin/python .venv/bin/python -m pytest -q tests/test_mx20.py
    MXBENCH_MX20_SMOKE_K='GroupNorm or Dense' ...          # a subset (pytest -k) of the smoke

Without MXBENCH_MX20_PYTHON it skips and says so: `make test` leaves it out, since the full
smoke on 2.0.0b1 (every point: MXBENCH_SMOKE_FULL=1) costs 2 to 12 minutes on a 2-core
machine, by its load (see docs/catalogue.md); CI runs `make test-mx20` beside it (.ci/run).
"""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

from env_matrix.matrix import load

PYTHON = os.environ.get("MXBENCH_MX20_PYTHON")
SELECT = os.environ.get("MXBENCH_MX20_SMOKE_K")
SMOKE_TIMEOUT = 1800


@pytest.fixture(scope="module")
def mx20_python():
    if not PYTHON:
        pytest.skip("opt-in: set MXBENCH_MX20_PYTHON to a Python with mxnet 2.0 "
                    "(`make test-mx20` builds .venv-mx20 and sets it)")
    if not os.path.isfile(PYTHON):
        pytest.fail("MXBENCH_MX20_PYTHON=%s: no such interpreter" % PYTHON, pytrace=False)
    return PYTHON


def test_the_interpreter_has_mxnet_2_and_the_benchmark_environments_numpy(mx20_python):
    """Pointing the variable at a 1.x venv would pass the smoke without testing 2.0. The smoke
    loads a benchmark through asv_runner, as asv does: a .venv-mx20 built before it was in
    the venv's pins lacks it (rm -rf .venv-mx20; make test-mx20 builds it again)."""
    proc = subprocess.run(
        [mx20_python, "-c", "import sys, asv_runner, mxnet, numpy; print(mxnet.__version__, "
                            "numpy.__version__, '%d.%d' % sys.version_info[:2], "
                            "mxnet.util.is_np_array())"],
        cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    mxnet_version, numpy_version, python, np_array = proc.stdout.split()[-4:]
    env = load().default_environment()
    assert mxnet_version.startswith("2."), proc.stdout
    assert (python, numpy_version) == (env.python, env.numpy), proc.stdout
    assert np_array == "True"  # what the Gluon benchmarks must handle


def test_smoke_on_mxnet_2(mx20_python):
    """Every catalogue entry and Gluon block, every CPU point (MXBENCH_SMOKE_FULL), strictly."""
    args = [mx20_python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_smoke.py"]
    if SELECT:
        args += ["-k", SELECT]
    proc = subprocess.run(args, cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=SMOKE_TIMEOUT,
                          env=dict(os.environ, MXBENCH_STRICT="1", MXBENCH_SMOKE_FULL="1"))
    assert proc.returncode == 0, proc.stdout[-6000:]


def test_every_registered_operator_of_mxnet_2_is_covered_or_excluded(mx20_python):
    """`python -m mxbench coverage --registry` on 2.0.0b1: every distinct forward operator,
    the numpy interface's included (profiled per entry), is covered or excluded with a reason,
    and at least 80 % are covered (627 of 678 when written)."""
    import json
    proc = subprocess.run([mx20_python, "-m", "mxbench", "coverage", "--registry", "--format",
                           "json"], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["mxnet"].startswith("2.")
    missing = [(name, row["family"]) for name, row in report["operators"].items()
               if row["status"] == "missing"]
    assert not missing, missing
    total = report["total"]
    assert total["covered"] >= 0.8 * total["operators"], total
