"""Every command in README.md's code blocks works as written on a fresh clone.

Each command line of the README's code blocks (tests/readme_blocks.py reads them) is in
COMMANDS, one of:

  AS_WRITTEN  run exactly as the README writes it; exit 0, or the exit code the README text
              around it states (and the output its `# -> ...` comment quotes);
  REDUCED     the same command with a small benchmark selection and quick asv settings,
              because the full run takes many minutes; the exact command is in the table;
  NOT_HERE    not runnable here, with the reason (no GPU, a run over every release, ...);
  SYNOPSIS    a synopsis with placeholders (RESULTS_DIR, json|csv|markdown, [--case C]), not a
              command; where one is given, a concrete example of it is run instead.

A README command that is not in the table, or a table entry the README no longer has, fails
test_every_readme_command_is_in_the_table: a new command cannot be skipped silently.

The commands run in a temporary copy of the repository (tracked files plus the working
tree's current content), never in the checkout: `python`/`asv` are the tool venv's, the
copy's `.venv` links to it (with its own `.installed` stamp, so `make` never rebuilds the
real one), `.asv/env` links to the checkout's `.asv/env` (one set of asv environments, no
wheel installed twice), and `python -m mxbench setup` writes the ladder and the machine
record. Two copies run side by side to keep the wall time down: one for the commands that
install wheels into the asv environments (one at a time: they share the environments),
one for all the others. Each command has a timeout; its output is in the assertion message.

MXBENCH_README=PATH tests another README (e.g. a scratch copy with a broken command);
MXBENCH_README_SUMMARY=FILE writes what ran, how, its exit code and seconds, as Markdown.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from readme_blocks import SHELL_LANGUAGES, other_fences, readme_commands

ROOT = Path(__file__).resolve().parent.parent
README = Path(os.environ.get("MXBENCH_README") or ROOT / "README.md")
VENV = ROOT / ".venv"
SHARED_ENV_DIR = ROOT / ".asv" / "env"

AS_WRITTEN, REDUCED, NOT_HERE, SYNOPSIS = "as written", "reduced", "not runnable here", "synopsis"
ENV_LANE, OTHER_LANE = "asv environments", "other"

# The reduced forms' benchmark selection: one small benchmark, plus whatever asv finds
# outside the bench_* modules (nothing, unless a helper named time_*/track_*/... leaked
# into the suite: the full run would run it, so the reduced one does too).
SELECTION = r"^bench_operators\.dot\.time_forward\(|^(?!bench_)"
QUICK = "-a rounds=1 -a repeat=2 -a warmup_time=0.02"


class Spec(object):
    def __init__(self, kind, run=None, exit=(0,), lane=OTHER_LANE, reason=None, check=None,
                 serve=False, timeout=420):
        self.kind, self.run, self.exit, self.lane = kind, run, tuple(exit), lane
        self.reason, self.check, self.serve, self.timeout = reason, check, serve, timeout


# --- output checks (result: Result; copy: the repository copy it ran in) -----------------------
def contains(*texts):
    def check(result, copy):
        missing = [t for t in texts if t not in result.output]
        assert not missing, "output lacks %r" % missing
    return check


def run_summary(result, copy):
    """mxbench run: the plan (what each release/flavor installs, or why nothing), and the
    summary of what it recorded with the next commands. Without --flavor (README: make bench)
    cpu-openblas has no 1.9.x wheel: the run says so and leaves it out."""
    assert "summary: result files of machine" in result.output
    assert "python -m mxbench publish && asv preview" in result.output  # the next commands
    if "--flavor" not in result.command:
        assert re.search(r"no build: mxnet-native has no 1\.9\.\d wheel", result.output)
        assert re.search(r"cpu-openblas: no build of .* not run", result.output)


def verdict_line(pattern):
    """A verdict line that names the exit code: (exit N) with N the command's exit code."""
    def check(result, copy):
        found = re.findall(pattern + r".*\(exit (\d)\)", result.output)
        assert found, "no verdict line matching %r" % pattern
        assert int(found[-1]) == result.code, "verdict says exit %s, command exited %d" % (
            found[-1], result.code)
    return check


