"""Children live and die with the command (issue 44): a `kill -9` of mxbench used to leave asv
benchmarking on (its forkserver and benchmark processes too), the search child searching and
asv publish publishing; the recording locks died with mxbench while asv wrote on, a confirm's
rounds from a run that never finished became a verdict, and a hash file stayed in /tmp.

Real commands (`python -m mxbench ...`), real asv and wheels (the asv_e2e fixture's
environments), real SIGKILLs. Every process a command starts carries a mark in its
environment (asv passes its environment on to everything it starts), so whatever survives the
kill is found in /proc, wherever it was reparented."""
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import weakref
from pathlib import Path

import pytest

from mxbench.asvrun import runner
from mxbench.core import results
from tests.conftest import ROOT, AsvProject

FLAVOR = "cpu-mkldnn"
BASE, HEAD = "1.8.0.post0", "1.9.1"
ADD = "bench_overhead.Dispatch.time_add_1_element"
ADD_RE = r"^%s\(" % ADD.replace(".", r"\.")
MARK = "MXBENCH_CHILDREN_TEST"
STARTED = 300  # seconds a command gets to reach the moment it is killed at (installs included)
ENDED = 20     # seconds everything it started gets to be gone after the kill


# --- processes in /proc ------------------------------------------------------------------------
def _read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def marked(mark):
    """{pid: command line} of the live (not zombie) processes carrying this mark."""
    needle = ("%s=%s" % (MARK, mark)).encode()
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        stat = _read("/proc/%s/stat" % name)
        if not stat or stat[stat.rfind(b")") + 2:][:1] in (b"Z", b"X"):
            continue
        if needle in _read("/proc/%s/environ" % name).split(b"\0"):
            found[int(name)] = _read("/proc/%s/cmdline" % name).replace(b"\0", b" ").decode(
                "utf-8", "replace")
    return found


def lock_is_free(path):
    fd = os.open(str(path), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)  # closing releases it again
    return True


