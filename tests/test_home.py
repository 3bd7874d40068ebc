"""The tests leave the user's home alone (tests/conftest.py): asv's machine records go to the
tests' own HOME, while pip's cache and the timing inputs' cache stay the user's, so nothing
is downloaded or drawn again. (Every recording of the suite runs under that HOME; the
session also fails if the user's ~/.asv-machine.json changed by its end.)"""
import json
import os
import subprocess
import sys
from pathlib import Path

from mxbench.asvrun import runner
from tests.conftest import (REAL_CACHE, REAL_HOME, REAL_MACHINE_FILE, ROOT, TEST_HOME,
                            machine_file_bytes)


def machines(path):
    return set(json.loads(path.read_text())) if path.exists() else set()


def test_the_tests_home_is_not_the_users():
    assert Path(os.path.expanduser("~")) == TEST_HOME
    assert TEST_HOME.resolve() != REAL_HOME.resolve()
    assert REAL_HOME.resolve() not in TEST_HOME.resolve().parents


def test_machine_records_go_to_the_tests_home_not_the_users(tmp_path):
    """The two ways a machine is recorded: mxbench's (every recording: ensure_machine) and
    asv's own `asv machine`, each in a process of its own as the commands run."""
    ours, asvs = "mxbench-home-test-%d" % os.getpid(), "mxbench-home-test-asv-%d" % os.getpid()
    before = machine_file_bytes()
    proc = subprocess.run(
        [sys.executable, "-c", "from mxbench.asvrun import runner; runner.ensure_machine(%r)"
         % ours], cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout
    proc = subprocess.run([runner.asv_executable(), "--config", str(ROOT / "asv.conf.json"),
                           "machine", "--yes", "--machine", asvs],
                          cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout
    assert {ours, asvs} <= machines(TEST_HOME / ".asv-machine.json")
    assert machine_file_bytes() == before
    assert not {ours, asvs} & machines(REAL_MACHINE_FILE)


def test_the_caches_stay_the_users():
    """pip's cache and the input cache, as a benchmark environment's process finds them."""
    proc = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout
    assert Path(proc.stdout.strip()) == REAL_CACHE / "pip"
    proc = subprocess.run(
        [sys.executable, "-c", "from benchmarks.harness import inputs; "
         "print(inputs.input_cache_dir())"], cwd=str(ROOT), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    found = Path(proc.stdout.strip().splitlines()[-1])
    assert REAL_HOME in found.parents and TEST_HOME not in found.parents