def check_verdict(result, copy):
    """mxbench check: a verdict line with the exit code; records in .asv/check-results/."""
    verdict_line(r"check 1\.9\.0 -> 1\.9\.1, cpu-mkldnn, low-noise: ")(result, copy)
    records = copy / ".asv" / "check-results"
    assert records.is_dir() and any(records.rglob("*.json")), "nothing in .asv/check-results/"


def continuous_verdict(result, copy):
    """README: asv continuous exits 1 on a regression (and only then)."""
    decreased = "PERFORMANCE DECREASED" in result.output
    assert ("BENCHMARKS NOT SIGNIFICANTLY CHANGED" in result.output
            or "SOME BENCHMARKS HAVE CHANGED SIGNIFICANTLY" in result.output)
    assert decreased == (result.code == 1), "exit %d, PERFORMANCE DECREASED %s" % (
        result.code, "printed" if decreased else "not printed")


def find_verdict(result, copy):
    """mxbench find: the points that moved (exit 0) or no significant step (exit 1)."""
    if result.code == 1:
        assert "No significant" in result.output
    assert "releases (both ends included)" in result.output


def published_site(result, copy):
    """mxbench publish: html/ is a complete site that loads nothing from outside, its data
    in scripts (no JSON copy)."""
    site = copy / "html"
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "works offline" in result.output
    assert (site / "vendor").is_dir()
    assert (site / "mxbench" / "file-data" / "index.js").is_file()
    assert not (site / "graphs").exists() and not (site / "index.json").exists()
    assert not re.search(r"<script[^>]+src=\"https?://", index), "index.html loads a CDN script"


def files_written(*names):
    def check(result, copy):
        for name in names:
            path = copy / name
            assert path.is_file() and path.stat().st_size > 0, "%s was not written" % name
    return check


def json_rows(name):
    def check(result, copy):
        rows = json.loads((copy / name).read_text())
        assert rows and all(r["status"] == "ok" for r in rows), rows[:3]
    return check


# --- every command of the README's code blocks ------------------------------------------------
GPU = ("needs an NVIDIA GPU and a driver for CUDA 11.2: this machine and CI have none (on a "
       "CPU machine the CUDA wheel would be downloaded and installed only for every point to skip)")