class Command(object):
    """A real `python -m mxbench ...` in a session of its own, marked, with its own TMPDIR."""

    def __init__(self, argv, tmp_path):
        self.mark = uuid.uuid4().hex
        # short: asv's forkserver socket lives in it (a Unix socket's path: 107 bytes at most)
        self.tmp = Path(tempfile.mkdtemp(prefix="cmd-"))
        weakref.finalize(self, shutil.rmtree, str(self.tmp), True)
        self.log = tmp_path / "command.log"
        env = dict(os.environ, **{MARK: self.mark, "TMPDIR": str(self.tmp)})
        with open(str(self.log), "w") as out:
            self.proc = subprocess.Popen(argv, cwd=str(ROOT), env=env, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)

    def output(self):
        return self.log.read_text()[-3000:]

    def wait_for(self, what, ready, timeout=STARTED):
        """Poll until ready() (the command still running), or fail."""
        deadline = time.time() + timeout
        while not ready():
            assert self.proc.poll() is None, "ended (exit %s) before %s:\n%s" % (
                self.proc.returncode, what, self.output())
            assert time.time() < deadline, "no %s within %d s:\n%s" % (what, timeout,
                                                                       self.output())
            time.sleep(0.05)

    def children(self):
        return dict((pid, cmd) for pid, cmd in marked(self.mark).items()
                    if pid != self.proc.pid)

    def kill(self, group=False, locks=()):
        """SIGKILL mxbench (or its whole process group); everything it started must end
        within ENDED seconds, and no lock may be free while any of it runs."""
        before = self.children()
        assert before, "nothing was started before the kill"
        (os.killpg if group else os.kill)(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        deadline = time.time() + ENDED
        while True:
            free = [str(lock) for lock in locks if lock_is_free(lock)]
            alive = marked(self.mark)
            if not alive:
                break
            assert not free, "lock %s free while these run on: %s" % (free, alive)
            assert time.time() < deadline, (
                "%d s after the kill these still run: %s (before it: %s)"
                % (ENDED, alive, before))
            time.sleep(0.1)
        # a process past the point where /proc shows its environment may still hold its files
        # for a moment (the kernel drops the memory before the open files): poll, not a glance
        while True:
            held = [str(lock) for lock in locks if not lock_is_free(lock)]
            if not held:
                break
            assert time.time() < deadline, (
                "lock %s still held %d s after the kill, nothing of the command running"
                % (held, ENDED))
            time.sleep(0.1)
        # no commits' hash file for asv left behind (a killed publish's folder there is the
        # next publish's to remove, test_publish.py)
        left = [p.name for p in self.tmp.rglob("*.hashes")]
        assert not left, "left in TMPDIR: %s" % left


def command_lines(command, *words):
    return [cmd for cmd in command.children().values() if all(w in cmd for w in words)]


# --- run ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", [False, True], ids=["mxbench", "its process group"])
def test_a_killed_run_leaves_no_process_running_and_no_lock_held(recorded_project, tmp_path,
                                                                  group):
    """SIGKILL of `mxbench run` (alone, or with its process group, as a CI job's end does)
    while asv's forkserver benchmarks: asv, its forkserver and benchmark processes (in
    process groups of their own) end; the checkout's and environment's locks stay held until
    they have; the commits' hash file is nowhere."""
    project = recorded_project
    # long enough samples that the kill finds the benchmark running
    command = Command(project.mxbench_command(
        "run", HEAD, "--flavor", FLAVOR, "--rerun", "--bench", ADD_RE, "--",
        "-a", "rounds=1", "-a", "repeat=500", "-a", "warmup_time=4"), tmp_path)
    command.wait_for("asv forkserver", lambda: command_lines(command, "run_server"))
    time.sleep(1)
    from mxbench.core.project import load as load_project
    locks = [path for path, _ in runner.lock_paths(load_project(str(project.conf_path)))]
    command.kill(group=group, locks=locks)
    # the next run takes the checkout over and records (what the killed one staged is merged)
    proc = project.mxbench("run", HEAD, "--flavor", FLAVOR, "--rerun", "--bench", ADD_RE,
                           "--", "-a", "rounds=1", "-a", "repeat=1", "-a", "warmup_time=0.01")
    assert proc.returncode == 0, proc.stdout[-3000:]


# --- confirm -----------------------------------------------------------------------------------
def plant_candidate(project):
    """HEAD's history point of ADD made 3x BASE's, without samples or statistics (so asv's
    rule goes by the ratio): a candidate for confirm between BASE and HEAD."""
    base = results.read_result_file(str(project.result_file(BASE, FLAVOR)))
    path = project.result_file(HEAD, FLAVOR)
    data = results.read_result_file(str(path))
    columns = data["result_columns"]
    values = base["results"][ADD][base["result_columns"].index("result")]
    row = data["results"][ADD]
    row[columns.index("result")] = [3 * v if results.measured(v) else v for v in values]
    for i, column in enumerate(columns):
        if column.startswith("stats_") or column == "samples":
            row[i] = None
    results.write_json_atomic(str(path), data, compact=True)


def verdict_line(project):
    listed = project.mxbench("confirm", BASE, HEAD, "--flavor", FLAVOR, "--bench", ADD_RE,
                             "--list")
    assert listed.returncode == 0, listed.stdout[-3000:]
    lines = [l for l in listed.stdout.splitlines() if l.startswith(ADD)]
    assert len(lines) == 1, listed.stdout[-3000:]
    return lines[0]


def test_a_killed_confirm_leaves_no_process_and_its_rounds_never_become_a_verdict(
        recorded_project, tmp_path):
    """SIGKILL of `mxbench confirm` once both releases have a round staged: nothing of it
    runs on, and neither what it staged (recovered as the next confirm does) nor anything
    merged while it ran gives the candidate a verdict: it is still not yet confirmed."""
    project = recorded_project
    plant_candidate(project)
    assert "not yet confirmed" in verdict_line(project)
    command = Command(project.mxbench_command(
        "confirm", BASE, HEAD, "--flavor", FLAVOR, "--bench", ADD_RE, "--rounds", "2"),
        tmp_path)
    confirmations = project.base / "results-confirmations"
    staging = confirmations / ".asv" / "staging"
    prefixes = [project.tags[r][:8] for r in (BASE, HEAD)]

    def both_staged():
        staged = [p.name for p in staging.glob("run-*/results/%s/*.json" % project.machine)]
        return all(any(n.startswith(p) for n in staged) for p in prefixes)
    command.wait_for("a round of both releases staged", both_staged)
    time.sleep(1.5)  # longer than a merge interval: what a run merges as it goes is merged
    from mxbench.core.project import load as load_project
    target = load_project(str(project.conf_path), str(confirmations / (
        "%s..%s" % (BASE, HEAD))))
    try:
        command.kill(locks=[path for path, _ in runner.lock_paths(target)])
        survivors = None
    except AssertionError as exc:  # the verdict is checked all the same
        survivors = exc
    # what the next confirm does first: recover what killed runs left
    runner.recover_interrupted_runs(target, project.machine)
    line = verdict_line(project)
    assert "not yet confirmed" in line, (line, survivors)
    if survivors is not None:
        raise survivors
    assert not list(staging.glob("run-*")), "the killed confirm's staging is still there"


def dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def left_behind(project, machine, commit, measured, finished):
    """The staging of a killed whole run (a confirmation) holding a measured file: asv had
    finished, or not."""
    staging = runner.Staging(project, machine)
    staging.dir = os.path.join(staging.root, "run-%d" % dead_pid())
    staging.results_dir = os.path.join(staging.dir, "results")
    staging.config = os.path.join(staging.dir, "asv.conf.json")
    staging.prepare([commit], whole_run=True)
    assert open(staging.hashfile).read().split() == [commit]
    shutil.copy(str(measured), os.path.join(staging.results_dir, machine, measured.name))
    if finished:
        staging.finish()
    return staging.dir


def test_only_a_finished_whole_runs_staging_is_merged(tmp_path, capsys):
    """A confirmation's staging left behind is merged only if asv had finished: the rounds of
    a run that did not are removed unmerged, and the next run says so."""
    from pathlib import Path
    from tests.test_reliability import staged_project
    project, recorded = staged_project(tmp_path)
    machine = os.path.basename(os.path.dirname(recorded))
    commit = results.read_result_file(recorded)["commit_hash"]
    measured = tmp_path / Path(recorded).name
    shutil.move(recorded, str(measured))  # the store has none yet; the staging holds it
    for finished in (False, True):
        folder = left_behind(project, machine, commit, measured, finished)
        staging = runner.recover_interrupted_runs(project, machine)
        out = capsys.readouterr()[0]
        assert not os.path.exists(folder)
        if finished:
            assert os.path.exists(recorded) and "recovered 1 result file(s)" in out, out
            assert staging.discarded == 0
        else:
            assert not os.path.exists(recorded), "an unfinished run's rounds were merged"
            assert staging.discarded == 1 and "discarded the rounds of 1 confirmation run" \
                in out, out


# --- search ------------------------------------------------------------------------------------
def test_a_killed_search_leaves_no_child_searching(tmp_path):
    """SIGKILL of `mxbench search` while its child searches: the child ends with it, instead
    of searching on to the end of its budget."""
    pytest.importorskip("mxnet")
    cliffs = tmp_path / "cliffs.json"
    shutil.copy(str(ROOT / "benchmarks" / "catalogue" / "cliffs.json"), str(cliffs))
    command = Command([sys.executable, "-m", "mxbench", "search", "softmax", "--budget", "120",
                       "--out", str(tmp_path / "out"), "--cliffs-file", str(cliffs),
                       "--again"], tmp_path)
    command.wait_for("the search child", lambda: command_lines(command, "--command"))
    time.sleep(2)  # into its search
    command.kill()


# --- publish -----------------------------------------------------------------------------------
def hold_output(pid):
    """Read (and drop) what process `pid` writes to its stdout, from a pipe end of our own:
    its writes no longer fail once mxbench, the pipe's reader, is gone. Returns a closer."""
    fd = os.open("/proc/%d/fd/1" % pid, os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(fd, True)

    def drain():
        try:
            while os.read(fd, 65536):
                pass
        except OSError:
            pass
    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    return lambda: os.close(fd)


def test_a_killed_publish_leaves_no_asv_publish_running(tmp_path):
    """SIGKILL of `mxbench publish` while asv publish builds the site from the history (a
    minute or more of work): asv publish ends with it. The test reads asv's output too, so
    that asv cannot end by chance (its next write into the pipe of a dead mxbench failing):
    something must end it."""
    (tmp_path / "project").mkdir()
    project = AsvProject(tmp_path / "project")
    shutil.copytree(str(ROOT / "results"), str(project.results_dir))
    command = Command([sys.executable, "-m", "mxbench", "--config", str(project.conf_path),
                       "publish"], tmp_path)

    def asv_publish():  # asv itself (not mxbench's fork before it execs, nor the guard)
        return [pid for pid, cmd in command.children().items()
                if " %s --config " % runner.ASV_PUBLISH in cmd and " publish" in cmd
                and "guard.py" not in cmd]
    command.wait_for("asv publish", asv_publish)
    time.sleep(1)
    close = hold_output(asv_publish()[0])
    try:
        command.kill()
    finally:
        close()


# --- the guard on a tree like asv's, many times -----------------------------------------------
TREE = """
import os, subprocess, sys, time
# like asv: children in process groups of their own, each with children of its own
for _ in range(3):
    subprocess.Popen([sys.executable, "-c", "import subprocess, time\\n"
                      "for _ in range(2): subprocess.Popen(['sleep', '300'])\\n"
                      "time.sleep(300)"], preexec_fn=lambda: os.setpgid(0, 0))
time.sleep(300)
"""
PARENT = """
import sys, time
sys.path.insert(0, %r)
from mxbench.asvrun import guard
child = guard.Guarded([sys.executable, "-c", %r])
time.sleep(300)
"""


@pytest.mark.parametrize("attempt", range(4))
def test_a_killed_parent_leaves_nothing_of_a_tree_like_asvs(tmp_path, attempt):
    """The guard under a parent killed with SIGKILL at once, as the tree starts (processes
    being reparented as the guard scans) or once it stands: nothing of the tree survives.
    (The e2e tests above once saw asv's forkserver survive: a scan of /proc that read it
    before its parent, on a machine whose process ids had wrapped around, missed it.)"""
    command = Command([sys.executable, "-c", PARENT % (str(ROOT), TREE)], tmp_path)
    if attempt % 2:
        command.wait_for("the whole tree", lambda: len(command.children()) >= 1 + 1 + 3 * 3)
    else:
        command.wait_for("the tree's first processes", lambda: len(command.children()) >= 3)
    command.kill()
