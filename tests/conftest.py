"""Shared fixtures. `asv_e2e` runs the real asv, with real MXNet wheels, once per session
(make test runs the suite on two cores with pytest-xdist, grouped below: the first worker to
need it runs it, and each worker works on a copy of its environments and results).

The tests run with a HOME of their own (a temporary folder, one per worker): asv records
machines in ~/.asv-machine.json, and the user's file is not the tests' to edit. The caches
stay the user's (set explicitly, so nothing is downloaded again): pip's, the timing inputs'
(~/.cache/mxbench), npm's, and the CI rehearsal's workspace (REAL_CACHE below). The real
machine file's bytes are read when the session starts and checked when it ends: a change
fails the session (pytest_sessionfinish) and tests/test_home.py tests the isolation itself.
"""
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# --- a home of the tests' own -----------------------------------------------------------------
# The controller (or a plain pytest) names the real home and makes the test home; xdist's
# workers inherit both through the environment and each takes a subfolder of its own.
REAL_HOME = Path(os.environ.setdefault("MXBENCH_TESTS_REAL_HOME", os.path.expanduser("~")))
REAL_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or REAL_HOME / ".cache")
REAL_MACHINE_FILE = REAL_HOME / ".asv-machine.json"


# --- temporary files in memory -----------------------------------------------------------------
# The tests write and delete hundreds of thousands of small files (repository copies, asv
# environments, published sites of 17,000 JSON files, asv's staging). On this machine's disk a
# file costs 0.5-1.5 ms to write or delete, and more while the other worker installs a wheel;
# in /dev/shm (a tmpfs) 0.02 ms. So the session's temporary folders (pytest's tmp_path, and
# TMPDIR for every process it starts) go there when it has room for a whole session (a few
# GB: repository copies, published sites). MXBENCH_TESTS_TMPDIR=DIR names another;
# MXBENCH_TESTS_TMPDIR= (empty) keeps the system's.
# The asv environments stay on disk (ENV_ROOT: the system's temporary folder), as a user's
# are: a benchmark's peak memory counts the pages of libmxnet.so it maps, and a file in a tmpfs
# is counted otherwise (1.6.0 -> 1.7.0.post1's import memory regression of test_site vanishes).
MEMORY_TMP = Path("/dev/shm")
MEMORY_TMP_FREE = 10 << 30


def _session_tmpdir():
    chosen = os.environ.get("MXBENCH_TESTS_TMPDIR")
    if chosen is not None:
        return chosen or None
    try:
        free = os.statvfs(str(MEMORY_TMP))
    except OSError:
        return None
    if free.f_bavail * free.f_frsize < MEMORY_TMP_FREE or not os.access(str(MEMORY_TMP),
                                                                           os.W_OK):
        return None
    return str(MEMORY_TMP / "mxbench-tests")


_MADE_ENV_ROOT = "MXBENCH_TESTS_TMPDIR_SET" not in os.environ
if _MADE_ENV_ROOT:  # the controller; workers inherit it
    os.environ["MXBENCH_TESTS_TMPDIR_SET"] = "1"
    # the session's own (two sessions at once must not share one), made when first used
    os.environ["MXBENCH_TESTS_ENV_ROOT"] = os.path.join(
        tempfile.gettempdir(), "mxbench-tests-envs-%d-%s" % (os.getpid(), uuid.uuid4().hex[:8]))
    _tmpdir = _session_tmpdir()
    if _tmpdir:
        os.makedirs(_tmpdir, exist_ok=True)
        os.environ["TMPDIR"] = _tmpdir
tempfile.tempdir = None  # gettempdir() reads TMPDIR again
ENV_ROOT = Path(os.environ["MXBENCH_TESTS_ENV_ROOT"]) / os.environ.get("PYTEST_XDIST_WORKER",
                                                                       "main")


def disk_env_dir():
    """A new folder for asv environments, on disk (ENV_ROOT; removed at pytest_unconfigure)."""
    ENV_ROOT.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="env-", dir=str(ENV_ROOT)))

_MADE_TEST_HOME = "MXBENCH_TESTS_HOME" not in os.environ
if _MADE_TEST_HOME:
    os.environ["MXBENCH_TESTS_HOME"] = tempfile.mkdtemp(prefix="mxbench-tests-home-")
TEST_HOME = Path(os.environ["MXBENCH_TESTS_HOME"]) / os.environ.get("PYTEST_XDIST_WORKER",
                                                                     "main")
TEST_HOME.mkdir(parents=True, exist_ok=True)


def _real_home_setting(name, path, only_if_exists=False):
    if name not in os.environ and (not only_if_exists or os.path.exists(str(path))):
        os.environ[name] = str(path)