COMMANDS = {
    # On a fresh machine
    "make bench": Spec(
        REDUCED, lane=ENV_LANE, check=run_summary,
        run="make bench RUN_ARGS=\"--bench '%s' -- %s\"" % (SELECTION, QUICK)),
    "make test": Spec(
        NOT_HERE, reason="the whole test suite, this test included (it would run itself); it is "
        "CI's command (.ci/run), so CI runs it as written"),
    # Flavors and releases
    "python -m mxbench matrix table": Spec(AS_WRITTEN, check=contains("no build", "mxnet==1.9.1")),
    "python -m mxbench matrix table --all-flavors": Spec(AS_WRITTEN, check=contains("gpu-cuda11.2")),
    "python -m mxbench matrix table --env py3.11": Spec(
        AS_WRITTEN, check=contains("incompatible", "environment py3.11")),
    "python -m mxbench matrix resolve 1.8.0.post0 cpu-openblas": Spec(AS_WRITTEN),
    # Running
    "python -m mxbench run": Spec(
        REDUCED, lane=ENV_LANE, check=run_summary,
        run="python -m mxbench run --bench '%s' -- %s" % (SELECTION, QUICK)),
    "python -m mxbench run 2.0.0b1 --flavor cpu-mkldnn": Spec(
        REDUCED, lane=ENV_LANE, check=run_summary,
        run="python -m mxbench run 2.0.0b1 --flavor cpu-mkldnn --bench '%s' -- %s"
        % (SELECTION, QUICK)),
    "python -m mxbench run 1.5.1.post0 1.6.0 --flavor cpu-openblas": Spec(
        REDUCED, lane=ENV_LANE, check=run_summary,
        run="python -m mxbench run 1.5.1.post0 1.6.0 --flavor cpu-openblas --bench '%s' -- %s"
        % (SELECTION, QUICK)),
    r"python -m mxbench run 1.9.1 --bench 'bench_operators\.dot\.' -- -a rounds=1": Spec(
        AS_WRITTEN, lane=ENV_LANE, check=run_summary),
    "python -m mxbench run 1.9.1 --flavor cpu-mkldnn --selection long": Spec(
        REDUCED, lane=ENV_LANE, check=run_summary,
        run="python -m mxbench run 1.9.1 --flavor cpu-mkldnn --selection long --bench '%s' -- %s"
        % (SELECTION, QUICK)),
    "python -m mxbench compare 1.8.0.post0 1.9.1 --only-changed": Spec(
        AS_WRITTEN, check=contains("cpu-mkldnn: results of machine")),
    "python -m mxbench compare 1.8.0.post0 1.9.1 --flavor cpu-mkldnn": Spec(
        AS_WRITTEN, check=contains("cpu-mkldnn: results of machine", "<1.9.1>")),
    # The plain asv commands
    "asv run 1.9.0..1.9.1": Spec(
        REDUCED, lane=ENV_LANE, run="asv run 1.9.0..1.9.1 -b '%s' %s" % (SELECTION, QUICK)),
    'asv run "1.8.0.post0^!"': Spec(
        REDUCED, lane=ENV_LANE, run="asv run \"1.8.0.post0^!\" -b '%s' %s" % (SELECTION, QUICK)),
    "asv run TAGS": Spec(
        NOT_HERE, reason="every release in both default environments: 62 install steps, 42 of "
        "them real wheel installs (10-20 s each here), before the benchmarks' own time"),
    "asv compare 1.8.0.post0 1.9.1": Spec(AS_WRITTEN, check=contains("<1.9.1>")),
    "asv compare 1.8.0.post0 1.9.1 -E "
    "virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn": Spec(
        AS_WRITTEN, check=contains("<1.9.1>")),
    "asv find 1.8.0..1.9.1 bench_overhead.Dispatch.time_add_1_element": Spec(
        AS_WRITTEN, lane=ENV_LANE, check=contains("Greatest regression found")),
    r"asv continuous 1.9.0 1.9.1 --factor 1.2 -b 'bench_operators\.dot\.'": Spec(
        REDUCED, lane=ENV_LANE, exit=(0, 1), check=continuous_verdict,
        run=r"asv continuous 1.9.0 1.9.1 --factor 1.2 -b '^bench_operators\.dot\.time_forward\(' "
        + QUICK),
    # Bisecting per flavor: exit 0 (moved) or 1 (no significant step) are verdicts; 2 is none.
    # Each probe with the quick settings (what follows -- goes to the probes' asv runs).
    "python -m mxbench find 1.6.0..1.9.1 bench_operators.Convolution.time_forward "
    "--flavor cpu-openblas": Spec(
        REDUCED, lane=ENV_LANE, exit=(0, 1), check=find_verdict,
        run="python -m mxbench find 1.6.0..1.9.1 bench_operators.Convolution.time_forward "
        "--flavor cpu-openblas -- " + QUICK),
    "python -m mxbench find 1.7.0.post2..1.9.1 bench_operators.LayerNorm.time_forward "
    "--flavor cpu-mkldnn --invert": Spec(
        REDUCED, lane=ENV_LANE, exit=(0, 1), check=find_verdict,
        run="python -m mxbench find 1.7.0.post2..1.9.1 bench_operators.LayerNorm.time_forward "
        "--flavor cpu-mkldnn --invert -- " + QUICK),
    # A check for a change: exit 1 on a regression
    "python -m mxbench check 1.9.0 1.9.1": Spec(
        REDUCED, lane=ENV_LANE, exit=(0, 1),
        check=check_verdict,
        run="python -m mxbench check 1.9.0 1.9.1 -b '%s' -- %s" % (SELECTION, QUICK)),
    r"python -m mxbench check 1.9.0 1.9.1 -b '^bench_operators\.(dot|Convolution|FullyConnected)\.'":
        Spec(REDUCED, lane=ENV_LANE, exit=(0, 1),
             check=check_verdict,
             run=r"python -m mxbench check 1.9.0 1.9.1 "
             r"-b '^bench_operators\.(dot|Convolution|FullyConnected)\.time_forward\(.small' -- "
             + QUICK),
    # Publishing the site
    "python -m mxbench publish": Spec(AS_WRITTEN, check=published_site),
    "python -m mxbench publish --config asv.gpu.conf.json": Spec(AS_WRITTEN, check=published_site),
    "python -m mxbench publish -- --no-pull": Spec(AS_WRITTEN, check=published_site),
    "asv preview": Spec(AS_WRITTEN, serve=True),
    # GPU flavors
    "asv --config asv.gpu.conf.json run 1.9.1^! -E "
    "virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORgpu-cuda11.2": Spec(NOT_HERE, reason=GPU),
    "python -m mxbench --config asv.gpu.conf.json run 1.9.1 --flavor gpu-cuda11.2": Spec(
        NOT_HERE, reason=GPU),
    "make test-gpu-libs": Spec(
        NOT_HERE, reason="installs four CUDA builds with their CUDA runtime (about 4 GB of "
        "wheels, 3-4 GB venvs): about 15 minutes; opt-in, like make test-mx20"),
    # Recording the history
    "make history": Spec(
        NOT_HERE, reason="the newest release of every minor line in both CPU flavors (17 "
        "wheel installs), then make history-py37 (a Python 3.7 tool venv from PyPI and a Python "
        "3.7 asv environment): tens of minutes even with one benchmark"),
    "python -m mxbench changes lineage mxnet": Spec(
        AS_WRITTEN, check=contains("| 1.6.0 | 1.7.0.post2 | — | flavor cpu-openblas → cpu-mkldnn")),
    "python -m mxbench changes between 1.2.1.post1:cpu-openblas 1.3.1:cpu-openblas": Spec(
        AS_WRITTEN, check=contains("Python 3.7 → 3.11, numpy 1.21.6 → 1.23.5")),
    "python -m mxbench changes releases -o generated-reports/CHANGES.md --chart generated-reports/changes.png": Spec(
        AS_WRITTEN, check=files_written("generated-reports/CHANGES.md", "generated-reports/changes.png")),
    "python -m mxbench confirm 1.9.0 1.9.1 --list": Spec(
        AS_WRITTEN, check=contains("1.9.0 -> 1.9.1, cpu-mkldnn: ", "not yet confirmed")),
    # Exporting results and ad-hoc runs
    "python -m mxbench export RESULTS_DIR --format json|csv|markdown [-o FILE]": Spec(
        SYNOPSIS, check=files_written("export.md"),
        run="python -m mxbench export results --format markdown -o export.md "
        "--benchmark 'dot' --env mkldnn --repo ladder --ok-only"),
    "[--benchmark REGEX] [--env REGEX] [--repo ladder] [--ok-only]": Spec(
        SYNOPSIS, reason="the second line of the mxbench export synopsis (its example is above)"),
    "python -m mxbench adhoc --op softmax --shape 32,1000 --dtype float16 --ctx cpu --runs 50 "
    "--warmup 5 --kwargs '{\"axis\": -1}' --format markdown": Spec(
        AS_WRITTEN, check=contains("| softmax", "1 rows: 1 ok")),
    "python -m mxbench adhoc --category reduction [--case small] [--dtype float32]": Spec(
        SYNOPSIS, check=contains("| sum "),
        run="python -m mxbench adhoc --category reduction --case small --dtype float32"),
    "python -m mxbench adhoc --all --runs 10 --format json -o all.json": Spec(
        REDUCED, check=json_rows("all.json"),
        run="python -m mxbench adhoc --all --runs 10 --format json -o all.json "
        "--case tall --dtype float32"),
    "python -m mxbench adhoc --op dot --shape 256,512 --shape 512,128 --profile": Spec(
        AS_WRITTEN, check=contains("| dot ", "kernel")),
    "python -m mxbench adhoc --list": Spec(AS_WRITTEN, check=contains("softmax", "reduction")),
}

