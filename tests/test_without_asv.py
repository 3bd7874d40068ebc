"""The commands that need only MXNet (coverage, adhoc, dispatch, search's child) run where asv
is not installed: .venv-mx20 (`make test-mx20`) has MXNet 2.0 and no asv, and the command
line they share imports every command's module.

Here asv is made unimportable in a child process (a meta-path finder that refuses it), in
the tool venv, with its real MXNet 1.9.1.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Runs `python -m mxbench ARGS` with asv and asv_runner refused at import.
WITHOUT_ASV = """
import runpy, sys

class Refuse(object):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("asv", "asv_runner"):
            raise ModuleNotFoundError("No module named %r" % name, name=name)

sys.meta_path.insert(0, Refuse())
sys.argv = ["mxbench"] + sys.argv[1:]
runpy.run_module("mxbench", run_name="__main__", alter_sys=True)
"""


def without_asv(*args):
    return subprocess.run([sys.executable, "-c", WITHOUT_ASV] + list(args), cwd=str(ROOT),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300)


def test_the_blocker_refuses_asv():
    """Else the tests below would pass on a command line that imports asv."""
    proc = subprocess.run([sys.executable, "-c", WITHOUT_ASV.replace(
        "runpy.run_module", "import asv.util; runpy.run_module")], cwd=str(ROOT),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert proc.returncode == 1
    assert "ModuleNotFoundError: No module named 'asv'" in proc.stderr


@pytest.mark.parametrize("command", ["coverage", "adhoc", "dispatch", "search"])
def test_mxnet_only_commands_parse_without_asv(command):
    proc = without_asv(command, "--help")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage: python -m mxbench %s" % command in proc.stdout


def test_registry_coverage_runs_without_asv():
    """What `make test-mx20` runs on 2.0.0b1, here on the tool venv's 1.9.1."""
    pytest.importorskip("mxnet")
    proc = without_asv("coverage", "--registry", "--format", "json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["mxnet"] == __import__("mxnet").__version__
    assert report["total"]["missing"] == 0, report["total"]