def machine_file_bytes():
    try:
        return REAL_MACHINE_FILE.read_bytes()
    except FileNotFoundError:
        return None


REAL_MACHINE_FILE_AT_START = machine_file_bytes()


def _input_cache_format():
    """benchmarks/harness/inputs.py's INPUT_CACHE_FORMAT, read without importing MXNet."""
    import re
    text = (ROOT / "benchmarks" / "harness" / "inputs.py").read_text()
    return re.search(r'^INPUT_CACHE_FORMAT = "([^"]+)"$', text, re.M).group(1)


# before HOME moves: the caches and configuration that stay the user's (inputs.py's default
# input cache is ~/.cache/mxbench/inputs-N)
_real_home_setting("MXBENCH_INPUT_CACHE",
                   REAL_HOME / ".cache" / "mxbench" / ("inputs-" + _input_cache_format()))
_real_home_setting("PIP_CACHE_DIR", REAL_CACHE / "pip")
_real_home_setting("npm_config_cache", REAL_HOME / ".npm")
_real_home_setting("NPM_CONFIG_USERCONFIG", REAL_HOME / ".npmrc", only_if_exists=True)
_real_home_setting("GIT_CONFIG_GLOBAL", REAL_HOME / ".gitconfig", only_if_exists=True)
_real_home_setting("PYENV_ROOT", REAL_HOME / ".pyenv", only_if_exists=True)
_real_home_setting("VIRTUALENV_OVERRIDE_APP_DATA", REAL_CACHE / "virtualenv")  # its seed wheels
os.environ["HOME"] = str(TEST_HOME)

# The machine of the committed history, results/<it>/ (the only one there: test_results_store)
HISTORY_MACHINE = "amd-epyc-avx512-2cpu-24gb"
# The history before the quiet-machine rule, kept whole: results-archive/<it>/
ARCHIVE_MACHINE = "amd-epyc-2cpu-24gb"
# Tests record into temporary stores while pytest and the fixtures' own processes run: the
# refusal of a busy machine (mxbench/asvrun/conditions.py) has its own test, which unsets it.
os.environ.setdefault("MXBENCH_ALLOW_BUSY", "1")