# The order the asv-environment lane runs in (the others run in README order): releases that
# follow each other share the wheel already installed (asv reinstalls only on a change), which
# saves a wheel swap (10-20 s) each time. Commands not listed run after these.
ENV_LANE_ORDER = [
    "make bench",                                          # 1.9.0, 1.9.1
    r"python -m mxbench run 1.9.1 --bench 'bench_operators\.dot\.' -- -a rounds=1",  # 1.9.1
    "asv run 1.9.0..1.9.1",                                # 1.9.1
    r"asv continuous 1.9.0 1.9.1 --factor 1.2 -b 'bench_operators\.dot\.'",  # 1.9.1, 1.9.0
    "python -m mxbench run",                               # 1.9.0, 1.9.1
    "python -m mxbench check 1.9.0 1.9.1",                 # 1.9.1, 1.9.0
    'asv run "1.8.0.post0^!"',                             # 1.8.0.post0
    "asv find 1.8.0..1.9.1 bench_overhead.Dispatch.time_add_1_element",  # 1.8.0.post0..1.9.1
    r"python -m mxbench check 1.9.0 1.9.1 -b '^bench_operators\.(dot|Convolution|FullyConnected)\.'",
    "python -m mxbench find 1.6.0..1.9.1 bench_operators.Convolution.time_forward "
    "--flavor cpu-openblas",
    "python -m mxbench find 1.7.0.post2..1.9.1 bench_operators.LayerNorm.time_forward "
    "--flavor cpu-mkldnn --invert",
    "python -m mxbench run 1.5.1.post0 1.6.0 --flavor cpu-openblas",
    "python -m mxbench run 2.0.0b1 --flavor cpu-mkldnn",   # 2.0.0b1 (pre-release)
]

# A synopsis has placeholders: an option in brackets, alternatives (json|csv), a NAME_LIKE_THIS
# or FILE/REGEX/DIR; quoted text does not count.
PLACEHOLDER = re.compile(r"(^|\s)\[|\w\|\w|\b[A-Z]+_[A-Z_]+\b|\b(FILE|REGEX|DIR|PATH)\b")


def unquoted(text):
    return re.sub(r"'[^']*'|\"[^\"]*\"", "''", text)


def readme_text():
    return README.read_text(encoding="utf-8")


def listed_commands():
    return readme_commands(readme_text())


def command_id(command):
    return "L%d:%s" % (command.line, command.text[:70])


# --- the tables stay in step with the README --------------------------------------------------
def test_readme_has_commands():
    # Not vacuous: the blocks were found, fenced and indented, with prompts and continuations.
    texts = [c.text for c in listed_commands()]
    assert "make bench" in texts and "python -m mxbench publish" in texts
    assert "python -m mxbench check 1.9.0 1.9.1" in texts  # `$ ` prompt, indented block
    assert any(t.startswith("python -m mxbench adhoc --op softmax") and t.endswith("markdown")
               for t in texts)  # a `\` continuation


def test_every_readme_command_is_in_the_table():
    in_readme = [c.text for c in listed_commands()]
    missing = ["README line %d: %s" % (c.line, c.text) for c in listed_commands()
               if c.text not in COMMANDS]
    stale = [text for text in COMMANDS if text not in in_readme]
    assert not missing and not stale, (
        "README commands not in COMMANDS (add each: as written, reduced, not runnable here "
        "with the reason, or a synopsis):\n  %s\nCOMMANDS entries the README no longer has:\n  %s"
        % ("\n  ".join(missing) or "-", "\n  ".join(stale) or "-"))