from env_matrix import ladder
from mxbench.asvrun import runner
from mxbench.core.project import load as load_project, read_config

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
        self.env_dir = Path(env_dir) if env_dir else disk_env_dir()
        self.ladder = self.base / "ladder"
        self.results_dir = self.base / "results"
        self.html_dir = self.base / "html"
        self.machine = E2E_MACHINE
        self.conf_path = self.write_config("asv.conf.json")
        self.variants_conf_path = self.write_config("asv.variants.conf.json")
        ladder.ensure(str(self.ladder))
        self.tags = ladder.tags(str(self.ladder))
        runner.ensure_machine(self.machine)

    def write_config(self, name):
        """A copy of the repo's config `name` in this project's folder."""
        conf = read_config(str(ROOT / name))
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
        return subprocess.run([runner.asv_executable(), "--config", str(self.conf_path)]
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
        return load_project(str(self.conf_path)).environment(flavor)

    def env_path(self, flavor):
        """The folder of the flavor's (default variant's) asv environment."""
        for path in sorted(self.env_dir.iterdir()):
            info = path / "asv-env-info.json"
            if info.is_file() and json.loads(info.read_text()).get("build_env_vars") == {
                    "MXNET_FLAVOR": flavor}:
                return path
        raise AssertionError("no environment of %s in %s" % (flavor, self.env_dir))

    def result_file(self, release, flavor):
        return (self.results_dir / self.machine
                / ("%s-%s.json" % (self.tags[release][:8], self.env_name(flavor))))


# The asv_e2e run is made once per session, by the first worker that asks for it, into this
# folder of the session's (on disk, beside the workers' environments); each worker then takes
# a copy of its environments and results (seconds, where the run is minutes), so that its
# tests' installs and runs never meet the other worker's. Nobody writes the original after.
E2E_ORIGINAL = Path(os.environ["MXBENCH_TESTS_ENV_ROOT"]) / "asv-e2e"


def asv_e2e_original():
    """(the project of the asv_e2e run, its output), made here unless a worker made it."""
    E2E_ORIGINAL.parent.mkdir(parents=True, exist_ok=True)
    output = E2E_ORIGINAL / "first-run.txt"
    with open(str(E2E_ORIGINAL) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker waits for the run
        if not output.is_file():
            shutil.rmtree(str(E2E_ORIGINAL), ignore_errors=True)  # a failed try's
            (E2E_ORIGINAL / "env").mkdir(parents=True)
            (E2E_ORIGINAL / "project").mkdir()
            project = AsvProject(E2E_ORIGINAL / "project", env_dir=E2E_ORIGINAL / "env")
            proc = project.mxbench("run", *E2E_RELEASES, "--bench", E2E_BENCH, "--", *E2E_ATTRS)
            assert proc.returncode == 0, proc.stdout[-5000:]
            output.write_text(proc.stdout, encoding="utf-8")
    return E2E_ORIGINAL / "project", output.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def asv_e2e(tmp_path_factory):
    """A project of this worker's with the asv_e2e run's environments and results (copies)."""
    original, output = asv_e2e_original()
    env_dir = disk_env_dir()
    for env in (original.parent / "env").iterdir():
        shutil.copytree(str(env), str(env_dir / env.name), symlinks=True)
    project = AsvProject(tmp_path_factory.mktemp("asv-e2e"), env_dir=env_dir)
    shutil.copytree(str(original / "results"), str(project.results_dir))
    project.first_run = subprocess.CompletedProcess(project.mxbench_command(), 0, output)
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


# --- the session: two cores, and the user's home left alone --------------------------------------
# make test runs the suite with pytest-xdist: `-n 2 --dist loadgroup --no-loadscope-reorder`.
# The workers take the tests in units (the groups of loadgroup, named here: this pytest drops
# xdist_group marks from the test ids, so the scheduler below reads the units from the ids). A
# unit is a module whole, unless PARTS cuts it. So what a module shares stays in one process:
# its module-scoped fixtures, the README lanes (test_readme_commands, never cut) and the
# checkout's .asv/env they use, the CI rehearsal's workspace. Each worker has its own temporary
# folders, HOME (above) and copy of asv_e2e (its run is made once), so a part that uses asv_e2e
# runs on either worker. A part is named with the tests it takes (function names); the
# module's other tests are its part "rest". Tests that share an expensive module-scoped
# fixture stay in one part, or each worker would make it.
PARTS = {
    "test_e2e.py": {
        "check": ["test_check_fails_on_a_real_regression_and_passes_the_other_way",
                  "test_check_refuses_what_it_cannot_measure"],
        "variant": ["test_a_variant_runs_as_its_own_environment_and_compares",
                    "test_the_suite_imports_and_runs_on_the_oldest_release"],
    },
    "test_integrity.py": {
        "interrupts": ["test_twenty_interrupts_lose_nothing_and_a_resume_completes"]},
    "test_confirm.py": {
        "run": ["test_a_confirmation_run_confirms_a_real_change_and_the_report_lists_it"]},
    "test_reliability.py": {  # the runs on asv_e2e's copies; the rest reads copies of results/
        "runs": ["test_two_runs_at_once_never_lose_the_first_runs_measurement",
                 "test_compare_reads_the_results_it_is_given",
                 "test_a_bench_anchored_on_the_bare_name_selects_its_points",
                 "test_results_that_cannot_be_written_during_a_merge"]},
    "test_site.py": {  # by the site each opens: the e2e run's (fixture site), the history's
        "e2e": ["test_published_html_loads_nothing_from_cdns",
                "test_index_json_has_the_release_tags", "test_index_lists_the_benchmarks",
                "test_graph_has_points_for_each_release_and_tag_labels",
                "test_regressions_page_lists_the_import_memory_regression",
                "test_site_opens_from_disk",
                "test_a_series_has_one_colour_over_http_and_from_disk"],
        "history": ["test_front_page_opens_on_a_section_with_graphs",  # each opens the
                    "test_default_graph_view_reads_at_a_glance",  # history_site: one publish
                    "test_graph_cache_answers_a_hit_while_other_files_load",
                    "test_the_grid_loads_under_a_megabyte_and_draws_at_once",
                    "test_a_graph_page_draws_from_its_script_and_shows_the_code"]},
}
# The units are handed out in this order, the longest first (a unit's seconds: its tests' in a
# run of the whole suite; the README lanes are one unit's), then the rest in collection order,
# so that the last unit to start is a short one.
LONGEST_FIRST = [  # seconds in a run of the whole suite on a fresh clone (2026-12-02, 13:46
    # here), with any asv_e2e setup the unit paid (the README lanes: the unit's wall time)
    "test_readme_commands.py",  # 278
    "test_confirm.py:run",  # 213
    "test_integrity.py:interrupts",  # 100
    "test_integrity.py:rest",  # 83
    "test_ci_workflow.py",  # 72
    "test_smoke.py",  # 67
    "test_e2e.py:rest",  # 51
    "test_instructions.py",  # 51
    "test_children.py",  # 47
    "test_hostile_input.py",  # 47
    "test_publish.py",  # 42
    "test_site.py:history",  # 40
    "test_site.py:e2e",  # 36
    "test_e2e.py:check",  # 35
    "test_counts.py",  # 35
    "test_changes.py",  # 34
    "test_site.py:rest",  # 32
    "test_reliability.py:runs",  # 31
    "test_search.py",  # 31
    "test_reliability.py:rest",  # 26
    "test_gpu_skips.py",  # 25
    "test_conditions.py",  # 23
    "test_crashes.py",  # 22
    "test_verdict_inputs.py",  # 21
    "test_e2e.py:variant",  # 16
    "test_selection.py",  # 16
    "test_confirm.py:rest",  # 15
    "test_site_views.py",  # 15
]


def unit_of(nodeid):
    """The unit of a test id (tests/test_x.py::test_y[params]): its module, or the module's
    part that names it."""
    path, _, name = nodeid.partition("::")
    module = path.split("/")[-1]
    parts = PARTS.get(module)
    if parts is None:
        return module
    name = name.split("::")[0].split("[")[0]
    return "%s:%s" % (module, next((part for part, tests in parts.items() if name in tests),
                                   "rest"))


def pytest_collection_modifyitems(session, config, items):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return  # one process: collection order
    order = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: order.get(unit_of(item.nodeid), len(order)))


@pytest.hookimpl(optionalhook=True)  # the baselines' and MXNet 2.0's venvs have no xdist
def pytest_xdist_make_scheduler(config, log):
    """--dist loadgroup: xdist's scheduler of groups, with the units above as the groups."""
    if config.getvalue("dist") != "loadgroup":
        return None  # xdist's own
    from xdist.scheduler import LoadScopeScheduling

    class UnitScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return unit_of(nodeid)

        def _reschedule(self, node):
            """The next unit once the worker holds one test not yet run (it runs a test once
            it knows the next one). xdist's own tops it up at two: a unit of one long test
            (twenty interrupts, a confirmation run) then took the next two units with it,
            away from the other worker."""
            if node.shutting_down:
                return
            if not self.workqueue:
                node.shutdown()
            elif self._pending_of(self.assigned_work[node]) <= 1:
                self._assign_work_unit(node)
    return UnitScheduling(config, log)


def pytest_sessionstart(session):
    """With workers: the site's npm packages (site-sources/node_modules, an ignored build output)
    installed once, before they start: two publishes at once on a fresh clone would both run
    `npm ci` in the checkout's site-sources/. Where it cannot, the publishing tests say why."""
    if hasattr(session.config, "workerinput") or not getattr(session.config.option,
                                                             "numprocesses", None):
        return
    from mxbench.site import vendor
    try:
        vendor.install_packages()
    except Exception as exc:  # no npm, no registry: the tests that publish report it
        print("site-sources/node_modules not installed before the workers: %s" % exc, file=sys.stderr)


def pytest_sessionfinish(session, exitstatus):
    """The user's ~/.asv-machine.json as it was when the session started, or the session
    fails (in the controller, or a run without xdist: workers share its start)."""
    if hasattr(session.config, "workerinput"):
        return
    now = machine_file_bytes()
    if now != REAL_MACHINE_FILE_AT_START:
        message = ("%s changed during the tests (%s -> %s): a test wrote asv machine "
                   "entries into the user's home, not the tests' HOME (%s), or another "
                   "process using this home did" % (
                       REAL_MACHINE_FILE, describe_bytes(REAL_MACHINE_FILE_AT_START),
                       describe_bytes(now), TEST_HOME.parent))
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("")
            reporter.write_line("ERROR: " + message, red=True, bold=True)
        else:
            print("ERROR: " + message, file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def describe_bytes(data):
    if data is None:
        return "absent"
    try:
        return "machines %s" % ", ".join(sorted(json.loads(data.decode("utf-8"))))
    except ValueError:
        return "%d bytes" % len(data)


def pytest_unconfigure(config):
    shutil.rmtree(str(ENV_ROOT), ignore_errors=True)  # this process's asv environments
    if not hasattr(config, "workerinput"):  # the controller (or a plain pytest)
        if _MADE_ENV_ROOT:  # the session's: the asv_e2e run's original too
            shutil.rmtree(os.environ["MXBENCH_TESTS_ENV_ROOT"], ignore_errors=True)
        if _MADE_TEST_HOME:
            shutil.rmtree(os.environ.get("MXBENCH_TESTS_HOME", ""), ignore_errors=True)