def test_no_code_block_is_left_unread():
    assert other_fences(readme_text()) == [], (
        "fenced blocks in a language the command reader skips (it reads %s): list their "
        "commands or mark the block as shell" % ", ".join(repr(s) for s in SHELL_LANGUAGES))


def test_synopsis_lines_are_the_lines_with_placeholders():
    wrong = []
    for command in listed_commands():
        spec = COMMANDS.get(command.text)
        if spec is None:
            continue
        has_placeholder = bool(PLACEHOLDER.search(unquoted(command.text)))
        if has_placeholder != (spec.kind == SYNOPSIS):
            wrong.append("line %d (%s, %s): %s" % (
                command.line, spec.kind, "placeholders" if has_placeholder else "no placeholder",
                command.text))
    assert not wrong, "synopsis <=> placeholders:\n" + "\n".join(wrong)


def test_table_entries_are_complete():
    for text, spec in COMMANDS.items():
        assert spec.kind in (AS_WRITTEN, REDUCED, NOT_HERE, SYNOPSIS), text
        if spec.kind == REDUCED:
            assert spec.run and spec.run != text, text
            # the same command, narrowed: it starts as the README's does
            words = min(3, len(text.split()))
            assert spec.run.split()[:words] == text.split()[:words], (text, spec.run)
        if spec.kind == NOT_HERE:
            assert spec.reason, text
        if spec.kind == SYNOPSIS:
            assert spec.run or spec.reason, text
    for text in ENV_LANE_ORDER:
        assert text in COMMANDS and COMMANDS[text].lane == ENV_LANE, text


# --- running them ------------------------------------------------------------------------------
class Result(object):
    def __init__(self, command, code, output, seconds, copy, note=""):
        self.command, self.code, self.output = command, code, output
        self.seconds, self.copy, self.note = seconds, copy, note


def command_env():
    env = dict(os.environ)
    for key in ("PYTHONPATH", "VIRTUAL_ENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL",
                "MAKEOVERRIDES", "PYTEST_CURRENT_TEST", "PYTEST_ADDOPTS"):
        env.pop(key, None)
    env["PATH"] = str(VENV / "bin") + os.pathsep + env.get("PATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def make_copy(dest):
    """The checkout's tracked files plus the working tree's current content (untracked files
    that are not ignored too), with the tool venv, the shared asv environments and the site's
    npm packages linked or copied in; then `mxbench setup` (ladder, machine record)."""
    listing = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=str(ROOT),
                             stdout=subprocess.PIPE, check=True).stdout.decode()
    for name in filter(None, listing.split("\0")):
        source = ROOT / name
        if not os.path.lexists(str(source)) or name.split("/")[0] in (".venv", ".asv"):
            continue  # deleted in the working tree, or linked below (a .venv symlink is
            # not matched by .gitignore's `.venv/`)
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(str(source), str(target), follow_symlinks=False)
    # .venv: the tool venv's entries linked one by one, with the copy's own stamp, newer than
    # the copy's requirements.txt: `make` sees it up to date and never rebuilds the real one.
    (dest / ".venv").mkdir()
    for entry in VENV.iterdir():
        if entry.name != ".installed":
            (dest / ".venv" / entry.name).symlink_to(entry)
    (dest / ".venv" / ".installed").touch()
    SHARED_ENV_DIR.mkdir(parents=True, exist_ok=True)
    (dest / ".asv").mkdir()
    (dest / ".asv" / "env").symlink_to(SHARED_ENV_DIR, target_is_directory=True)
    modules = ROOT / "site-sources" / "node_modules"
    if modules.is_dir():  # an ignored build output, like .venv (else publish runs npm ci)
        shutil.copytree(str(modules), str(dest / "site-sources" / "node_modules"), symlinks=True)
    proc = subprocess.run(["python", "-m", "mxbench", "setup"], cwd=str(dest), env=command_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout


class Lane(object):
    """Runs its commands one after the other, in README order, in its own copy."""

    def __init__(self, name, copy, jobs):
        self.name, self.copy, self.jobs = name, copy, jobs  # jobs: [(key, command, spec)]
        self.results = {}
        self.done = {key: threading.Event() for key, _, _ in jobs}
        self.current = None
        self.stopped = False
        self.thread = threading.Thread(target=self._work, name="readme-" + name, daemon=True)

    def start(self):
        self.thread.start()

    def wait(self, key):
        self.done[key].wait()
        return self.results[key]

    def _work(self):
        for key, command, spec in self.jobs:
            try:
                if self.stopped:
                    result = Result(command, None, "not run: the session ended", 0, self.copy)
                elif spec.serve:
                    result = self._serve(command, spec)
                else:
                    result = self._run(command, spec)
            except Exception as exc:  # the test reports it; the lane goes on
                result = Result(command, None, "runner error: %r" % exc, 0, self.copy)
            self.results[key] = result
            self.done[key].set()

    def _popen(self, command):
        proc = subprocess.Popen(["bash", "-c", command], cwd=str(self.copy), env=command_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True, errors="replace",
                                start_new_session=True)
        self.current = proc
        return proc

    def stop_current(self, sig=signal.SIGTERM):
        proc = self.current
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass

    def _finish(self, proc):
        """Stop a command's process group (it was started in a session of its own)."""
        for sig, grace in ((signal.SIGINT, 15), (signal.SIGTERM, 10), (signal.SIGKILL, 10)):
            if proc.poll() is not None:
                break
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                continue

    def _run(self, command, spec):
        start = time.time()
        proc = self._popen(command)
        note = ""
        try:
            output, _ = proc.communicate(timeout=spec.timeout)
        except subprocess.TimeoutExpired:
            self._finish(proc)
            output, _ = proc.communicate()
            note = "TIMEOUT after %d s" % spec.timeout
        self.current = None
        return Result(command, None if note else proc.returncode, output,
                      time.time() - start, self.copy, note)

    def _serve(self, command, spec):
        """A command that ends by serving the site (asv preview): wait for its URL, fetch
        the page over HTTP on 127.0.0.1, then stop it. code 0: the page answered."""
        start = time.time()
        proc = self._popen(command)
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")),
                                  daemon=True)
        reader.start()
        url, page, note = None, None, ""
        while time.time() - start < spec.timeout and proc.poll() is None:
            found = re.search(r"Serving at (http://\S+)", "".join(lines))
            if found:
                url = found.group(1).replace("://localhost", "://127.0.0.1")
                break
            time.sleep(0.5)
        if url:
            try:
                with urllib.request.urlopen(url, timeout=30) as response:
                    page = (response.status, response.read().decode("utf-8", "replace"))
            except Exception as exc:
                note = "GET %s failed: %r" % (url, exc)
        elif proc.poll() is None:
            note = "TIMEOUT after %d s: no 'Serving at' line" % spec.timeout
        exited = proc.poll()
        self._finish(proc)
        reader.join(timeout=10)
        self.current = None
        output = "".join(lines)
        if page:
            ok = page[0] == 200 and "<title>airspeed velocity" in page[1]
            note = note or "GET %s: HTTP %d%s" % (url, page[0], "" if ok else ", not asv's page")
            code = 0 if ok else 1
        else:
            code = exited if exited not in (None, 0) else 1
            note = note or "exited (%s) without serving" % exited
        return Result(command, code, output, time.time() - start, self.copy, note)


def selected_commands(session):
    keys = []
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if getattr(item, "originalname", None) == "test_readme_command" and callspec:
            keys.append(callspec.params["command"])
    return keys


@pytest.fixture(scope="module")
def readme_runs(request, tmp_path_factory):
    """Starts both lanes over the README commands this session selected."""
    if not (ROOT / ".git").exists() or not (VENV / "bin" / "python").exists():
        pytest.skip("needs a git checkout with the tool venv .venv (make setup)")
    chosen = selected_commands(request.session)
    jobs = {ENV_LANE: [], OTHER_LANE: []}
    for command in chosen:
        spec = COMMANDS.get(command.text)
        if spec is None or spec.kind == NOT_HERE or (spec.kind == SYNOPSIS and not spec.run):
            continue
        run = spec.run if spec.kind in (REDUCED, SYNOPSIS) else command.text
        jobs[spec.lane].append((command, run, spec))
    order = {text: i for i, text in enumerate(ENV_LANE_ORDER)}
    jobs[ENV_LANE].sort(key=lambda job: order.get(job[0].text, len(order)))
    lanes = {}
    started = time.time()
    for name, lane_jobs in jobs.items():
        if lane_jobs:
            copy = tmp_path_factory.mktemp("readme-" + name.split()[0])
            make_copy(copy)
            lanes[name] = Lane(name, copy, lane_jobs)
    for lane in lanes.values():
        lane.start()
    yield lanes
    for lane in lanes.values():
        lane.stopped = True
        lane.stop_current()
        lane.thread.join(timeout=60)
    summary = os.environ.get("MXBENCH_README_SUMMARY")
    if summary:
        write_summary(Path(summary), lanes, time.time() - started)


def write_summary(path, lanes, seconds):
    rows = ["| line | README command | how | ran | exit | s |", "|---|---|---|---|---|---|"]
    results = {}
    for lane in lanes.values():
        results.update(lane.results)
    for command in listed_commands():
        spec = COMMANDS.get(command.text)
        result = results.get(command)
        kind = spec.kind if spec else "NOT IN TABLE"
        ran = result.command if result else (spec.reason if spec and spec.reason else "-")
        rows.append("| %d | `%s` | %s | %s | %s | %s |" % (
            command.line, command.text.replace("|", "\\|"), kind, ran.replace("|", "\\|"),
            (result.note or result.code) if result else "-",
            "%.0f" % result.seconds if result else "-"))
    rows.append("\nwall time of the runs: %.0f s" % seconds)
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


@pytest.mark.parametrize("command", listed_commands(), ids=command_id)
def test_readme_command(command, readme_runs):
    spec = COMMANDS.get(command.text)
    assert spec is not None, (
        "README line %d is not in COMMANDS: %s" % (command.line, command.text))
    if spec.kind == NOT_HERE:
        pytest.skip("README line %d, not runnable here: %s" % (command.line, spec.reason))
    if spec.kind == SYNOPSIS and not spec.run:
        pytest.skip("README line %d is a synopsis: %s" % (command.line, spec.reason))
    result = readme_runs[spec.lane].wait(command)
    where = "README line %d: %s\n%s: %s\nin %s (%.0f s)%s\n--- output (last 6000 characters) ---\n%s" % (
        command.line, command.text, spec.kind, result.command, result.copy, result.seconds,
        "; " + result.note if result.note else "", result.output[-6000:])
    assert result.code in spec.exit, "exit %s, expected %s\n%s" % (
        result.code, " or ".join(map(str, spec.exit)), where)
    if command.output is not None and spec.kind == AS_WRITTEN:
        # the README quotes its output: `# -> X`
        assert command.output in [line.strip() for line in result.output.splitlines()], (
            "the README says the output is %r\n%s" % (command.output, where))
    if spec.check:
        try:
            spec.check(result, result.copy)
        except AssertionError as exc:
            raise AssertionError("%s\n%s" % (exc, where))
